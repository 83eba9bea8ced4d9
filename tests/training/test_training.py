"""DP-SGD training: the Numba gradient kernel against plain numpy, AUC, the data loaders and bad input."""

import math

import numpy as np
import pytest
from reference_training import reference_clipped_gradient_sum
from scipy import stats

from dpsampling.training import data, model, sgd


def _naive_clipped_sum(theta, dataset, batch, weights, clip):
    """Per-example dense gradients, clipped, summed: obviously right and slow."""
    size = model.parameter_count(dataset.buckets, dataset.numeric.shape[1])
    total = np.zeros(size)
    for i, w in zip(batch, weights):
        x = np.zeros(size)
        np.add.at(x, dataset.categorical[i], 1.0)
        x[dataset.buckets:dataset.buckets + dataset.numeric.shape[1]] = dataset.numeric[i]
        x[-1] = 1.0
        p = 1 / (1 + np.exp(-theta @ x))
        g = (p - dataset.labels[i]) * x
        norm = np.linalg.norm(g)
        total += w * g * min(1.0, clip / norm if norm > 0 else 1.0)
    return total


@pytest.mark.parametrize("clip", [0.05, 1.0, math.inf])
def test_gradient_kernel_matches_numpy_reference(clip):
    rng = np.random.default_rng(3)
    dataset = data.synthetic_ctr(200, seed=5, buckets=16, categorical_features=5)  # 16 buckets: collisions happen
    theta = rng.normal(0, 0.3, model.parameter_count(16, dataset.numeric.shape[1]))
    batch = rng.integers(0, 200, 40)
    weights = rng.choice([0.0, 1.0], 40, p=[0.2, 0.8])
    out = np.empty_like(theta)
    model.Model().clipped_gradient_sum(theta, dataset, batch, weights, clip, out)
    np.testing.assert_allclose(out, _naive_clipped_sum(theta, dataset, batch, weights, clip), rtol=1e-10, atol=1e-12)
    before = np.empty_like(theta)  # and bit for bit as the kernel over the three arrays computed it
    reference_clipped_gradient_sum(theta, (dataset.labels, dataset.numeric, dataset.categorical), batch, weights, clip,
                                   16, before)
    np.testing.assert_array_equal(out, before)
    assert any(len(set(row)) < len(row) for row in dataset.categorical[batch]), "the test should exercise collisions"


@pytest.mark.parametrize("seed", range(4))
def test_gradient_kernel_equals_the_three_array_reference_bit_for_bit(seed):
    """Reading one row per example (``Dataset.rows``, its norm precomputed) changes no bit."""
    rng = np.random.default_rng(seed)
    dataset = data.synthetic_ctr(3000, seed=seed, buckets=[16, 64, 1024, 2**14][seed],
                                 numeric_features=[4, 0, 7, 4][seed], categorical_features=[6, 3, 9, 6][seed])
    theta = rng.normal(0, [0.1, 1.0, 3.0, 0.5][seed], model.parameter_count(dataset.buckets, dataset.numeric.shape[1]))
    for clip in (0.01, 1.0, math.inf):
        batch = rng.integers(0, len(dataset), 500)
        weights = rng.choice([0.0, 1.0, 0.25], 500)
        out, before = np.empty_like(theta), np.empty_like(theta)
        model.Model().clipped_gradient_sum(theta, dataset, batch, weights, clip, out)
        reference_clipped_gradient_sum(theta, (dataset.labels, dataset.numeric, dataset.categorical), batch, weights,
                                       clip, dataset.buckets, before)
        np.testing.assert_array_equal(out, before)


def test_auc_matches_the_mann_whitney_statistic():
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, 500).astype(float)
    scores = labels + rng.normal(0, 1, 500)
    u = stats.mannwhitneyu(scores[labels == 1], scores[labels == 0]).statistic
    assert model.auc(labels, scores) == pytest.approx(u / ((labels == 1).sum() * (labels == 0).sum()), rel=1e-12)
    assert model.auc([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8]) == 1.0


