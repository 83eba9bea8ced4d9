"""The JSON Schema of every command's --json answer (src/dpsampling/cli/output.schema.json, shipped
with the package; docs/COMMANDS.md, 'JSON answers'), and the check the CLI tests run on each."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import jsonschema

SCHEMA_PATH = Path(str(files("dpsampling.cli") / "output.schema.json"))
ANSWER_SCHEMA = json.loads(SCHEMA_PATH.read_text())
jsonschema.Draft202012Validator.check_schema(ANSWER_SCHEMA)
_VALIDATOR = jsonschema.Draft202012Validator(ANSWER_SCHEMA)


def check_answer(document: dict) -> dict:
    """``document`` if it is one of the answers' shapes (jsonschema.ValidationError otherwise)."""
    _VALIDATOR.validate(document)
    return document
