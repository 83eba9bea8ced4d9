"""What a claim is, and how a stated number's tolerance is read from its digits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

import pandas as pd

FINDING = "finding"
"""Relation and verdict of a claim without a stated number (see Claim)."""
NOT_AT_SETTING = "not_at_paper_setting"
"""Verdict of a claim whose result was computed at another setting than the paper's (a config
overlay): never judged against the paper's number; the note gives both settings."""
UNDECIDED = "undecided_at_this_scale"
"""Verdict of a claim that the measured value cannot decide either way (a timing within its
machine-load margin of the criterion, a Monte Carlo bound whose confidence interval holds the
criterion): the note says what would decide it."""
VERDICTS = ("reproduced", "not_reproduced", UNDECIDED, NOT_AT_SETTING, "not_run")
"""Every verdict but FINDING, in the order the tables count them."""


class Missing(LookupError):
    """The result a claim needs is not in the results (experiment not run, or not in the grid)."""


class OffPaperSetting(Missing):
    """The result a claim needs was computed at another setting than the paper's.

    ``departures``: {parameter: (value that ran, paper's value)}."""

    def __init__(self, departures: dict):
        self.departures = dict(departures)
        super().__init__("run at " + ", ".join(f"{k} = {ran:g}" if isinstance(ran, float) else f"{k} = {ran}"
                                               for k, (ran, _) in self.departures.items())
                         + "; the paper's: " + ", ".join(f"{k} = {paper:g}" if isinstance(paper, float) else
                                                         f"{k} = {paper}" for k, (_, paper) in self.departures.items())
                         + ": not judged against the paper's value")


class Undecided(Exception):
    """Raised by a claim's measure when its value cannot decide the claim at this scale (see UNDECIDED)."""

    def __init__(self, value: float, note: str):
        self.value, self.note = float(value), note
        super().__init__(note)


def setting_departures(paper: dict, ran: dict) -> dict:
    """{key: (ran, paper)} for every key of ``paper`` whose value in ``ran`` differs (numbers
    compared to a relative 1e-9, lists element by element); a key absent from ``ran`` counts as
    a departure (recorded as None)."""
    departures = {}
    for key, value in paper.items():
        given = ran.get(key)
        if not _same(given, value):
            departures[key] = (given, value)
    return departures


def _same(given, value) -> bool:
    if isinstance(value, (list, tuple)):
        return isinstance(given, (list, tuple)) and len(given) == len(value) and all(map(_same, given, value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return isinstance(given, (int, float)) and abs(float(given) - float(value)) <= 1e-9 * abs(float(value))
    return given == value


@dataclass(frozen=True)
class Claim:
    """One stated number. ``measure(frame) -> (our_value, note)`` reads it from the result table.

    relation: '<' / '<=' (ours must not exceed the paper's value + tolerance), '>' / '>=' (ours
    must reach the paper's value - tolerance), '~' (|ours - paper| <= tolerance), '=' (equal),
    'finding' (the paper states no number, e.g. a question it leaves open: ours is recorded with
    the verdict 'finding', never 'reproduced' or 'not_reproduced'; ``paper_value`` says
    'none stated').
    tolerance: by default half a unit of the last stated digit when the paper gives two or more
    significant digits (it rounded), and 0 for one-digit round thresholds such as '3' or '0.01'.
    A stated value with two or more significant digits is the paper's computed number, not a
    round threshold: besides the relation, ours must then lie within MAGNITUDE_AGREEMENT (10%)
    of it, so an upper bound that holds only because ours is 1000x smaller is not called
    reproduced.
    ``why`` explains a verdict of not_reproduced (what we found); it is printed only then.
    ``setting``: the paper's setting of the claim, {dotted key of the result file's recorded
    parameters (e.g. 'spec.delta'): the paper's value}; where the result was computed at another
    setting (a config overlay), the claim's verdict is NOT_AT_SETTING, with both settings in the
    note. A measure may also raise OffPaperSetting itself, or Undecided.
    """

    claim_id: str
    experiment: str
    quantity: str
    relation: str
    paper_value: str
    measure: Callable[[pd.DataFrame], tuple]
    result_file: str = "bounds.parquet"
    tolerance: float | None = None
    why: str = ""
    tags: tuple = field(default_factory=tuple)
    setting: dict = field(default_factory=dict)

    def resolved_tolerance(self) -> float:
        if self.tolerance is not None:
            return self.tolerance
        return rounding_tolerance(self.paper_value)


def rounding_tolerance(text: str) -> float:
    """Half a unit of the last digit of a stated number with >= 2 significant digits, else 0."""
    try:
        value = Decimal(text)
    except ArithmeticError:
        return 0.0
    digits = value.as_tuple()  # Decimal("7.5e-5") -> digits (7, 5), exponent -6
    if len(digits.digits) < 2:
        return 0.0
    return float(Decimal(5) * Decimal(10) ** (digits.exponent - 1))


MAGNITUDE_AGREEMENT = 0.10


def is_computed_value(text: str) -> bool:
    """True for a stated number with >= 2 significant digits (see Claim)."""
    return rounding_tolerance(text) > 0


def verdict(relation: str, paper: float, ours: float, tolerance: float) -> bool:
    if relation in ("<", "<="):
        return ours <= paper + tolerance
    if relation in (">", ">="):
        return ours >= paper - tolerance
    if relation == "~":
        return abs(ours - paper) <= tolerance
    raise ValueError(f"relation must be one of <, <=, >, >=, ~; got {relation!r}")
