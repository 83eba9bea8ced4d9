"""Config validation with one-line errors: which key, which value, what is allowed.

Snakemake's own ``validate`` prints the whole schema on failure; the Snakefile calls
``check_config`` first so a user reads e.g.
``config chua24.fig1.steps: must be >= 1; got 0`` and nothing runs.

Nested overrides: Snakemake reads ``--config 'chua24={"fig4": {"steps": 50000}}'`` with YAML's
BaseLoader, so every nested scalar arrives as a string (top-level values are tried as int and
float first). ``check_config`` reads such a string as the number, boolean or null the schema
asks for at its key (``coerce``), in place, before validating: the override means what it says.
"""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import yaml

_INTEGER = re.compile(r"^[-+]?\d+$")
_FLOAT = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?(inf|nan)$", re.IGNORECASE)

_ALLOWED = {
    "minimum": lambda v: f">= {v}",
    "exclusiveMinimum": lambda v: f"> {v}",
    "maximum": lambda v: f"<= {v}",
    "exclusiveMaximum": lambda v: f"< {v}",
    "type": lambda v: f"of type {v}",
    "enum": lambda v: "one of " + ", ".join(map(str, v)),
    "minItems": lambda v: f"a list of at least {v} item(s)",
    "uniqueItems": lambda v: "a list without repeated items",
}


class ConfigError(ValueError):
    """A config value outside the schema."""


def _where(path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def describe(error: jsonschema.ValidationError) -> str:
    """One line for one schema violation."""
    where = _where(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(allowed))
        return f"config {where}: unknown key {', '.join(map(repr, unknown))}; allowed keys: {', '.join(allowed)}"
    if error.validator == "required":
        return f"config {where}: {error.message}"
    if error.validator in _ALLOWED:
        return f"config {where}: must be {_ALLOWED[error.validator](error.validator_value)}; got {error.instance!r}"
    return f"config {where}: {error.message}"


def _resolve(node, schema: dict) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        target = schema
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node if isinstance(node, dict) else {}


def _scalar(text: str, types: list):
    """``text`` as the schema's non-string type where it reads as one, else unchanged."""
    if "string" in types:
        return text
    if "integer" in types and _INTEGER.match(text):
        return int(text)
    if "integer" in types and _FLOAT.match(text) and float(text).is_integer():  # 5e4, as Snakemake's top level
        return int(float(text))
    if "number" in types and _FLOAT.match(text):
        number = float(text)
        return int(number) if number.is_integer() and _INTEGER.match(text) else number
    if "boolean" in types and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if "null" in types and text in ("null", "~", ""):
        return None
    return text


def coerce(value, node: dict, schema: dict):
    """``value`` with its string scalars read as the schema's types (module docstring); dicts and
    lists are changed in place."""
    node = _resolve(node, schema)
    if isinstance(value, str):
        types = node.get("type", [])
        return _scalar(value, [types] if isinstance(types, str) else list(types))
    if isinstance(value, dict):
        properties, extra = node.get("properties", {}), node.get("additionalProperties")
        for key in list(value):
            value[key] = coerce(value[key], properties.get(key, extra if isinstance(extra, dict) else {}), schema)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            value[index] = coerce(item, node.get("items", {}), schema)
    return value


def check_config(config: dict, schema_path) -> None:
    """Raise ConfigError with one line per violation (the most relevant first); nested strings
    from Snakemake's --config are first read as the schema's types, in place (``coerce``)."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    coerce(config, schema, schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (list(e.absolute_path), e.validator))
    if errors:
        raise ConfigError("\n".join(describe(e) for e in errors[:5]))
