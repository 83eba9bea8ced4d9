"""Schedules of phases from YAML: a training run that changes sigma, batch size or sampler.

    phases:
      - {sampler: poisson, sigma: 0.8, steps: 1000, sampling_rate: 0.01}          # warm-up
      - {sampler: balls_and_bins, sigma: 1.0, steps_per_epoch: 500, epochs: 4}    # main phase

Each phase takes the keywords of ``run.Phase`` (``sampler``, ``sigma``, and ``steps`` (total) or
``epochs`` with ``steps_per_epoch`` / ``dataset_size`` and ``batch_size``; ``sampling_rate`` for
poisson and wor), with the same rules and no defaults (an epoch-based phase is given by its epochs:
``steps`` alone is refused). A sampler without a dominating pair (shuffle) cannot be composed
and is refused. Numbers may be written as YAML floats (``4e-3``, which YAML 1.1 reads as a
string, is read as the number; a whole number written ``1e3`` or ``1000.0`` is the integer 1000,
as on the command line). The file is read strictly (``yamlfile.read_yaml``: a directory, a file
that is not text and a key given twice are refused). Every error is one line naming the file,
the phase, the field, the value and what is allowed. ``coefficients`` (a list of numbers, the
first column of the banded Toeplitz C of correlated noise, docs/MATRIX.md) is optional, [1]
(DP-SGD) by default; ``min_separation`` and ``warm_start`` (true or false) are b_min_sep's.
"""

from __future__ import annotations

import math
import re

from dpsampling.accountants.run import RUN_FIELDS, SEPARATION_FIELDS, Phase
from dpsampling.samplers import SAMPLERS
from dpsampling.yamlfile import InputFileError, read_yaml

FIELDS = ("sampler", "sigma", *RUN_FIELDS, "coefficients", *SEPARATION_FIELDS)
COMPOSABLE = tuple(name for name, spec in SAMPLERS.items() if spec.composable)
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class ScheduleError(InputFileError):
    """A schedule file that cannot be used; the message is one line."""


def _number(value, integer: bool):
    """A YAML scalar as a number where it is one: YAML 1.1 reads 4e-3 (no dot) as a string; an
    integer field takes a whole float (1e3, 1000.0) as the integer, as the command line does."""
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        value = float(value)
    if integer and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def _phase(where: str, index: int, entry) -> Phase:
    at = f"{where}: phase {index + 1}"
    if not isinstance(entry, dict):
        raise ScheduleError(f"{at}: must be a mapping with fields {', '.join(FIELDS)}; got {entry!r}")
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        raise ScheduleError(f"{at}: unknown field {unknown[0]!r}; allowed: {', '.join(FIELDS)}")
    for field in ("sampler", "sigma"):
        if field not in entry:
            raise ScheduleError(f"{at}: field {field!r} is missing (required: sampler, sigma and the run's length)")
    sampler = entry["sampler"]
    if sampler not in COMPOSABLE:
        raise ScheduleError(f"{at}: field 'sampler' is {sampler!r}; allowed: {', '.join(COMPOSABLE)} (a sampler "
                            "without a dominating pair cannot be composed)")
    values = {}
    for field, value in entry.items():
        if field == "sampler":
            continue
        if field == "coefficients":
            if not isinstance(value, list) or not all(
                    isinstance(_number(v, False), (int, float)) and not isinstance(v, bool) for v in value):
                raise ScheduleError(f"{at}: field 'coefficients' is {value!r}; allowed: a list of numbers")
            values[field] = [_number(v, False) for v in value]
            continue
        if field == "warm_start":
            if not isinstance(value, bool):
                raise ScheduleError(f"{at}: field 'warm_start' is {value!r}; allowed: true or false")
            values[field] = value
            continue
        integer = field not in ("sigma", "sampling_rate")
        value = values[field] = _number(value, integer)
        kind = int if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ScheduleError(f"{at}: field {field!r} is {entry[field]!r}; allowed: "
                                f"{'a whole number' if integer else 'a number'}")
    try:
        return Phase(sampler, **values)
    except ValueError as error:
        raise ScheduleError(f"{at}: {error}") from None


def load_schedule(path) -> tuple[Phase, ...]:
    """The phases of a schedule file (module docstring)."""
    try:
        document = read_yaml(path, "schedule file")
    except InputFileError as error:
        raise ScheduleError(str(error)) from None
    if not isinstance(document, dict) or "phases" not in document:
        raise ScheduleError(f"{path}: must be a mapping with a list 'phases'")
    extra = sorted(set(document) - {"phases"})
    if extra:
        raise ScheduleError(f"{path}: unknown key {extra[0]!r}; allowed: phases")
    phases = document["phases"]
    if not isinstance(phases, list) or not phases:
        raise ScheduleError(f"{path}: 'phases' must be a non-empty list; got {phases!r}")
    return tuple(_phase(str(path), i, entry) for i, entry in enumerate(phases))
