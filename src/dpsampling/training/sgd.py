"""DP-SGD over a batch plan (chua24 Alg. 1 with the clipped-gradient query; chua25 Sec. 5).

Step t: g_t = (sum_{i in S_t} w_i clip_C(grad_i) + N(0, sigma^2 C^2 I)) / b, with b the
*expected* batch size (not the realised one), then an SGD or Adam step. Batches of Poisson and
balls-and-bins plans may be truncated to B (uniform subsample) and padded with zero-weight
slots (chua25 Sec. 5); the privacy price of truncation is delta' (accountants.closed_form.truncation).
sigma = 0 with clip_norm = inf is plain (non-private) SGD.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpsampling.accountants.closed_form.truncation import truncation_delta
from dpsampling.batches.generators import pad_or_truncate
from dpsampling.batches.loader import make_batches
from dpsampling.samplers import GENERATORS, generator_entry
from dpsampling.training.model import Model, auc
from dpsampling.validation import check_choice, check_int_at_least, check_nonnegative, check_positive

OPTIMIZERS = ("sgd", "adam")
TRUNCATED_GENERATORS = tuple(g for g in GENERATORS if generator_entry(g).variable_size)
"""The generators whose batch sizes vary (the registry's ``variable_size``): truncated to
``max_batch_size`` when it is set."""


@dataclass(frozen=True)
class TrainingSettings:
    generator: str
    expected_batch: int
    sigma: float = 0.0
    clip_norm: float = math.inf
    learning_rate: float = 0.01
    optimizer: str = "adam"
    max_batch_size: int | None = None  # truncate/pad P and B batches to this size
    epochs: int = 1
    model: Model = Model()

    def validate(self, rows: int) -> TrainingSettings:
        check_choice("generator", self.generator, GENERATORS)
        check_int_at_least("expected_batch", self.expected_batch, 1)
        if self.expected_batch > rows:
            raise ValueError(f"expected_batch must be at most the training set size {rows}; got {self.expected_batch}")
        check_nonnegative("sigma", self.sigma)
        if not self.clip_norm > 0:
            raise ValueError(f"clip_norm must be positive; got {self.clip_norm!r}")
        check_positive("learning_rate", self.learning_rate)
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_int_at_least("epochs", self.epochs, 1)
        self.model.validate()
        if self.max_batch_size is not None and self.max_batch_size < self.expected_batch:
            raise ValueError(f"max_batch_size must be at least the expected batch size {self.expected_batch}; "
                             f"got {self.max_batch_size}")
        return self


def steps_per_epoch(rows: int, expected_batch: int) -> int:
    return max(1, round(rows / expected_batch))


def train(train_set, settings: TrainingSettings, seed: int, progress=None) -> tuple[np.ndarray, dict]:
    """Run DP-SGD; return (theta, info) with info = steps, truncated batches, delta' at eps = 10."""
    settings.validate(len(train_set))
    rng = np.random.default_rng(seed)
    steps = steps_per_epoch(len(train_set), settings.expected_batch)
    model = settings.model
    theta = model.initial_parameters(train_set, rng)
    size = theta.size
    grad = np.zeros(size)
    first, second = np.zeros(size), np.zeros(size)
    noise_scale = settings.sigma * (settings.clip_norm if math.isfinite(settings.clip_norm) else 0.0)
    truncate = settings.max_batch_size is not None and settings.generator in TRUNCATED_GENERATORS
    truncated, step = 0, 0
    for epoch in range(settings.epochs):
        plan = make_batches(settings.generator, len(train_set), steps, seed=rng,
                            batch_size=settings.expected_batch)
        for t, batch in enumerate(plan):
            if truncate:
                truncated += len(batch) > settings.max_batch_size
                batch, weights = pad_or_truncate(batch, settings.max_batch_size, seed=rng)
            else:
                weights = np.ones(len(batch))
            model.clipped_gradient_sum(theta, train_set, batch, weights, settings.clip_norm, grad)
            if noise_scale > 0:
                grad += rng.normal(0.0, noise_scale, size)
            grad /= settings.expected_batch
            step += 1
            if settings.optimizer == "sgd":
                theta -= settings.learning_rate * grad
            else:  # Adam (Kingma & Ba), default betas
                first = 0.9 * first + 0.1 * grad
                second = 0.999 * second + 0.001 * grad * grad
                theta -= settings.learning_rate * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
            if progress and (t + 1) % max(1, steps // 4) == 0:
                progress(f"epoch {epoch + 1}, step {t + 1}/{steps}")
    info = {"steps": steps * settings.epochs, "truncated_batches": truncated}
    if truncate:
        info["truncation_delta_eps10"] = truncation_delta(len(train_set), settings.expected_batch,
                                                          settings.max_batch_size, steps * settings.epochs, 10.0)
    return theta, info


def evaluate_auc(theta: np.ndarray, test_set, model: Model | None = None) -> float:
    """Test AUC of ``theta`` under ``model`` (default: logistic regression)."""
    model = Model() if model is None else model
    return auc(test_set.labels, model.predict_logits(theta, test_set))
