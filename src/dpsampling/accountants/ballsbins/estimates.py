"""Monte Carlo estimates of delta at every eps of a grid, from one set of loss samples.

For samples L_1..L_m of the privacy loss and each eps, Z_i = [1 - e^{eps - L_i}]_+ lies in
[0, 1] and eq. (1) gives delta(eps) = w * E[Z] with w = P(E) for importance sampling
(Alg. 5), w = 1 otherwise. An estimate keeps the sufficient statistics per eps: the count m,
sum_i Z_i and sum_i Z_i^2, so shards combine exactly by adding them (same grid, same w).

- mean: w * q with q = sum Z / m;
- standard error: w * sqrt(s^2 / m), s^2 the unbiased sample variance of Z;
- upper confidence bound (Alg. 4 / Alg. 5, Thm 4.1): w * p, p the largest value in [q, 1]
  with m * KL(q || p) <= log(1/beta), KL the Bernoulli relative entropy (p = 1 when q = 1).
  By Hoeffding's relative-entropy bound Pr[mean of m i.i.d. [0,1] variables < q] <=
  exp(-m KL(q || mu)) for q < mu, so Pr[w p < delta] <= beta, separately at each eps.
Importance-sampled estimates are valid only for eps >= the eps_0 they were drawn for; below
it the mean, error and bound are NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpsampling.accountants.ballsbins.sampling import LossSamples
from dpsampling.lazy import lazy_import
from dpsampling.validation import check_int_at_least, check_open_unit

_kernels = lazy_import("dpsampling.accountants.ballsbins._kernels")  # Numba: loaded by the first draw or reduction


def _check_grid(epsilons) -> np.ndarray:
    grid = np.atleast_1d(np.asarray(epsilons, dtype=np.float64))
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)):
        raise ValueError(f"epsilons must be a non-empty 1-d list of finite numbers; got {epsilons!r}")
    return grid


def bernoulli_kl(q, p):
    """KL(Ber(q) || Ber(p)) elementwise, with 0 log 0 = 0."""
    q = np.asarray(q, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(q > 0, q * (np.log(q) - np.log(p)), 0.0)
        second = np.where(q < 1, (1 - q) * (np.log1p(-q) - np.log1p(-p)), 0.0)
    return first + second


def kl_upper_confidence_bound(mean, count, beta, iterations: int = 200):
    """Largest p in [mean, 1] with count * KL(mean || p) <= log(1/beta) (Alg. 4), elementwise.

    Bisection, returning the upper end of the final bracket (never below the exact value).
    """
    beta = check_open_unit("beta", beta)
    mean = np.clip(np.asarray(mean, dtype=np.float64), 0.0, 1.0)
    count = np.broadcast_to(np.asarray(count, dtype=np.float64), mean.shape)
    budget = np.log(1.0 / beta) / np.where(count > 0, count, np.nan)
    low = mean.copy()
    high = np.ones_like(mean)
    for _ in range(iterations):
        middle = 0.5 * (low + high)
        inside = bernoulli_kl(mean, middle) <= budget
        low = np.where(inside, middle, low)
        high = np.where(inside, high, middle)
    return np.where(count > 0, high, np.nan)


@dataclass(frozen=True, eq=False)
class DeltaEstimate:
    """Sufficient statistics of Z = [1 - e^{eps - L}]_+ per eps; see module docstring."""

    epsilons: np.ndarray
    count: np.ndarray
    total: np.ndarray
    total_squares: np.ndarray
    log_weight: float = 0.0
    minimum_epsilon: float = -math.inf

    @property
    def valid(self) -> np.ndarray:
        return (self.epsilons >= self.minimum_epsilon) & (self.count > 0)

    def _scaled(self, values):
        return np.where(self.valid, math.exp(self.log_weight) * values, np.nan)

    def mean(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self._scaled(self.total / self.count)

    def standard_error(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            q = self.total / self.count
            variance = np.maximum(self.total_squares - self.count * q * q, 0.0) / np.maximum(
                self.count - 1, 1)
            return self._scaled(np.sqrt(variance / self.count))

    def upper_confidence_bound(self, beta) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(self.count > 0, self.total / np.maximum(self.count, 1), 0.0)
        return self._scaled(kl_upper_confidence_bound(q, self.count, beta))

    def combine(self, other: DeltaEstimate) -> DeltaEstimate:
        """Exact pooling of two shards (same eps grid, same importance event)."""
        if not np.array_equal(self.epsilons, other.epsilons):
            raise ValueError("estimates must share the eps grid to be combined; got different grids")
        if self.log_weight != other.log_weight or self.minimum_epsilon != other.minimum_epsilon:
            raise ValueError("estimates must come from the same importance event to be combined; "
                             f"got log weights {self.log_weight} and {other.log_weight}")
        return DeltaEstimate(self.epsilons, self.count + other.count, self.total + other.total,
                             self.total_squares + other.total_squares, self.log_weight,
                             self.minimum_epsilon)

    __add__ = combine

    def to_frame(self, beta) -> pd.DataFrame:
        """One row per eps: epsilon, count, total, total_squares, mean, standard_error, ucb."""
        return pd.DataFrame({
            "epsilon": self.epsilons,
            "count": self.count,
            "total": self.total,
            "total_squares": self.total_squares,
            "mean": self.mean(),
            "standard_error": self.standard_error(),
            "upper_confidence_bound": self.upper_confidence_bound(beta),
        })


def estimate_delta(samples, epsilons, *, log_weight: float = 0.0,
                   minimum_epsilon: float = -math.inf) -> DeltaEstimate:
    """Statistics of [1 - e^{eps - L}]_+ at every eps. ``samples``: LossSamples (its weight and
    minimum eps are used) or a 1-d array of losses (then pass them explicitly)."""
    if isinstance(samples, LossSamples):
        losses = samples.losses
        log_weight = samples.log_weight
        minimum_epsilon = samples.minimum_epsilon
    else:
        losses = np.asarray(samples, dtype=np.float64)
        if losses.ndim != 1 or losses.size == 0:
            raise ValueError(f"samples must be a non-empty 1-d array of losses; got shape {losses.shape}")
    if np.isnan(losses).any():
        raise ValueError("samples must not contain NaN; got NaN losses")
    grid = _check_grid(epsilons)
    totals = np.empty_like(grid)
    squares = np.empty_like(grid)
    _kernels.loss_statistics_kernel(np.ascontiguousarray(losses, dtype=np.float64), grid,
                                    totals, squares)
    count = np.full(grid.shape, losses.size, dtype=np.int64)
    return DeltaEstimate(grid, count, totals, squares, float(log_weight), float(minimum_epsilon))


def combine_estimates(estimates) -> DeltaEstimate:
    """Pool any number of shard estimates."""
    estimates = list(estimates)
    if not estimates:
        raise ValueError("estimates must be a non-empty list; got []")
    result = estimates[0]
    for other in estimates[1:]:
        result = result.combine(other)
    return result


def estimate_from_frame(frame: pd.DataFrame, log_weight=0.0, minimum_epsilon=-math.inf) -> DeltaEstimate:
    """Rebuild an estimate from ``DeltaEstimate.to_frame`` output (for pooled shard tables)."""
    return DeltaEstimate(frame["epsilon"].to_numpy(float), frame["count"].to_numpy(np.int64),
                         frame["total"].to_numpy(float), frame["total_squares"].to_numpy(float),
                         float(log_weight), float(minimum_epsilon))


def required_samples(beta, relative_width: float = 1.0, delta: float = 1e-6) -> int:
    """Rough m so that the KL bound is within (1 + relative_width) * delta: m ~ log(1/beta)
    / KL(delta || (1 + relative_width) delta) (a planning aid, not used by the estimators)."""
    beta = check_open_unit("beta", beta)
    kl = float(bernoulli_kl(delta, min((1 + relative_width) * delta, 1 - 1e-16)))
    return check_int_at_least("samples", math.ceil(math.log(1 / beta) / kl), 1)
