"""Hashed categorical features: kernels shared by the logistic model and the MLP."""

import numba


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
