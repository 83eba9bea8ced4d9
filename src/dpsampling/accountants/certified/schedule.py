"""Schedules of phases from YAML: a training run that changes sigma, batch size or sampler.

    phases:
      - {sampler: poisson, sigma: 0.8, steps: 1000, sampling_rate: 0.01}     # warm-up
      - {sampler: balls_and_bins, sigma: 1.0, steps: 500, epochs: 4}         # main phase

Fields: ``sampler`` (poisson, wor, balls_and_bins, deterministic), ``sigma`` (> 0), ``steps``
(steps per epoch, >= 1), ``epochs`` (>= 1, default 1; the whole phase repeats), and for poisson
and wor ``sampling_rate`` in (0, 1] (default 1 / steps). Shuffle is refused: it has no upper
bound to compose. Every error is one line naming the file, the phase, the field, the value and
what is allowed.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .engine import CERTIFIED_SAMPLERS, Phase

FIELDS = ("sampler", "sigma", "steps", "epochs", "sampling_rate")
REQUIRED = ("sampler", "sigma", "steps")


class ScheduleError(ValueError):
    """A schedule file that cannot be used; the message is one line."""


def _phase(where: str, index: int, entry) -> Phase:
    at = f"{where}: phase {index + 1}"
    if not isinstance(entry, dict):
        raise ScheduleError(f"{at}: must be a mapping with fields {', '.join(FIELDS)}; got {entry!r}")
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        raise ScheduleError(f"{at}: unknown field {unknown[0]!r}; allowed: {', '.join(FIELDS)}")
    for field in REQUIRED:
        if field not in entry:
            raise ScheduleError(f"{at}: field {field!r} is missing (required: {', '.join(REQUIRED)})")
    sampler = entry["sampler"]
    if sampler == "shuffle":
        raise ScheduleError(f"{at}: field 'sampler': shuffle cannot be composed: it has no upper bound to compose "
                            f"(allowed: {', '.join(CERTIFIED_SAMPLERS)})")
    if sampler not in CERTIFIED_SAMPLERS:
        raise ScheduleError(f"{at}: field 'sampler' is {sampler!r}; allowed: {', '.join(CERTIFIED_SAMPLERS)}")
    for field, kind in (("sigma", (int, float)), ("steps", int), ("epochs", int), ("sampling_rate", (int, float))):
        value = entry.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            what = "an integer" if kind is int else "a number"
            raise ScheduleError(f"{at}: field {field!r} is {value!r}; allowed: {what}")
    try:
        return Phase(sampler, entry["sigma"], entry["steps"], entry.get("epochs", 1), entry.get("sampling_rate"))
    except ValueError as error:
        raise ScheduleError(f"{at}: {error}") from None


def load_schedule(path) -> tuple[Phase, ...]:
    """The phases of a schedule file (module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise ScheduleError(f"{path}: schedule file not found")
    try:
        document = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise ScheduleError(f"{path}: not valid YAML{line}") from None
    if not isinstance(document, dict) or "phases" not in document:
        raise ScheduleError(f"{path}: must be a mapping with a list 'phases'")
    extra = sorted(set(document) - {"phases"})
    if extra:
        raise ScheduleError(f"{path}: unknown key {extra[0]!r}; allowed: phases")
    phases = document["phases"]
    if not isinstance(phases, list) or not phases:
        raise ScheduleError(f"{path}: 'phases' must be a non-empty list; got {phases!r}")
    return tuple(_phase(str(path), i, entry) for i, entry in enumerate(phases))
