"""Numba kernels: one privacy-loss sample per row, O(T) (or O(r)) work and O(1) memory each.

Coordinates are standardised: w_t = x_t / sigma for the noise part, so x_t / sigma^2 =
w_t / sigma (+ 1/sigma^2 on the coordinate that carries the differing example). The sum
S(x) = sum_t exp(x_t / sigma^2) is accumulated as a running log-sum-exp (one pass, no
array of coordinates is ever held), and

    L_{P||Q}(x) = log S(x) - log T - 1/(2 sigma^2)          (eq. (2), remove)
    L_{Q||P}(x) = log T + 1/(2 sigma^2) - log S(x)          (eq. (3), add).

Work is cut into fixed-size chunks; chunk c fills out[c*chunk:(c+1)*chunk] from its own
xoshiro256** state ``chunk_states[c]``, so the output does not depend on the thread count
(``prange`` only decides which thread runs which chunk). The sampling kernels call SciPy's
C functions through ctypes, which Numba cannot cache: each process compiles them once
(about 2 s each). For k epochs each row is the sum of
k independent losses (Alg. 11). Private: the public wrappers in ``sampling`` validate inputs.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ._random import (
    log_beta_variate,
    normal_pair,
    normal_quantile,
    normal_quantile_from_log_cdf,
    uniform_open,
)


@njit(inline="always")
def _lse_add(running_max, running_sum, value):
    """Add exp(value) to the log-sum-exp accumulator (running_max, running_sum)."""
    if value > running_max:
        running_sum = running_sum * math.exp(running_max - value) + 1.0
        running_max = value
    else:
        running_sum += math.exp(value - running_max)
    return running_max, running_sum


@njit
def _truncated_below_star(state, u_star, survival_star):
    """Standard normal w conditioned on Phi(w) <= u_star (i.e. w <= the maximum w*)."""
    v = uniform_open(state)
    p = v * u_star
    if p < 0.5:
        return normal_quantile(p)
    # 1 - p = (1 - v) + v * survival_star, both terms exact enough (v >= 0.5 here)
    return -normal_quantile((1.0 - v) + v * survival_star)


@njit
def _conditioned_maximum(state, steps, mass):
    """log Phi(w*) for the maximum w* of T standard normals conditioned on w* >= C.

    ``mass`` = 1 - Phi(C)^T. Phi(w*)^T is uniform on [Phi(C)^T, 1], i.e.
    Phi(w*)^T = 1 - V * mass with V uniform (Alg. 10, first line).
    """
    return math.log1p(-uniform_open(state) * mass) / steps


@njit
def _naive_one(state, inv_sigma, inv_variance, steps, remove):
    """log S(x) for x ~ P_1 (remove) or x ~ Q_B (add)."""
    running_max = -np.inf
    running_sum = 0.0
    t = 0
    while t < steps:
        g1, g2 = normal_pair(state)
        value = g1 * inv_sigma
        if remove and t == 0:
            value += inv_variance
        running_max, running_sum = _lse_add(running_max, running_sum, value)
        if t + 1 < steps:
            running_max, running_sum = _lse_add(running_max, running_sum, g2 * inv_sigma)
        t += 2
    return running_max + math.log(running_sum)


@njit
def _importance_add_one(state, inv_sigma, steps, log_cdf_threshold):
    """log S(x) for x ~ Q_B conditioned on max_t x_t <= C (coordinates i.i.d. truncated)."""
    running_max = -np.inf
    running_sum = 0.0
    for _ in range(steps):
        w = normal_quantile_from_log_cdf(log_cdf_threshold + math.log(uniform_open(state)))
        running_max, running_sum = _lse_add(running_max, running_sum, w * inv_sigma)
    return running_max + math.log(running_sum)


@njit
def _importance_remove_one(state, inv_sigma, inv_variance, steps, mass):
    """log S(x) for x ~ P_1 conditioned on max_t (x - e_1)_t >= C (Alg. 10 on x - e_1)."""
    log_u_star = _conditioned_maximum(state, steps, mass)
    w_star = normal_quantile_from_log_cdf(log_u_star)
    u_star = math.exp(log_u_star)
    survival_star = -math.expm1(log_u_star)
    star = 0
    if steps > 1 and uniform_open(state) >= 1.0 / steps:
        star = 1  # by symmetry any t* != 1 may be taken to be the second coordinate
    running_max = -np.inf
    running_sum = 0.0
    for t in range(steps):
        if t == star:
            w = w_star
        else:
            w = _truncated_below_star(state, u_star, survival_star)
        value = w * inv_sigma
        if t == 0:
            value += inv_variance
        running_max, running_sum = _lse_add(running_max, running_sum, value)
    return running_max + math.log(running_sum)


@njit(parallel=True)
def coordinate_kernel(sigma, steps, epochs, remove, importance, threshold_parameter,
                      chunk_states, samples, samples_per_chunk, out):
    """Naive (Alg. 4) or importance (Alg. 5 + 10) loss samples; all T coordinates drawn.

    threshold_parameter: add -> log Phi(C / sigma); remove -> 1 - Phi(C / sigma)^T.
    """
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
                        log_sum = _importance_remove_one(state, inv_sigma, inv_variance, steps,
                                                         threshold_parameter)
                    else:
                        log_sum = _importance_add_one(state, inv_sigma, steps, threshold_parameter)
                else:
                    log_sum = _naive_one(state, inv_sigma, inv_variance, steps, remove)
                total += (log_sum - offset) if remove else (offset - log_sum)
            out[i] = total


@njit
def _count_orders_at_most(orders, bound):
    count = 0
    for k in orders:
        if k <= bound:
            count += 1
    return count


@njit
def _accumulate_orders(state, orders, n_orders, draws, upper, log_cdf, inv_sigma,
                       running_max, running_sum):
    """Add the order-statistics bound (4) (upper) or (5) (lower) on sum_t exp(x_t/sigma^2).

    The x_t are ``draws`` i.i.d. N(0, sigma^2) values conditioned on Phi(x_t/sigma) <=
    exp(log_cdf) (log_cdf = 0: no conditioning). Alg. 6: z_i ~ Beta(R - k_i + 1,
    k_i - k_{i-1}), Phi(y(k_i)) = exp(log_cdf) * prod_{j <= i} z_j. Weights:
    upper (4): k_{i+1} - k_i with k_{r+1} := R + 1 (so that rank R itself is covered);
    lower (5): k_i - k_{i-1} with k_0 := 0.
    """
    previous = 0
    for i in range(n_orders):
        k = orders[i]
        log_cdf += log_beta_variate(state, float(draws - k + 1), float(k - previous))
        w = normal_quantile_from_log_cdf(log_cdf)
        if upper:
            following = orders[i + 1] if i + 1 < n_orders else draws + 1
            weight = following - k
        else:
            weight = k - previous
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            math.log(weight) + w * inv_sigma)
        previous = k
    return running_max, running_sum


@njit
def _order_statistics_one(state, inv_sigma, inv_variance, steps, remove, importance,
                          threshold_parameter, orders, n_minus_1, n_minus_2):
    """Bound on log S(x): upper for remove (R = T - 1 plus x_1), lower for add (R = T)."""
    running_max = -np.inf
    running_sum = 0.0
    if not remove:
        log_cdf = threshold_parameter if importance else 0.0
        running_max, running_sum = _accumulate_orders(state, orders, orders.shape[0], steps, False,
                                                      log_cdf, inv_sigma, running_max, running_sum)
        return running_max + math.log(running_sum)
    if not importance:
        g, _ = normal_pair(state)
        running_max, running_sum = _lse_add(running_max, running_sum, inv_variance + g * inv_sigma)
        running_max, running_sum = _accumulate_orders(state, orders, n_minus_1, steps - 1, True,
                                                      0.0, inv_sigma, running_max, running_sum)
        return running_max + math.log(running_sum)
    # Appendix B.3, remove direction, with the conditioning of the other coordinates on
    # w <= w* made explicit (all coordinates of w = x - e_1 lie below the maximum w*).
    log_u_star = _conditioned_maximum(state, steps, threshold_parameter)
    w_star = normal_quantile_from_log_cdf(log_u_star)
    if uniform_open(state) < 1.0 / steps:
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            inv_variance + w_star * inv_sigma)
        running_max, running_sum = _accumulate_orders(state, orders, n_minus_1, steps - 1, True,
                                                      log_u_star, inv_sigma, running_max, running_sum)
    else:
        running_max, running_sum = _lse_add(running_max, running_sum, w_star * inv_sigma)
        w_first = _truncated_below_star(state, math.exp(log_u_star), -math.expm1(log_u_star))
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            inv_variance + w_first * inv_sigma)
        running_max, running_sum = _accumulate_orders(state, orders, n_minus_2, steps - 2, True,
                                                      log_u_star, inv_sigma, running_max, running_sum)
    return running_max + math.log(running_sum)


@njit(parallel=True)
def order_statistics_kernel(sigma, steps, epochs, remove, importance, threshold_parameter,
                            orders, chunk_states, samples, samples_per_chunk, out):
    """Pessimistic loss samples from order statistics (Alg. 6), optionally with importance
    sampling (Appendix B.3); the result is never below the exact loss of the same draw."""
    inv_sigma = 1.0 / sigma
    inv_variance = inv_sigma * inv_sigma
    offset = math.log(steps) + 0.5 * inv_variance
    n_minus_1 = _count_orders_at_most(orders, steps - 1)
    n_minus_2 = _count_orders_at_most(orders, steps - 2)
    n_chunks = chunk_states.shape[0]
    for chunk in prange(n_chunks):
        state = chunk_states[chunk].copy()
        start = chunk * samples_per_chunk
        stop = min(start + samples_per_chunk, samples)
        for i in range(start, stop):
            total = 0.0
            for _ in range(epochs):
                log_sum = _order_statistics_one(state, inv_sigma, inv_variance, steps, remove,
                                                importance, threshold_parameter, orders,
                                                n_minus_1, n_minus_2)
                total += (log_sum - offset) if remove else (offset - log_sum)
            out[i] = total


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

