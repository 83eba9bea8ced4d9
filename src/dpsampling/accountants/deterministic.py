"""Deterministic batches (D): the Gaussian mechanism, exactly.

With deterministic batches each example is in exactly one batch per epoch, so one epoch of
ABLQ_D is tightly dominated by P_D = N(1, sigma^2), Q_D = N(0, sigma^2) (chua24, Sec. 3), and
K epochs by the K-fold product, i.e. the Gaussian mechanism with sensitivity sqrt(K). The pair
is symmetric (a reflection maps one direction to the other), so remove = add. Prop. 3.1
(Balle & Wang 2018, Thm 8), for sensitivity s:

    delta(eps) = Phi(s/(2 sigma) - eps sigma/s) - e^eps Phi(-s/(2 sigma) - eps sigma/s).

It is evaluated as Phi(a) * (-expm1(eps + log Phi(b) - log Phi(a))) so that values down to
1e-300 keep full relative precision. eps(delta) inverts this strictly decreasing function.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from dpsampling.validation import check_array, check_int_at_least, check_nonnegative, check_open_unit, check_positive


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


def deterministic_delta(epsilon, sigma: float, epochs: int = 1) -> np.ndarray:
    """delta_D(eps) for ``epochs`` passes of deterministic batches (both directions: equal)."""
    eps = check_array("epsilon", epsilon, check_nonnegative)
    sigma = check_positive("sigma", sigma)
    epochs = check_int_at_least("epochs", epochs, 1)
    return gaussian_delta(eps, sigma, math.sqrt(epochs))


def gaussian_epsilon(delta: float, sigma: float, sensitivity: float) -> float:
    """Smallest eps >= 0 with gaussian_delta(eps) <= delta (0 if delta(0) <= delta)."""
    if gaussian_delta(0.0, sigma, sensitivity) <= delta:
        return 0.0
    upper = 1.0
    while gaussian_delta(upper, sigma, sensitivity) > delta:
        upper *= 2.0
    # Work on log delta: smooth and well scaled even when delta is 1e-12.
    target = math.log(delta)
    return optimize.brentq(
        lambda e: math.log(max(float(gaussian_delta(e, sigma, sensitivity)), 1e-320)) - target,
        0.0,
        upper,
        xtol=1e-12,
        rtol=1e-13,
    )


def deterministic_epsilon(delta, sigma: float, epochs: int = 1) -> np.ndarray:
    """eps_D(delta): the inverse of deterministic_delta, for each delta in (0, 1)."""
    deltas = check_array("delta", delta, check_open_unit)
    sigma = check_positive("sigma", sigma)
    epochs = check_int_at_least("epochs", epochs, 1)
    return np.array([gaussian_epsilon(d, sigma, math.sqrt(epochs)) for d in deltas])
