"""Config validation with one-line errors: which key, which value, what is allowed.

Snakemake's own ``validate`` prints the whole schema on failure; the Snakefile calls
``check_config`` first so a user reads e.g.
``config chua24.fig1.steps: must be >= 1; got 0`` and nothing runs.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import yaml

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


def check_config(config: dict, schema_path) -> None:
    """Raise ConfigError with one line per violation (the most relevant first)."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: (list(e.absolute_path), e.validator))
    if errors:
        raise ConfigError("\n".join(describe(e) for e in errors[:5]))
