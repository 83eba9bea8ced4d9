"""The command line run in-process: ``run(*argv)`` -> (exit status, stdout, stderr), argparse's
own exits included; ``run_json(*argv)`` adds --json, expects success and a quiet stderr, parses
stdout and validates it against the answers' JSON Schema (``answer_schema``: every --json a test reads
is checked); ``same_records(loaded, frame)`` checks a JSON list of rows against a face frame,
bit for bit."""

import json
import math
from typing import NamedTuple

import numpy as np
import pytest
from answer_schema import check_answer

from dpsampling.cli.main import main


class Result(NamedTuple):
    code: int
    out: str
    err: str


@pytest.fixture()
def run(capsys):
    def run(*argv) -> Result:
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exit_info:  # argparse's own exits (errors, --help)
            code = exit_info.code
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)
    return run


@pytest.fixture()
def run_json(run):
    def run_json(*argv) -> dict:
        result = run(*argv, "--json")
        assert result.code == 0, result.err
        assert result.err == ""  # no progress bar or chatter outside a terminal
        return check_answer(json.loads(result.out))
    return run_json


def same_value(loaded, expected) -> bool:
    """JSON's value equals the face's exactly (floats bit for bit; NaN is written null)."""
    if isinstance(expected, float) and math.isnan(expected):
        return loaded is None
    if isinstance(expected, dict):
        return isinstance(loaded, dict) and loaded.keys() == expected.keys() and all(
            same_value(loaded[k], v) for k, v in expected.items())
    if isinstance(expected, (list, tuple)):
        return isinstance(loaded, list) and len(loaded) == len(expected) and all(
            same_value(a, b) for a, b in zip(loaded, expected))
    if isinstance(expected, (bool, np.bool_)):
        return loaded is bool(expected)
    if isinstance(expected, (float, np.floating, np.integer)):
        return type(loaded) in (int, float) and float(loaded) == float(expected)
    return loaded == expected


@pytest.fixture()
def same_records():
    def same_records(loaded: list, frame) -> bool:
        """The JSON rows are the frame's rows, every column, every value exactly (plus the sampler
        every bounds row names, where the frame has no such column)."""
        if "sampler" not in frame.columns:
            loaded = [{k: v for k, v in row.items() if k != "sampler"} for row in loaded]
        return same_value(loaded, frame.to_dict("records"))
    return same_records
