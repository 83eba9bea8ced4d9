"""A small MLP on hashed features: per-example clipped gradients (Numba).

The shape of chua25 Sec. 5's network, scaled down: each hash bucket b has an embedding
E_b in R^h, the numeric features u_i enter through W in R^{d x h}, one hidden ReLU layer of
h units, and a linear output. For example i with bucket ids c_i1..c_ik,

    a_i = relu(pre_i),  pre_i = b_1 + sum_j E_{c_ij} + W^T u_i,   z_i = b_2 + w_2 . a_i,

p_i = sigmoid(z_i), loss = binary cross-entropy. With r_i = p_i - y_i and the hidden error
e_i = r_i w_2 * 1[pre_i > 0], the per-example gradient is

    dE_b = n_ib e_i (n_ib = multiplicity of b among c_i),  dW = u_i e_i^T,  db_1 = e_i,
    dw_2 = r_i a_i,  db_2 = r_i,

so ||g_i||^2 = r_i^2 (||a_i||^2 + 1) + ||e_i||^2 (sum_b n_ib^2 + ||u_i||^2 + 1), computed
without forming g_i. DP-SGD clips it to norm C: g_i min(1, C / ||g_i||).

Parameters are one flat vector theta = [E (buckets x h, row-major) | W (d x h) | b_1 | w_2 | b_2].
"""

from __future__ import annotations

import math

import numba
import numpy as np

from dpsampling.training.features import bucket_square_norm


def parameter_count(buckets: int, numeric_features: int, hidden: int) -> int:
    return (buckets + numeric_features + 2) * hidden + 1


def initial_parameters(buckets: int, numeric_features: int, categorical_features: int, hidden: int,
                       rng: np.random.Generator) -> np.ndarray:
    """E and W ~ N(0, 1 / (k + d)) (pre-activations of order 1), w_2 ~ N(0, 1 / h), biases 0."""
    theta = np.zeros(parameter_count(buckets, numeric_features, hidden))
    inputs = (buckets + numeric_features) * hidden
    theta[:inputs] = rng.normal(0.0, 1.0 / math.sqrt(categorical_features + numeric_features), inputs)
    output = inputs + hidden
    theta[output:output + hidden] = rng.normal(0.0, 1.0 / math.sqrt(hidden), hidden)
    return theta


@numba.njit(cache=True)
def _forward(theta, numeric, categorical, i, buckets, hidden, pre):
    """Fill pre (the hidden pre-activations of example i) and return the logit z_i."""
    d = numeric.shape[1]
    numeric_start = buckets * hidden
    bias_start = numeric_start + d * hidden
    output_start = bias_start + hidden
    for u in range(hidden):
        pre[u] = theta[bias_start + u]
    for j in range(categorical.shape[1]):
        row = categorical[i, j] * hidden
        for u in range(hidden):
            pre[u] += theta[row + u]
    for j in range(d):
        x = numeric[i, j]
        row = numeric_start + j * hidden
        for u in range(hidden):
            pre[u] += theta[row + u] * x
    z = theta[output_start + hidden]
    for u in range(hidden):
        if pre[u] > 0.0:
            z += theta[output_start + u] * pre[u]
    return z


@numba.njit(cache=True)
def mlp_clipped_gradient_sum(theta, data, batch, weights, clip_norm, buckets, hidden, out):
    """out = sum_i weights_i * clip(g_i) over the batch (out is zeroed first); returns the mean loss.
    ``data`` = (labels, numeric, categorical)."""
    labels, numeric, categorical = data
    out[:] = 0.0
    d = numeric.shape[1]
    numeric_start = buckets * hidden
    bias_start = numeric_start + d * hidden
    output_start = bias_start + hidden
    pre = np.empty(hidden)
    error = np.empty(hidden)
    loss = 0.0
    total = 0.0
    for s in range(batch.shape[0]):
        weight = weights[s]
        if weight == 0.0:
            continue
        i = batch[s]
        z = _forward(theta, numeric, categorical, i, buckets, hidden, pre)
        residual = 1.0 / (1.0 + math.exp(-z)) - labels[i]
        hidden_square = 1.0
        error_square = 0.0
        for u in range(hidden):
            active = pre[u] > 0.0
            hidden_square += pre[u] * pre[u] if active else 0.0
            error[u] = residual * theta[output_start + u] if active else 0.0
            error_square += error[u] * error[u]
        input_square = bucket_square_norm(categorical, i) + 1.0
        for j in range(d):
            input_square += numeric[i, j] * numeric[i, j]
        norm = math.sqrt(residual * residual * hidden_square + error_square * input_square)
        scale = weight
        if norm > clip_norm:
            scale *= clip_norm / norm
        for j in range(categorical.shape[1]):
            row = categorical[i, j] * hidden
            for u in range(hidden):
                out[row + u] += scale * error[u]
        for j in range(d):
            x = scale * numeric[i, j]
            row = numeric_start + j * hidden
            for u in range(hidden):
                out[row + u] += x * error[u]
        for u in range(hidden):
            out[bias_start + u] += scale * error[u]
            if pre[u] > 0.0:
                out[output_start + u] += scale * residual * pre[u]
        out[output_start + hidden] += scale * residual
        loss += weight * (max(z, 0.0) - z * labels[i] + math.log1p(math.exp(-abs(z))))
        total += weight
    return loss / total if total > 0 else 0.0


@numba.njit(cache=True, parallel=True)
def mlp_predict(theta, numeric, categorical, buckets, hidden):
    n = numeric.shape[0]
    out = np.empty(n)
    for i in numba.prange(n):
        pre = np.empty(hidden)
        out[i] = _forward(theta, numeric, categorical, i, buckets, hidden, pre)
    return out
