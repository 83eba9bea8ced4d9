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
"""

from __future__ import annotations

import numpy as np
from scipy import special

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
    floats, returning the end of the bracket at which delta is met (0 if delta(0) <= delta)."""
    if gaussian_delta(0.0, sigma, sensitivity) <= delta:
        return 0.0
    low, high = 0.0, 1.0
    while gaussian_delta(high, sigma, sensitivity) > delta:
        low, high = high, 2.0 * high
    for _ in range(BISECTIONS):
        mid = 0.5 * (low + high)
        if not low < mid < high:
            break
        if gaussian_delta(mid, sigma, sensitivity) > delta:
            low = mid
        else:
            high = mid
    return high
