"""Hashed categorical features: kernels shared by the logistic model and the MLP."""

import numba
import numpy as np


@numba.njit(cache=True)
def bucket_square_norm(categorical, i):
    """sum_b n_ib^2, n_ib = how often bucket b occurs among example i's hashed ids (collisions add up)."""
    k = categorical.shape[1]
    squared = 0.0
    for j in range(k):
        first = True
        for m in range(j):
            if categorical[i, m] == categorical[i, j]:
                first = False
                break
        if first:
            count = 0
            for m in range(k):
                if categorical[i, m] == categorical[i, j]:
                    count += 1
            squared += count * count
    return squared


@numba.njit(cache=True)
def example_rows(labels, numeric, categorical):
    """One contiguous row per example, what a logistic gradient step reads (one memory stream
    instead of three): [y_i | u_i (d) | hashed ids c_i (k, exact in float64) | ||x_i||^2], with
    ||x_i||^2 = (1 + sum_b n_ib^2) + u_i1^2 + ... + u_id^2 summed in that order."""
    n, d = numeric.shape
    k = categorical.shape[1]
    rows = np.empty((n, d + k + 2))
    for i in range(n):
        rows[i, 0] = labels[i]
        squared = 1.0 + bucket_square_norm(categorical, i)
        for j in range(d):
            rows[i, 1 + j] = numeric[i, j]
            squared += numeric[i, j] * numeric[i, j]
        for j in range(k):
            rows[i, 1 + d + j] = categorical[i, j]
        rows[i, 1 + d + k] = squared
    return rows
