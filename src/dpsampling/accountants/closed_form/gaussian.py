"""The Gaussian mechanism, exactly: deterministic batches (D), and every run of Gaussian steps.

With deterministic batches each example is in exactly one batch per epoch, so one epoch of
ABLQ_D is tightly dominated by P_D = N(1, sigma^2), Q_D = N(0, sigma^2) (chua24, Sec. 3), and
K epochs by the K-fold product, i.e. the Gaussian mechanism with sensitivity sqrt(K). The pair
is symmetric (a reflection maps one direction to the other), so remove = add. Prop. 3.1
(Balle & Wang 2018, Thm 8), for sensitivity s:

    delta(eps) = Phi(s/(2 sigma) - eps sigma/s) - e^eps Phi(-s/(2 sigma) - eps sigma/s).

It is evaluated as Phi(a) * (-expm1(eps + log Phi(b) - log Phi(a))) so that values down to
1e-300 keep full relative precision. eps(delta) inverts this strictly decreasing function. The
arguments are those of a validated run (``accountants.run``): nothing is checked again here.

``gaussian_delta_bounds`` / ``gaussian_epsilon_bounds`` are the certified versions (docs/PROOF.md,
Lemma 16): every rounding of the evaluation charged, so that lower <= exact <= upper.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

U = 2.0**-53
LOG_NDTR_ABSOLUTE, LOG_NDTR_RELATIVE = 4e-14, 8.0 * U
"""Assumption B for log_ndtr (docs/PROOF.md): |log_ndtr(z) - log Phi(z)| <= LOG_NDTR_ABSOLUTE +
LOG_NDTR_RELATIVE |log Phi(z)| (verified against mpmath from z = 8 down to -1e5 in
test_gaussian_certified: worst 1.7e-14 absolute for z >= -11, ndtr's own 2e-14; 4.1 u |log Phi| below)."""

BISECTIONS = 200  # more than enough to reach adjacent floats from any bracket [0, 2^k]

def gaussian_delta(epsilon, sigma: float, sensitivity: float = 1.0) -> np.ndarray:
    """Exact delta(eps) of the Gaussian mechanism N(s, sigma^2) vs N(0, sigma^2); vectorized in eps."""
    eps = np.asarray(epsilon, dtype=float)
    ratio = sensitivity / sigma
    a = ratio / 2 - eps / ratio
    b = -ratio / 2 - eps / ratio
    log_phi_a = special.log_ndtr(a)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.exp(log_phi_a) * -np.expm1(eps + special.log_ndtr(b) - log_phi_a)
    return np.clip(np.where(np.isfinite(value), value, 0.0), 0.0, 1.0)


def gaussian_epsilon(delta: float, sigma: float, sensitivity: float) -> float:
    """The smallest eps >= 0 with gaussian_delta(eps) <= delta, from above: bisection to adjacent
    floats (``_last_above``), returning the end of the bracket at which delta is met (0 if
    delta(0) <= delta)."""
    return _last_above(lambda eps: gaussian_delta(eps, sigma, sensitivity), delta)[1]


def gaussian_delta_bounds(epsilon, sigma: float, sensitivity: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) on the exact delta(eps) of the Gaussian mechanism (docs/PROOF.md Lemma 16):
    gaussian_delta's evaluation with every rounding charged. The arguments a, b carry at most
    e_z = 4u (|s / (2 sigma)| + |eps sigma / s|) (ratio, quotient, difference: three roundings of
    terms of at most that size, with room); log Phi moves by at most (|z| + 1) e_z with z (its
    slope phi / Phi is <= |z| + 1 for z <= 0 and <= 1 above), and log_ndtr adds LOG_NDTR_ABSOLUTE +
    LOG_NDTR_RELATIVE |log Phi| (assumption B); the exponent L = eps + log Phi(b) - log Phi(a) <= 0 adds 2u of its
    terms' magnitudes; exp and expm1 are within 2u (assumption C, plus 2^-1074 where exp's result is
    subnormal or 0, added to the upper end), the last product within u. The bracket is the
    evaluation at the ends of those intervals, rounded outward, clipped to [0, 1]."""
    eps = np.asarray(epsilon, dtype=float)
    ratio = sensitivity / sigma
    a = ratio / 2 - eps / ratio
    b = -ratio / 2 - eps / ratio
    e_z = 4.0 * U * (abs(ratio) / 2 + np.abs(eps / ratio)) * (1.0 + 4.0 * U)
    log_phi_a, log_phi_b = special.log_ndtr(a), special.log_ndtr(b)

    def spread(z, log_phi):
        slope = np.where(z <= 0, np.abs(z) + 1.0, 1.0)
        return (slope * e_z + LOG_NDTR_ABSOLUTE + LOG_NDTR_RELATIVE * np.abs(log_phi)) * (1.0 + 4.0 * U)

    e_a, e_b = spread(a, log_phi_a), spread(b, log_phi_b)
    exponent = eps + log_phi_b - log_phi_a
    e_l = (e_a + e_b + 2.0 * U * (np.abs(eps) + np.abs(log_phi_a) + np.abs(log_phi_b))) * (1.0 + 4.0 * U)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        l_low = exponent - e_l
        l_high = np.minimum(exponent + e_l, 0.0)  # the exact L is <= 0 (delta >= 0)
        one_minus_high = -np.expm1(l_low) * (1.0 + 2.0 * U)  # 1 - e^L is decreasing in L
        one_minus_low = np.maximum(-np.expm1(l_high) * (1.0 - 2.0 * U), 0.0)
        phi_high = np.exp(log_phi_a + e_a) * (1.0 + 2.0 * U)
        phi_low = np.exp(log_phi_a - e_a) * (1.0 - 2.0 * U)
        # PROOF Lemma 16: the Gaussian mechanism's closed form, every rounding charged
        upper = phi_high * one_minus_high * (1.0 + 2.0 * U)
        lower = phi_low * one_minus_low * (1.0 - 2.0 * U)
    upper = upper + 3.0 * 2.0**-1074  # exp's result may be subnormal or 0 (assumption C: 2^-1074 absolute)
    upper = np.where(np.isfinite(upper), np.minimum(upper, 1.0), 1.0)
    lower = np.where(np.isfinite(lower), np.clip(lower, 0.0, 1.0), 0.0)
    return lower, upper


def gaussian_epsilon_bounds(delta: float, sigma: float, sensitivity: float) -> tuple[float, float]:
    """(lower, upper) on the exact eps(delta) of the Gaussian mechanism: upper the smallest eps
    found with the certified upper delta <= delta (so the exact delta is too), lower the largest
    found with the certified lower delta > delta (so the exact eps is above it; 0 if none), both
    by bisection to adjacent floats on ``gaussian_delta_bounds`` (delta decreases in eps)."""
    def upper_delta(eps):
        return float(gaussian_delta_bounds(eps, sigma, sensitivity)[1][()])

    def lower_delta(eps):
        return float(gaussian_delta_bounds(eps, sigma, sensitivity)[0][()])

    return _last_above(lower_delta, delta)[0], _last_above(upper_delta, delta)[1]


def _last_above(delta_of, delta: float) -> tuple[float, float]:
    """(low, high): delta_of(low) > delta >= delta_of(high), adjacent floats apart (low 0 and high
    0 where delta_of(0) <= delta already)."""
    if delta_of(0.0) <= delta:
        return 0.0, 0.0
    low, high = 0.0, 1.0
    while delta_of(high) > delta:
        low, high = high, 2.0 * high
        if not math.isfinite(high):
            return low, math.inf
    for _ in range(BISECTIONS):
        mid = 0.5 * (low + high)
        if not low < mid < high:
            break
        if delta_of(mid) > delta:
            low = mid
        else:
            high = mid
    return low, high
