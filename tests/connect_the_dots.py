"""Reference upper bounds for pairs known by their privacy curve (WOR under substitution, lebeda24
App. D): the connect-the-dots PLD of the curve (``papers.lebeda24.substitution_curves.pld_from_curve``,
lebeda24's construction on dp-accounting's PLD), composed by dp-accounting and read with the
round-off removed upwards; the engine's certified bounds are checked against it."""

from __future__ import annotations

import numpy as np

from dpsampling.accountants.reference import pld_bounds
from dpsampling.papers.lebeda24.substitution_curves import pld_from_curve

connect_the_dots_pld = pld_from_curve


def upper_of_pld(pld, kind: str, values) -> np.ndarray:
    """The upper bound of both directions of a pessimistic PLD (round-off removed upwards,
    ``reference.pld_bounds``): delta at eps (kind "delta") or eps at delta ("epsilon")."""
    pmfs = pld_bounds.direction_pmfs(pld, True)
    return np.maximum(*(pld_bounds.query(pmf, kind, values, "upper") for pmf in pmfs.values()))


def reach(curve, tail: float = 1e-18) -> float:
    """The smallest 2^j >= 1 with curve(2^j) <= tail: where a single step's grid may stop."""
    value = 1.0
    while curve(np.array([value]))[0] > tail:
        value *= 2.0
    return value
