"""dp-accounting's connect-the-dots PLD of a convex privacy curve (Doroshenko et al. 2022), an
independent check of the certified engine's upper bounds for pairs known by their curve (WOR under
substitution, lebeda24 App. D). Built here from dp-accounting's public constructor, not from the
library: the grid eps_i = i d (|eps_i| <= epsilon_max), alpha_i = e^eps_i; the interpolation of the
curve linear in alpha between (0, 1), the grid points and (inf, delta(epsilon_max)) has slope
increments q_i at alpha_i (the lower distribution's mass at loss eps_i); the upper distribution has
mass q_i alpha_i there and delta(epsilon_max) at infinity."""

from __future__ import annotations

import math

import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from dpsampling.accountants.reference import pld_bounds


def connect_the_dots_pld(curve, discretization: float, epsilon_max: float):
    """The (pessimistic) PLD of ``curve`` (vectorised delta(eps)) on the grid of step ``discretization``."""
    m = int(math.ceil(epsilon_max / discretization))
    index = np.arange(-m, m + 1)
    eps = index * discretization
    delta = np.asarray(curve(eps), dtype=float)
    alpha = np.exp(eps)
    slopes = np.empty(eps.size + 1)
    slopes[0] = (delta[0] - 1.0) / alpha[0]
    slopes[1:-1] = np.diff(delta) / np.diff(alpha)
    slopes[-1] = 0.0
    p = np.maximum(np.diff(slopes), 0.0) * alpha
    keep = p > 0
    pmf = {int(i): float(v) for i, v in zip(index[keep], p[keep])}
    return pld_lib.PrivacyLossDistribution.create_from_rounded_probability(
        pmf, float(delta[-1]), discretization, pessimistic_estimate=True)


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
