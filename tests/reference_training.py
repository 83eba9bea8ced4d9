"""The logistic model's clipped-gradient kernel as it was before it read ``Dataset.rows`` (issue 41),
kept as the reference the kernel must equal bit for bit: it reads the three arrays of a Dataset and
computes each example's squared feature norm on the fly."""

import math

import numba

from dpsampling.training.features import bucket_square_norm


@numba.njit
def reference_clipped_gradient_sum(theta, data, batch, weights, clip_norm, buckets, out):
    """out = sum_i weights_i * clip(g_i) over the batch, ``data`` = (labels, numeric, categorical)."""
    labels, numeric, categorical = data
    out[:] = 0.0
    d = numeric.shape[1]
    k = categorical.shape[1]
    for s in range(batch.shape[0]):
        weight = weights[s]
        if weight == 0.0:
            continue
        i = batch[s]
        z = theta[buckets + d]
        for j in range(k):
            z += theta[categorical[i, j]]
        for j in range(d):
            z += theta[buckets + j] * numeric[i, j]
        p = 1.0 / (1.0 + math.exp(-z))
        residual = p - labels[i]
        squared = 1.0 + bucket_square_norm(categorical, i)
        for j in range(d):
            squared += numeric[i, j] * numeric[i, j]
        norm = abs(residual) * math.sqrt(squared)
        scale = weight * residual
        if norm > clip_norm:
            scale *= clip_norm / norm
        for j in range(k):
            out[categorical[i, j]] += scale
        for j in range(d):
            out[buckets + j] += scale * numeric[i, j]
        out[buckets + d] += scale
