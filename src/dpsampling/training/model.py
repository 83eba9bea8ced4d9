"""Logistic regression on hashed features: per-example clipped gradients (Numba), AUC, and the model choice.

Parameters theta = [w (one weight per hash bucket) | v (numeric weights) | bias]. For example i
with hashed categorical ids c_i1..c_ik and numeric features u_i,
    z_i = bias + sum_j w[c_ij] + u_i . v,   p_i = sigmoid(z_i),
the binary cross-entropy gradient is g_i = (p_i - y_i) x_i with x_i = (counts of each bucket
among c_i, u_i, 1), so ||g_i|| = |p_i - y_i| * sqrt(sum_b count_b^2 + ||u_i||^2 + 1).
DP-SGD clips it to norm C: g_i * min(1, C / ||g_i||) (chua24 Sec. 1, [g]_C).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
from scipy import stats

from dpsampling.training import mlp
from dpsampling.validation import check_choice, check_int_at_least


def parameter_count(buckets: int, numeric_features: int) -> int:
    return buckets + numeric_features + 1


@numba.njit(cache=True)
def _logit(theta, numeric, categorical, i, buckets):
    d = numeric.shape[1]
    z = theta[buckets + d]
    for j in range(categorical.shape[1]):
        z += theta[categorical[i, j]]
    for j in range(d):
        z += theta[buckets + j] * numeric[i, j]
    return z


@numba.njit(cache=True)
def _clipped_gradient_sum(theta, rows, numeric_features, batch, weights, clip_norm, buckets, out):
    """out = sum_i weights_i * clip(g_i) over the batch (out is zeroed first), ``rows`` the
    dataset's ``Dataset.rows`` ([y | u | ids | ||x||^2] per example, ``numeric_features`` = d)."""
    out[:] = 0.0
    d = numeric_features
    k = rows.shape[1] - d - 2
    for s in range(batch.shape[0]):
        weight = weights[s]
        if weight == 0.0:
            continue
        i = batch[s]
        z = theta[buckets + d]
        for j in range(k):
            z += theta[int(rows[i, 1 + d + j])]
        for j in range(d):
            z += theta[buckets + j] * rows[i, 1 + j]
        p = 1.0 / (1.0 + math.exp(-z))
        residual = p - rows[i, 0]
        norm = abs(residual) * math.sqrt(rows[i, 1 + d + k])
        scale = weight * residual
        if norm > clip_norm:
            scale *= clip_norm / norm
        for j in range(k):
            out[int(rows[i, 1 + d + j])] += scale
        for j in range(d):
            out[buckets + j] += scale * rows[i, 1 + j]
        out[buckets + d] += scale


@numba.njit(cache=True, parallel=True)
def _predict(theta, numeric, categorical, buckets):
    n = numeric.shape[0]
    out = np.empty(n)
    for i in numba.prange(n):
        out[i] = _logit(theta, numeric, categorical, i, buckets)
    return out


MODELS = ("logistic", "mlp")


@dataclass(frozen=True)
class Model:
    """Which model DP-SGD trains: ``logistic`` (above) or ``mlp`` (``training.mlp``, ``hidden_units`` wide)."""

    kind: str = "logistic"
    hidden_units: int = 16

    def validate(self) -> Model:
        check_choice("model", self.kind, MODELS)
        check_int_at_least("hidden_units", self.hidden_units, 1)
        return self

    @property
    def label(self) -> str:
        return "logistic regression" if self.kind == "logistic" else f"MLP ({self.hidden_units} hidden units)"

    def parameter_count(self, buckets: int, numeric_features: int) -> int:
        if self.kind == "logistic":
            return parameter_count(buckets, numeric_features)
        return mlp.parameter_count(buckets, numeric_features, self.hidden_units)

    def initial_parameters(self, dataset, rng: np.random.Generator) -> np.ndarray:
        """Logistic: zeros (the loss is convex). MLP: random (``mlp.initial_parameters``)."""
        d = dataset.numeric.shape[1]
        if self.kind == "logistic":
            return np.zeros(self.parameter_count(dataset.buckets, d))
        return mlp.initial_parameters(dataset.buckets, d, dataset.categorical.shape[1], self.hidden_units, rng)

    def clipped_gradient_sum(self, theta, dataset, batch, weights, clip_norm: float, out) -> None:
        """out = sum over the batch of weight_i clip_C(grad_i)."""
        if self.kind == "logistic":
            _clipped_gradient_sum(theta, dataset.rows, dataset.numeric.shape[1], batch, weights, clip_norm,
                                  dataset.buckets, out)
        else:
            data = (dataset.labels, dataset.numeric, dataset.categorical)
            mlp.mlp_clipped_gradient_sum(theta, data, batch, weights, clip_norm, dataset.buckets, self.hidden_units, out)

    def predict_logits(self, theta, dataset) -> np.ndarray:
        if self.kind == "logistic":
            return _predict(theta, dataset.numeric, dataset.categorical, dataset.buckets)
        return mlp.mlp_predict(theta, dataset.numeric, dataset.categorical, dataset.buckets, self.hidden_units)


def predict_logits(theta: np.ndarray, dataset, model: Model = Model()) -> np.ndarray:
    return model.predict_logits(theta, dataset)


def auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney statistic, ties counted one half)."""
    labels = np.asarray(labels)
    positives = labels == 1
    n_pos, n_neg = int(positives.sum()), int((~positives).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"AUC needs both classes in the evaluation labels; got {n_pos} positives and {n_neg} negatives")
    ranks = stats.rankdata(scores)
    return float((ranks[positives].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
