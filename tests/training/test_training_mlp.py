"""The small MLP: its gradient formula against finite differences, the Numba kernel against plain
numpy, prediction, and that DP-SGD with it learns. All deterministic (fixed seeds): no false failures."""

import math

import numpy as np
import pytest

from dpsampling.training import data, mlp, sgd
from dpsampling.training.model import Model

HIDDEN = 5


def _unpack(theta, buckets, d, h):
    embeddings = theta[:buckets * h].reshape(buckets, h)
    numeric_weights = theta[buckets * h:(buckets + d) * h].reshape(d, h)
    rest = theta[(buckets + d) * h:]
    return embeddings, numeric_weights, rest[:h], rest[h:2 * h], rest[2 * h]


def _loss(theta, dataset, i, h):
    """Binary cross-entropy of example i, straight from the definition."""
    e, w, b1, w2, b2 = _unpack(theta, dataset.buckets, dataset.numeric.shape[1], h)
    pre = b1 + e[dataset.categorical[i]].sum(axis=0) + dataset.numeric[i] @ w
    z = b2 + w2 @ np.maximum(pre, 0.0)
    y = dataset.labels[i]
    return -(y * math.log(1 / (1 + math.exp(-z))) + (1 - y) * math.log(1 - 1 / (1 + math.exp(-z))))


def _gradient(theta, dataset, i, h):
    """The per-example gradient of the module docstring, dense, in numpy."""
    buckets, d = dataset.buckets, dataset.numeric.shape[1]
    e, w, b1, w2, b2 = _unpack(theta, buckets, d, h)
    pre = b1 + e[dataset.categorical[i]].sum(axis=0) + dataset.numeric[i] @ w
    active = np.maximum(pre, 0.0)
    r = 1 / (1 + np.exp(-(b2 + w2 @ active))) - dataset.labels[i]
    error = r * w2 * (pre > 0)
    de = np.zeros((buckets, h))
    np.add.at(de, dataset.categorical[i], error)
    return np.concatenate([de.ravel(), np.outer(dataset.numeric[i], error).ravel(), error, r * active, [r]])


def _dataset():
    return data.synthetic_ctr(120, seed=5, buckets=16, categorical_features=5)  # 16 buckets: collisions happen


def test_gradient_formula_matches_central_differences():
    dataset = _dataset()
    theta = mlp.initial_parameters(16, dataset.numeric.shape[1], 5, HIDDEN, np.random.default_rng(1))
    step = 1e-6
    for i in range(6):
        numeric = np.empty_like(theta)
        for p in range(theta.size):
            shift = np.zeros_like(theta)
            shift[p] = step
            numeric[p] = (_loss(theta + shift, dataset, i, HIDDEN) - _loss(theta - shift, dataset, i, HIDDEN)) / (2 * step)
        np.testing.assert_allclose(_gradient(theta, dataset, i, HIDDEN), numeric, atol=1e-7)


@pytest.mark.parametrize("clip", [0.05, 1.0, math.inf])
def test_kernel_matches_clipped_numpy_gradients(clip):
    dataset = _dataset()
    rng = np.random.default_rng(3)
    theta = mlp.initial_parameters(16, dataset.numeric.shape[1], 5, HIDDEN, rng)
    batch = rng.integers(0, len(dataset), 40)
    weights = rng.choice([0.0, 1.0, 0.5], 40, p=[0.2, 0.6, 0.2])
    expected = np.zeros_like(theta)
    for i, weight in zip(batch, weights):
        g = _gradient(theta, dataset, i, HIDDEN)
        expected += weight * g * min(1.0, clip / np.linalg.norm(g))
    out = np.empty_like(theta)
    Model("mlp", HIDDEN).clipped_gradient_sum(theta, dataset, batch, weights, clip, out)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-13)
    again = np.empty_like(theta)
    loss = mlp.mlp_clipped_gradient_sum(theta, (dataset.labels, dataset.numeric, dataset.categorical), batch, weights,
                                        clip, 16, HIDDEN, again)
    np.testing.assert_array_equal(again, out)
    mean_loss = sum(w * _loss(theta, dataset, i, HIDDEN) for i, w in zip(batch, weights)) / weights.sum()
    assert loss == pytest.approx(mean_loss, rel=1e-10)
    assert any(len(set(row)) < len(row) for row in dataset.categorical[batch]), "the test should exercise collisions"
    if math.isfinite(clip):  # some examples were clipped, else the clip branch went untested
        assert any(np.linalg.norm(_gradient(theta, dataset, i, HIDDEN)) > clip for i in batch)


def test_prediction_matches_the_forward_pass():
    dataset = _dataset()
    theta = mlp.initial_parameters(16, dataset.numeric.shape[1], 5, HIDDEN, np.random.default_rng(2))
    e, w, b1, w2, b2 = _unpack(theta, 16, dataset.numeric.shape[1], HIDDEN)
    pre = b1 + e[dataset.categorical].sum(axis=1) + dataset.numeric @ w
    np.testing.assert_allclose(Model("mlp", HIDDEN).predict_logits(theta, dataset),
                               b2 + np.maximum(pre, 0.0) @ w2, rtol=1e-12, atol=1e-12)


def test_sgd_and_dp_sgd_with_the_mlp_learn_the_synthetic_signal():
    train_set, test_set = data.split(data.synthetic_ctr(40_000, seed=9), 0.2)
    model = Model("mlp", 8)
    start = sgd.evaluate_auc(model.initial_parameters(train_set, np.random.default_rng(0)), test_set, model)
    aucs = {}
    for sigma, clip in [(0.0, math.inf), (0.5, 1.0)]:
        settings = sgd.TrainingSettings("shuffle", 256, sigma=sigma, clip_norm=clip, learning_rate=0.03, model=model)
        theta, _ = sgd.train(train_set, settings, seed=0)
        aucs[sigma] = sgd.evaluate_auc(theta, test_set, model)
    # a random network ranks near chance; one epoch reaches what logistic regression does (0.86, 0.77)
    assert start < 0.6 and aucs[0.0] > 0.8 and aucs[0.5] > 0.7, (start, aucs)
    assert aucs[0.0] > aucs[0.5]  # noise costs utility


@pytest.mark.parametrize("model, message", [
    (Model("forest"), "model must be one of logistic, mlp; got 'forest'"),
    (Model("mlp", 0), "hidden_units must be"),
])
def test_bad_model_settings(model, message):
    with pytest.raises(ValueError) as error:
        sgd.TrainingSettings("shuffle", 10, model=model).validate(100)
    assert message in str(error.value)


def test_the_fig1_experiment_trains_the_configured_model():
    from pathlib import Path

    import yaml

    from dpsampling.papers.chua25 import utility as chua25_utility

    spec = yaml.safe_load((Path(__file__).resolve().parents[2] / ".test/config/config.yaml").read_text())["chua25"]["fig1"]
    runs = {kind: chua25_utility.run_panel("nonprivate", dict(spec, model=kind, hidden_units=8), 0)
            for kind in ("logistic", "mlp")}
    assert (runs["mlp"]["test_auc"] > 0.7).all()
    # same seeds, same batches: only the model differs, so every AUC does
    assert (runs["mlp"]["test_auc"] != runs["logistic"]["test_auc"]).all()
    assert chua25_utility.model_of({}).kind == "logistic"  # the default when a spec does not say
