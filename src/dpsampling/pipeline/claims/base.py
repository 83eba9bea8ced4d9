"""What a claim is, and how a stated number's tolerance is read from its digits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

import pandas as pd

FINDING = "finding"
"""Relation and verdict of a claim without a stated number (see Claim)."""


class Missing(LookupError):
    """The result a claim needs is not in the results (experiment not run, or not in the grid)."""


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
