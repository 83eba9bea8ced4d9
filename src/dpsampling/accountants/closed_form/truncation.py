"""The price of truncating variable batches to a maximum size B (chua25 Appendix C).

With Poisson or balls-and-bins batches of expected size b over n examples and T steps, each
batch size is marginally Bin(n, b/n); truncating to B costs (Chua et al. 2024b, Prop. 3.2 and
Thm 3.3) an additive

    delta' = (1 + e^eps) * T * Pr[Bin(n, b/n) > B],

so the run is (eps, delta(eps) + delta')-DP.
"""

from __future__ import annotations

import math

from scipy import special

from dpsampling.validation import check_int_at_least, check_nonnegative, check_open_unit


def truncation_delta(n: int, expected_batch: int, max_batch: int, steps: int, epsilon: float) -> float:
    """delta' = (1 + e^eps) T Pr[Bin(n, b/n) > B]."""
    n = check_int_at_least("n", n, 1)
    expected_batch = check_int_at_least("expected_batch", expected_batch, 1)
    max_batch = check_int_at_least("max_batch", max_batch, 0)
    steps = check_int_at_least("steps", steps, 1)
    epsilon = check_nonnegative("epsilon", epsilon)
    if expected_batch > n:
        raise ValueError(f"expected_batch must be at most n = {n}; got {expected_batch}")
    tail = special.bdtrc(max_batch, n, expected_batch / n) if max_batch < n else 0.0  # Pr[X > B], no 1 - cdf
    return (1.0 + math.exp(epsilon)) * steps * float(tail)


def max_batch_size(n: int, expected_batch: int, steps: int, epsilon: float = 10.0, delta_target: float = 1e-10) -> int:
    """Smallest B >= b with truncation_delta(n, b, B, T, eps) <= delta_target."""
    delta_target = check_open_unit("delta_target", delta_target)
    low, high = expected_batch, expected_batch
    while truncation_delta(n, expected_batch, high, steps, epsilon) > delta_target:
        low, high = high, min(n, 2 * high)
    while low < high:  # the tail is decreasing in B: bisect for the smallest admissible B
        middle = (low + high) // 2
        if truncation_delta(n, expected_batch, middle, steps, epsilon) <= delta_target:
            high = middle
        else:
            low = middle + 1
    return high
