"""Numba kernels: the privacy loss L(y) of docs/MATRIX.md for each row of a (n, T) array of outputs.

Both use u_t = (C^T y)_t = sum_l c_l y_{t+l} (O(T * bands) per row) instead of the k explicit
shifts of the reference:

- fixed balls-and-bins: <y, C x_s> = sum_{t = s mod k} u_t, so L = logsumexp_s((a_s - n_s/2)/sigma^2)
  - log k, with n_s = ||C x_s||^2 precomputed;
- balls-and-bins (fresh bin per epoch, bands <= k): the participations t_e = e k + s_e interact only
  through ||Cx||^2's cross terms G(t_e, t_{e+1}) = sum_j c_j c_{j+d} (d = t_{e+1} - t_e < bands, rows
  < T), i.e. between consecutive epochs: a forward recursion over epochs (a chain over the k bins),
  alpha_{e+1}(s') = log sum_s exp(alpha_e(s) - G/sigma^2) - log k + (u_{t'} - n_{t'}/2)/sigma^2,
  O(E k bands) per row;
- b-min-sep (bands <= b_sep): the backward recursion of Dong & Ganesh 2026 eq. (2), in logs,
  R_i = (1-p) R_{i+1} + p exp(l_i) R_{i+b_sep}, R_i = 1 (log 0) for i >= T, l_i = (u_i - s_i/2)/sigma^2
  with s_i = ||c cut to the T - i remaining rows||^2; a ring buffer of b_sep entries.
Rows are independent (prange); no random numbers are drawn here, so results do not depend on threads.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _logaddexp(a, b):
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    high = max(a, b)
    return high + math.log1p(math.exp(-abs(a - b)))


@njit(cache=True)
def _cross(column, first, second, steps):
    """<C e_first, C e_second> for first < second (0 when they are bands or more apart)."""
    lag = second - first
    total = 0.0
    for j in range(column.shape[0] - lag):
        if second + j >= steps:
            break
        total += column[j] * column[j + lag]
    return total


@njit(cache=True, parallel=True)
def epoch_bins_losses(outputs, column, cycle_length, sigma, out):
    rows, steps = outputs.shape
    bands = column.shape[0]
    k = cycle_length
    epochs = steps // k
    inverse = 1.0 / (sigma * sigma)
    log_k = math.log(k)
    for r in prange(rows):
        single = np.empty(steps)  # (u_t - n_t / 2) / sigma^2: one participation at t
        for t in range(steps):
            u = 0.0
            square = 0.0
            for lag in range(min(bands, steps - t)):
                u += column[lag] * outputs[r, t + lag]
                square += column[lag] * column[lag]
            single[t] = (u - 0.5 * square) * inverse
        alpha = np.empty(k)
        fresh = np.empty(k)
        for s in range(k):
            alpha[s] = single[s] - log_k
        for e in range(1, epochs):
            base = -math.inf
            for s in range(k):
                base = _logaddexp(base, alpha[s])
            for s2 in range(k):
                second = e * k + s2
                if s2 >= bands - 1:
                    value = base
                else:
                    value = -math.inf
                    for s in range(k):
                        first = (e - 1) * k + s
                        penalty = _cross(column, first, second, steps) * inverse if second - first < bands else 0.0
                        value = _logaddexp(value, alpha[s] - penalty)
                fresh[s2] = value - log_k + single[second]
            for s in range(k):
                alpha[s] = fresh[s]
        total = -math.inf
        for s in range(k):
            total = _logaddexp(total, alpha[s])
        out[r] = total


@njit(cache=True, parallel=True)
def ballsbins_losses(outputs, column, cycle_length, shift_norms, sigma, out):
    rows, steps = outputs.shape
    bands = column.shape[0]
    inverse = 1.0 / (sigma * sigma)
    for r in prange(rows):
        sums = np.zeros(cycle_length)
        for t in range(steps):
            u = 0.0
            for lag in range(min(bands, steps - t)):
                u += column[lag] * outputs[r, t + lag]
            sums[t % cycle_length] += u
        total = -math.inf
        for s in range(cycle_length):
            total = _logaddexp(total, (sums[s] - 0.5 * shift_norms[s]) * inverse)
        out[r] = total - math.log(cycle_length)


@njit(cache=True, parallel=True)
def bminsep_losses(outputs, column, separation, rate, warm_start, sigma, out):
    rows, steps = outputs.shape
    bands = column.shape[0]
    inverse = 1.0 / (sigma * sigma)
    log_rate = math.log(rate)
    log_skip = math.log1p(-rate) if rate < 1.0 else -math.inf
    for r in prange(rows):
        ring = np.zeros(separation)  # log R_{i}, ..., log R_{i + separation - 1}; 0 beyond T
        for i in range(steps - 1, -1, -1):
            u = 0.0
            square = 0.0
            for lag in range(min(bands, steps - i)):
                u += column[lag] * outputs[r, i + lag]
                square += column[lag] * column[lag]
            after_skip = ring[(i + 1) % separation] if i + 1 < steps else 0.0
            after_take = ring[i % separation]  # still holds log R_{i + separation} (0 if beyond T)
            ring[i % separation] = _logaddexp(log_skip + after_skip,
                                              log_rate + (u - 0.5 * square) * inverse + after_take)
        if warm_start:
            total = ring[0]
            for j in range(1, separation):
                value = ring[j] if j < steps else 0.0
                total = _logaddexp(total, log_rate + value)
            out[r] = total - math.log1p((separation - 1) * rate)
        else:
            out[r] = ring[0]