def test_synthetic_data_is_deterministic_learnable_and_realistic():
    first, second = data.synthetic_ctr(50_000, seed=9), data.synthetic_ctr(50_000, seed=9)
    np.testing.assert_array_equal(first.labels, second.labels)
    np.testing.assert_array_equal(first.categorical, second.categorical)
    assert 0.2 < first.labels.mean() < 0.3  # configured 25% positives
    chunked = data.synthetic_ctr(50_000, seed=9, chunk_rows=7_000)
    assert chunked.labels.shape == (50_000,)
    train_set, test_set = data.split(first, 0.2)
    theta, _ = sgd.train(train_set, sgd.TrainingSettings("shuffle", 256, learning_rate=0.05), seed=0)
    assert sgd.evaluate_auc(theta, test_set) > 0.75  # a learnable signal


def _write_pctr(path, rows):
    path.write_text("".join("\t".join(r) + "\n" for r in rows))
    return path


def test_criteo_pctr_loader_reads_the_documented_layout(tmp_path):
    rows = [["1"] + [str(i) for i in range(13)] + [f"{i:08x}" for i in range(26)],
            ["0"] + [""] * 13 + [""] * 26]
    dataset = data.load_criteo_pctr(_write_pctr(tmp_path / "train.txt", rows), buckets=1024)
    assert dataset.labels.tolist() == [1.0, 0.0]
    assert dataset.numeric.shape == (2, 13) and dataset.categorical.shape == (2, 26)
    assert dataset.numeric[0, 2] == pytest.approx(math.log1p(2))
    assert dataset.categorical.max() < 1024


def test_criteo_search_loader_drops_the_outcome_columns(tmp_path):
    row = ["1", "12.5", "3600"] + [f"v{i}" for i in range(20)]
    path = tmp_path / "search.txt"
    path.write_text("\t".join(row) + "\n")
    dataset = data.load_criteo_search(path, buckets=64)
    assert dataset.labels.tolist() == [1.0]
    assert dataset.categorical.shape == (1, len(data.SEARCH_COLUMNS) - 1 - len(data.SEARCH_DROPPED))


@pytest.mark.parametrize("content, message", [
    ("", "is empty"),
    ("1\t2\t3\n", "fewer than the 40 tab-separated columns expected (missing column C26)"),
    ("\t".join(["2"] + ["0"] * 39) + "\n", "label column label must be 0 or 1; got '2'"),
    ("\t".join(["1"] + ["0"] * 39) + "\n" + "\t".join(["1"] + ["0"] * 45) + "\n", "is malformed"),
])
def test_bad_data_files_are_named_with_the_problem(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(ValueError) as error:
        data.load_criteo_pctr(path)
    assert message in str(error.value) and "bad.txt" in str(error.value)


@pytest.mark.parametrize("settings, message", [
    (dict(generator="poisson", expected_batch=5000), "expected_batch must be at most the training set size 1000; got 5000"),
    (dict(generator="poisson", expected_batch=100, max_batch_size=50), "max_batch_size must be at least the expected batch size 100; got 50"),
    (dict(generator="poisson", expected_batch=100, clip_norm=0.0), "clip_norm must be positive; got 0.0"),
    (dict(generator="poisson", expected_batch=100, clip_norm=-1.0), "clip_norm must be positive; got -1.0"),
    (dict(generator="random", expected_batch=100), "generator must be one of"),
])
def test_bad_training_settings(settings, message):
    with pytest.raises(ValueError) as error:
        sgd.TrainingSettings(**settings).validate(1000)
    assert message in str(error.value)


def test_truncation_is_applied_and_priced():
    train_set = data.synthetic_ctr(4000, seed=2)
    theta, info = sgd.train(train_set, sgd.TrainingSettings("poisson", 400, sigma=0.5, clip_norm=1.0,
                                                            max_batch_size=400), seed=1)
    assert info["truncated_batches"] > 0  # Bin(4000, 0.1) exceeds its mean about half the time
    assert info["truncation_delta_eps10"] > 1e-3  # and the price of that is large
    assert np.all(np.isfinite(theta))
