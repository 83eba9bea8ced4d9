"""Reference upper bounds for pairs known by their privacy curve (WOR under substitution, lebeda24
App. D): the connect-the-dots PLD of the curve (Doroshenko et al. 2022, lebeda24's construction on
dp-accounting's PLD), composed by dp-accounting and read with the round-off removed upwards; the
engine's certified bounds are checked against it. A test reference only: the package answers
through the face."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np

from dpsampling.accountants.reference import pld_bounds


def connect_the_dots_pld(curve, discretization: float, epsilon_max: float):
    """Connect-the-dots PLD of a convex privacy curve given as curve(eps_array) -> delta.

    Grid eps_i = i * discretization, |eps_i| <= epsilon_max. With alpha_i = e^{eps_i}, the
    interpolation is linear in alpha between (0, 1), the grid points and (inf, delta(eps_max));
    its slope increases by q_i at alpha_i, which is the mass at loss eps_i of the lower
    distribution; the upper distribution has mass p_i = q_i alpha_i there and
    delta(eps_max) at +infinity.
    """
    m = int(math.ceil(epsilon_max / discretization))
    index = np.arange(-m, m + 1)
    eps = index * discretization
    delta = np.asarray(curve(eps), dtype=float)
    alpha = np.exp(eps)
    slopes = np.empty(eps.size + 1)
    slopes[0] = (delta[0] - 1.0) / alpha[0]
    slopes[1:-1] = np.diff(delta) / np.diff(alpha)
    slopes[-1] = 0.0
    q = np.maximum(np.diff(slopes), 0.0)
    p = q * alpha
    infinity_mass = float(delta[-1])
    keep = p > 0
    pmf = {int(i): float(v) for i, v in zip(index[keep], p[keep])}
    return dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution.create_from_rounded_probability(
        pmf, infinity_mass, discretization, pessimistic_estimate=True)



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
