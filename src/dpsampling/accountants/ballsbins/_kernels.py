"""Numba kernels: one privacy-loss sample per row, O(T) (or O(r)) work and O(1) memory each.

Coordinates are standardised: w_t = x_t / sigma for the noise part, so x_t / sigma^2 =
w_t / sigma (+ 1/sigma^2 on the coordinate that carries the differing example). The sum
S(x) = sum_t exp(x_t / sigma^2) is accumulated as a running log-sum-exp (one pass, no
array of coordinates is ever held), and

    L_{P||Q}(x) = log S(x) - log T - 1/(2 sigma^2)          (eq. (2), remove)
    L_{Q||P}(x) = log T + 1/(2 sigma^2) - log S(x)          (eq. (3), add).

Order statistics (Alg. 6) are drawn through the exponential spacings (Renyi) representation
of uniform order statistics, the same joint law as Alg. 6's Beta products: with E_1, E_2, ...
i.i.d. Exp(1) and S_j = E_1 + ... + E_j, the survival probabilities 1 - Phi(y(k)) of the
k-th largest of R standard normals are jointly (S_k / S_{R+1})_k. So the increments
S_{k_i} - S_{k_{i-1}} ~ Gamma(k_i - k_{i-1}) and S_{R+1} - S_{k_r} ~ Gamma(R + 1 - k_r) are
independent, and Alg. 6's z_i = (S_{R+1} - S_{k_i}) / (S_{R+1} - S_{k_{i-1}}) ~
Beta(R - k_i + 1, k_i - k_{i-1}). Conditioning every coordinate on Phi(w) <= u0
(importance sampling) maps U to u0 U: 1 - Phi(y(k)) = (1 - u0) + u0 S_k / S_{R+1}. Small
survival probabilities come from S_k, small CDF values from S_{R+1} - S_k (summed from the
right), so neither loses precision to cancellation.

Work is cut into fixed-size chunks; chunk c fills out[c*chunk:(c+1)*chunk] from its own
xoshiro256** state ``chunk_states[c]``, so the output does not depend on the thread count
(``prange`` only decides which thread runs which chunk). For k epochs each row is the sum of
k independent losses (Alg. 11). Private: the public wrappers in ``sampling`` validate inputs.

The kernels are cached on disk (``cache=True``). Numba checks only the kernel's own file for
changes, so the kernels are closures over ``DEPENDENCY_STAMP``, a hash of the modules they
call (``_random``, ``_special``): Numba's cache key includes closure values, so editing those
modules recompiles the kernels instead of loading stale machine code.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
from numba import njit, prange

from dpsampling.accountants.ballsbins import _random, _special
from dpsampling.accountants.ballsbins._random import (
    standard_gamma,
    standard_normal,
    truncated_normal_below,
    uniform_open,
)
from dpsampling.accountants.ballsbins._special import normal_quantile, normal_quantile_from_log_cdf


def source_stamp(*modules) -> int:
    """A non-negative 60-bit hash of the source files of ``modules``."""
    digest = hashlib.sha256()
    for module in modules:
        digest.update(Path(module.__file__).read_bytes())
    return int.from_bytes(digest.digest()[:8], "little") >> 4


DEPENDENCY_STAMP = source_stamp(_random, _special)


@njit(inline="always")
def _lse_add(running_max, running_sum, value):
    """Add exp(value) to the log-sum-exp accumulator (running_max, running_sum)."""
    if value > running_max:
        running_sum = running_sum * math.exp(running_max - value) + 1.0
        running_max = value
    else:
        running_sum += math.exp(value - running_max)
    return running_max, running_sum


@njit(error_model="numpy")
def _conditioned_maximum(state, steps, mass):
    """log Phi(w*) for the maximum w* of T standard normals conditioned on w* >= C.

    ``mass`` = 1 - Phi(C)^T. Phi(w*)^T is uniform on [Phi(C)^T, 1], i.e.
    Phi(w*)^T = 1 - V * mass with V uniform (Alg. 10, first line).
    """
    return math.log1p(-uniform_open(state) * mass) / steps


@njit(error_model="numpy")
def _naive_one(state, inv_sigma, inv_variance, steps, remove):
    """log S(x) for x ~ P_1 (remove) or x ~ Q_B (add)."""
    running_max = -np.inf
    running_sum = 0.0
    for t in range(steps):
        value = standard_normal(state) * inv_sigma
        if remove and t == 0:
            value += inv_variance
        running_max, running_sum = _lse_add(running_max, running_sum, value)
    return running_max + math.log(running_sum)


@njit(error_model="numpy")
def _importance_add_one(state, inv_sigma, steps, threshold, log_cdf_threshold):
    """log S(x) for x ~ Q_B conditioned on max_t x_t <= C (coordinates i.i.d. truncated);
    threshold = C / sigma, log_cdf_threshold = log Phi(C / sigma)."""
    running_max = -np.inf
    running_sum = 0.0
    for _ in range(steps):
        w = truncated_normal_below(state, threshold, log_cdf_threshold)
        running_max, running_sum = _lse_add(running_max, running_sum, w * inv_sigma)
    return running_max + math.log(running_sum)


@njit(error_model="numpy")
def _importance_remove_one(state, inv_sigma, inv_variance, steps, mass):
    """log S(x) for x ~ P_1 conditioned on max_t (x - e_1)_t >= C (Alg. 10 on x - e_1)."""
    log_u_star = _conditioned_maximum(state, steps, mass)
    w_star = normal_quantile_from_log_cdf(log_u_star)
    star = 0
    if steps > 1 and uniform_open(state) >= 1.0 / steps:
        star = 1  # by symmetry any t* != 1 may be taken to be the second coordinate
    running_max = -np.inf
    running_sum = 0.0
    for t in range(steps):
        if t == star:
            w = w_star
        else:
            w = truncated_normal_below(state, w_star, log_u_star)
        value = w * inv_sigma
        if t == 0:
            value += inv_variance
        running_max, running_sum = _lse_add(running_max, running_sum, value)
    return running_max + math.log(running_sum)


@njit(error_model="numpy")
def _accumulate_orders(state, orders, n_orders, draws, log_weights, log_cdf_bound, inv_sigma,
                       gaps, rest, running_max, running_sum):
    """Add sum_i exp(log_weights[i] + y(k_i) / sigma) to the accumulator, y(k) the k-th
    largest of ``draws`` i.i.d. N(0, 1) conditioned on Phi(w) <= u0 = exp(log_cdf_bound)
    (log_cdf_bound = 0: no conditioning); spacings as in the module docstring.
    ``gaps`` and ``rest`` are scratch arrays of length >= n_orders."""
    previous = 0
    for i in range(n_orders):
        k = orders[i]
        gaps[i] = standard_gamma(state, float(k - previous))
        previous = k
    suffix = standard_gamma(state, float(draws + 1 - previous))  # S_{R+1} - S_{k_r}
    for i in range(n_orders - 1, -1, -1):
        rest[i] = suffix  # S_{R+1} - S_{k_i}
        suffix += gaps[i]
    total = suffix  # S_{R+1}
    inv_total = 1.0 / total
    log_total = math.log(total)
    u0 = math.exp(log_cdf_bound)
    s0 = -math.expm1(log_cdf_bound)
    prefix = 0.0
    for i in range(n_orders):
        prefix += gaps[i]  # S_{k_i}
        survival = s0 + u0 * (prefix * inv_total)
        if survival <= 0.5:
            y = -normal_quantile(survival)
        else:
            y = normal_quantile_from_log_cdf(log_cdf_bound + math.log(rest[i]) - log_total)
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            log_weights[i] + y * inv_sigma)
    return running_max, running_sum


@njit(error_model="numpy")
def _order_statistics_one(state, inv_sigma, inv_variance, steps, remove, importance,
                          threshold_parameter, orders, log_lower, log_upper_1, log_upper_2,
                          gaps, rest):
    """Bound on log S(x): upper (4) for remove (R = T - 1 plus x_1), lower (5) for add (R = T).

    Weights: upper (4): k_{i+1} - k_i with k_{r+1} := R + 1 (so that rank R itself is
    covered), for R = T - 1 (log_upper_1) and R = T - 2 (log_upper_2, orders <= T - 2);
    lower (5): k_i - k_{i-1} with k_0 := 0 (log_lower).
    """
    running_max = -np.inf
    running_sum = 0.0
    if not remove:
        log_cdf = threshold_parameter if importance else 0.0
        running_max, running_sum = _accumulate_orders(
            state, orders, log_lower.shape[0], steps, log_lower, log_cdf, inv_sigma, gaps, rest,
            running_max, running_sum)
        return running_max + math.log(running_sum)
    if not importance:
        value = inv_variance + standard_normal(state) * inv_sigma
        running_max, running_sum = _lse_add(running_max, running_sum, value)
        running_max, running_sum = _accumulate_orders(
            state, orders, log_upper_1.shape[0], steps - 1, log_upper_1, 0.0, inv_sigma, gaps,
            rest, running_max, running_sum)
        return running_max + math.log(running_sum)
    # Appendix B.3, remove direction, with the conditioning of the other coordinates on
    # w <= w* made explicit (all coordinates of w = x - e_1 lie below the maximum w*).
    log_u_star = _conditioned_maximum(state, steps, threshold_parameter)
    w_star = normal_quantile_from_log_cdf(log_u_star)
    if uniform_open(state) < 1.0 / steps:
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            inv_variance + w_star * inv_sigma)
        running_max, running_sum = _accumulate_orders(
            state, orders, log_upper_1.shape[0], steps - 1, log_upper_1, log_u_star, inv_sigma,
            gaps, rest, running_max, running_sum)
    else:
        running_max, running_sum = _lse_add(running_max, running_sum, w_star * inv_sigma)
        w_first = truncated_normal_below(state, w_star, log_u_star)
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            inv_variance + w_first * inv_sigma)
        running_max, running_sum = _accumulate_orders(
            state, orders, log_upper_2.shape[0], steps - 2, log_upper_2, log_u_star, inv_sigma,
            gaps, rest, running_max, running_sum)
    return running_max + math.log(running_sum)


def order_log_weights(orders: np.ndarray, steps: int):
    """(log_lower, log_upper_1, log_upper_2): log weights of bounds (5) (R = T) and (4)
    (R = T - 1 and R = T - 2; only the orders <= R take part)."""
    orders = np.asarray(orders, dtype=np.int64)
    log_lower = np.log(np.diff(orders, prepend=0).astype(np.float64))

    def upper(big_r):
        kept = orders[orders <= big_r]
        return np.log(np.diff(kept, append=big_r + 1).astype(np.float64))

    return log_lower, upper(steps - 1), upper(steps - 2)


def _compile(stamp: int):
    """The parallel entry points, as closures over ``stamp`` (see module docstring)."""

    @njit(parallel=True, cache=True, error_model="numpy")
    def coordinate_kernel(sigma, steps, epochs, remove, importance, threshold,
                          threshold_parameter, chunk_states, samples, samples_per_chunk, out):
        """Naive (Alg. 4) or importance (Alg. 5 + 10) loss samples; all T coordinates drawn.

        add: threshold = C / sigma and threshold_parameter = log Phi(C / sigma);
        remove: threshold_parameter = 1 - Phi(C / sigma)^T (threshold unused).
        """
        if stamp < 0:  # never true: keeps the dependency stamp in Numba's cache key
            return
        inv_sigma = 1.0 / sigma
        inv_variance = inv_sigma * inv_sigma
        offset = math.log(steps) + 0.5 * inv_variance
        n_chunks = chunk_states.shape[0]
        for chunk in prange(n_chunks):
            state = chunk_states[chunk].copy()
            start = chunk * samples_per_chunk
            stop = min(start + samples_per_chunk, samples)
            for i in range(start, stop):
                total = 0.0
                for _ in range(epochs):
                    if importance:
                        if remove:
                            log_sum = _importance_remove_one(state, inv_sigma, inv_variance,
                                                             steps, threshold_parameter)
                        else:
                            log_sum = _importance_add_one(state, inv_sigma, steps, threshold,
                                                          threshold_parameter)
                    else:
                        log_sum = _naive_one(state, inv_sigma, inv_variance, steps, remove)
                    total += (log_sum - offset) if remove else (offset - log_sum)
                out[i] = total

    @njit(parallel=True, cache=True, error_model="numpy")
    def order_statistics_kernel(sigma, steps, epochs, remove, importance, threshold_parameter,
                                orders, log_lower, log_upper_1, log_upper_2, chunk_states,
                                samples, samples_per_chunk, out):
        """Pessimistic loss samples from order statistics (Alg. 6), optionally with importance
        sampling (Appendix B.3); the result is never below the exact loss of the same draw.
        threshold_parameter: add -> log Phi(C / sigma); remove -> 1 - Phi(C / sigma)^T."""
        if stamp < 0:  # never true: keeps the dependency stamp in Numba's cache key
            return
        inv_sigma = 1.0 / sigma
        inv_variance = inv_sigma * inv_sigma
        offset = math.log(steps) + 0.5 * inv_variance
        n_chunks = chunk_states.shape[0]
        for chunk in prange(n_chunks):
            state = chunk_states[chunk].copy()
            gaps = np.empty(orders.shape[0])
            rest = np.empty(orders.shape[0])
            start = chunk * samples_per_chunk
            stop = min(start + samples_per_chunk, samples)
            for i in range(start, stop):
                total = 0.0
                for _ in range(epochs):
                    log_sum = _order_statistics_one(
                        state, inv_sigma, inv_variance, steps, remove, importance,
                        threshold_parameter, orders, log_lower, log_upper_1, log_upper_2, gaps,
                        rest)
                    total += (log_sum - offset) if remove else (offset - log_sum)
                out[i] = total

    return coordinate_kernel, order_statistics_kernel


coordinate_kernel, order_statistics_kernel = _compile(DEPENDENCY_STAMP)


@njit(parallel=True, cache=True)
def loss_statistics_kernel(losses, epsilons, totals, squares):
    """For every eps: sum and sum of squares of Z = [1 - exp(eps - L)]_+ over the losses."""
    for j in prange(epsilons.shape[0]):
        eps = epsilons[j]
        total = 0.0
        square = 0.0
        for loss in losses:
            if loss > eps:
                z = -math.expm1(eps - loss)
                total += z
                square += z * z
        totals[j] = total
        squares[j] = square
