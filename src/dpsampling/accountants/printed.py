"""Bounds as text, rounded outward: what is printed never claims more than what is proven.

An upper bound (eps or delta upper, a sigma shown sufficient, both numbers of an (eps, delta)
statement) is rounded up, a lower bound down, at the digits shown, in exact decimal arithmetic
(the float's exact binary value, never a float product), so the printed number parsed back as a
decimal is >= the upper bound (<= the lower bound). Every door (CLI tables and sentences,
``statement``, the adapters, the audit) prints bounds through these functions.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal

DIGITS = 6
"""Significant digits of a table cell."""
EXACT = Context(prec=1200, Emin=-1200, Emax=1200)
"""Room for every double's exact decimal value (at most 767 significant digits)."""


def _rounded(value: float, quantum: Decimal, up: bool) -> Decimal:
    return Decimal(value).quantize(quantum, rounding=ROUND_CEILING if up else ROUND_FLOOR, context=EXACT)


def outward(value, digits: int = DIGITS, *, up: bool) -> str:
    """``value`` at ``digits`` significant digits (as ``f"{value:.{digits}g}"`` writes them),
    rounded up (``up``) or down; inf, nan and 0 as they are."""
    value = float(value)
    if not math.isfinite(value) or value == 0:
        return f"{value:g}"
    quantum = Decimal(1).scaleb(Decimal(value).adjusted() - digits + 1, context=EXACT)
    return _g(_rounded(value, quantum, up), digits)


def _g(number: Decimal, precision: int) -> str:
    """``number`` written as ``%.{precision}g`` writes a float, digit for digit (no float between)."""
    number = number.normalize()
    exponent = number.adjusted()
    if -4 <= exponent < precision:
        return f"{number:f}"
    sign, digits, _ = number.as_tuple()
    mantissa = "".join(map(str, digits))
    mantissa = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{'-' if sign else ''}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def upper(value, digits: int = DIGITS) -> str:
    """An upper bound, rounded up."""
    return outward(value, digits, up=True)


def lower(value, digits: int = DIGITS) -> str:
    """A lower bound, rounded down."""
    return outward(value, digits, up=False)


def given(value, digits: int = DIGITS) -> str:
    """A query value the user gave, on the side of an upper bound: written as typed where its
    ``digits``-digit decimal reads back as the same double (1e-10, not the 1.01e-10 its binary
    value rounds up to), else rounded up."""
    text = f"{float(value):.{digits}g}"
    return text if float(text) == float(value) else upper(value, digits)


def upper_places(value, places: int) -> str:
    """An upper bound rounded up to ``places`` decimals (fixed point)."""
    return _places(value, places, up=True)


def lower_places(value, places: int) -> str:
    """A lower bound rounded down to ``places`` decimals (fixed point)."""
    return _places(value, places, up=False)


def _places(value, places: int, up: bool) -> str:
    value = float(value)
    if not math.isfinite(value):
        return f"{value:g}"
    return f"{_rounded(value, Decimal(1).scaleb(-places, context=EXACT), up):.{places}f}"


def bracket(lower_bound, upper_bound, digits: int = DIGITS) -> str:
    """"[lower, upper]", rounded outward."""
    return f"[{lower(lower_bound, digits)}, {upper(upper_bound, digits)}]"


def cell(key: str, value) -> str | None:
    """A table cell of column ``key`` rounded outward where the column is a bound (its name ends in
    ``_upper`` or ``_lower``, or is a sigma shown sufficient / insufficient); None otherwise."""
    if key.endswith("_upper") or key == "sigma_sufficient":
        return upper(value)
    if key.endswith("_lower") or key == "sigma_shown_insufficient":
        return lower(value)
    return None


__all__ = ["DIGITS", "bracket", "cell", "given", "lower", "lower_places", "outward", "upper", "upper_places"]
