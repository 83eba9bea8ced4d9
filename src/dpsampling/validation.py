"""Argument checks shared by every public function.

One phrasing everywhere: ``<name> must be <what is allowed>; got <value>``, raised as
ValueError before any state changes. The CLI turns these into one line and exit status 2.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np


def _fail(name: str, allowed: str, value) -> None:
    raise ValueError(f"{name} must be {allowed}; got {value!r}")


def _as_real(name: str, value) -> float:
    if isinstance(value, bool):
        _fail(name, "a real number", value)
    try:
        x = float(value)
    except (TypeError, ValueError):
        _fail(name, "a real number", value)
    except OverflowError:  # an integer past the largest float (10**400)
        _fail(name, "a real number within the range of floating point", value)
    if math.isnan(x):
        _fail(name, "a real number (not NaN)", value)
    return x


def check_positive(name: str, value) -> float:
    """A finite real number > 0."""
    x = _as_real(name, value)
    if not (x > 0 and math.isfinite(x)):
        _fail(name, "positive and finite", value)
    return x


def check_nonnegative(name: str, value) -> float:
    """A finite real number >= 0."""
    x = _as_real(name, value)
    if not (x >= 0 and math.isfinite(x)):
        _fail(name, "non-negative and finite", value)
    return x


def check_int_at_least(name: str, value, lower: int) -> int:
    """An integer >= lower (floats with an integral value are accepted)."""
    if isinstance(value, bool):
        _fail(name, f"an integer >= {lower}", value)
    if isinstance(value, (int, np.integer)):
        n = int(value)
    else:
        x = _as_real(name, value)
        if not (math.isfinite(x) and x == int(x)):
            _fail(name, f"an integer >= {lower}", value)
        n = int(x)
    if n < lower:
        _fail(name, f"an integer >= {lower}", value)
    return n


def check_open_unit(name: str, value) -> float:
    """A probability strictly inside (0, 1)."""
    x = _as_real(name, value)
    if not 0 < x < 1:
        _fail(name, "in the open interval (0, 1)", value)
    return x


def check_rate(name: str, value) -> float:
    """A sampling rate in (0, 1]."""
    x = _as_real(name, value)
    if not 0 < x <= 1:
        _fail(name, "in (0, 1]", value)
    return x


def check_choice(name: str, value, allowed: Sequence[str]) -> str:
    """One of a fixed list of names."""
    if value not in allowed:
        _fail(name, "one of " + ", ".join(allowed), value)
    return value


def check_array(name: str, values, check) -> np.ndarray:
    """Apply a scalar check to every element of a 1-d sequence; return a float array."""
    if np.isscalar(values):
        values = [values]
    values = list(values) if isinstance(values, Iterable) else [values]
    if not values:
        _fail(name, "a non-empty list", values)
    return np.array([check(name, v) for v in values], dtype=float)
