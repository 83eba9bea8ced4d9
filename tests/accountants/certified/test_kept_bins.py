"""Balls-in-bins with bins kept across epochs (``certified.kept_bins``) against a seeded Monte Carlo
simulation of the run itself: K epochs of T steps, each example's bin drawn once (jax-privacy's
BallsInBinsSampling: step i uses bin i mod T), outputs y_i = (target in batch i) + N(0, sigma^2)
(chua25's tight datasets (0, ..., 0, 1) vs (0, ..., 0, bottom)), privacy loss from the full
likelihood ratio of all K T outputs. Each check is a one-sided 5-standard-error band (normal
approximation, false-failure probability <= 3e-7 each, < 1e-5 for the whole file); the runs are
seeded, so a failure reproduces."""

import math

import numpy as np
import pytest

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.certified.kept_bins import kept_bins_phase, kept_bins_phases
from dpsampling.accountants.run import Phase

SIGMA, STEPS, EPOCHS = 2.0, 8, 4  # one epoch at sigma / sqrt(K) = 1
EPS = np.array([0.5, 1.0, 2.0])
SAMPLES = 200_000


def simulate_outputs(rng, present: bool, samples: int) -> np.ndarray:
    """(samples, K T) outputs of the run; the target's bin is drawn once per run."""
    iterations = EPOCHS * STEPS
    y = rng.normal(0.0, SIGMA, size=(samples, iterations))
    if present:
        target_bin = rng.integers(0, STEPS, size=samples)
        in_batch = (np.arange(iterations)[None, :] % STEPS) == target_bin[:, None]
        y += in_batch
    return y


def log_likelihood_ratio(y: np.ndarray) -> np.ndarray:
    """log P/Q of the whole output: P = mean over bins t of prod_i N(1[i mod T = t], s^2)."""
    iterations = y.shape[1]
    per_bin = np.stack([(y[:, np.arange(iterations) % STEPS == t] - 0.5).sum(axis=1) / SIGMA**2
                        for t in range(STEPS)], axis=1)
    top = per_bin.max(axis=1)
    return top + np.log(np.exp(per_bin - top[:, None]).mean(axis=1))


def monte_carlo_deltas(seed: int):
    """remove: E_P[(1 - e^eps / L)_+]; add: E_Q[(1 - e^eps L)_+]; means and standard errors."""
    rng = np.random.default_rng(seed)
    out = {}
    for direction, present, sign in (("remove", True, -1.0), ("add", False, 1.0)):
        loss = log_likelihood_ratio(simulate_outputs(rng, present, SAMPLES))
        values = np.maximum(0.0, 1.0 - np.exp(EPS[:, None] + sign * loss[None, :]))
        # standard error, at least 1 / SAMPLES (a delta far below 1 / SAMPLES is seen as 0)
        se = np.maximum(values.std(axis=1, ddof=1) / math.sqrt(SAMPLES), 1.0 / SAMPLES)
        out[direction] = (values.mean(axis=1), se)
    return out


def engine_bounds(phase: Phase) -> dict:
    frame = Accountant([phase], accuracy=1e-2).delta_bounds(EPS)
    return {d: (frame.loc[frame["direction"] == d, "delta_lower"].to_numpy(),
                frame.loc[frame["direction"] == d, "delta_upper"].to_numpy()) for d in ("remove", "add")}


def test_kept_bins_run_matches_one_epoch_at_reduced_noise():
    mc = monte_carlo_deltas(seed=20261125)
    bracket = engine_bounds(kept_bins_phase(SIGMA, STEPS, EPOCHS))
    fresh = engine_bounds(Phase("balls_and_bins", SIGMA, steps_per_epoch=STEPS, epochs=EPOCHS))  # bins redrawn each epoch
    for direction in ("remove", "add"):
        mean, se = mc[direction]
        lower, upper = bracket[direction]
        assert np.all(mean >= lower - 5 * se), (direction, mean, lower, se)
        assert np.all(mean <= upper + 5 * se), (direction, mean, upper, se)
        # the check can fail: keeping the bins costs more than redrawing them (here by >> 5 SE)
        assert np.any(mean > fresh[direction][1] + 5 * se), (direction, mean, fresh[direction][1])


def test_partial_last_epoch_is_bracketed_and_bad_inputs():
    lower, upper = kept_bins_phases(SIGMA, STEPS, EPOCHS * STEPS)
    assert lower == upper == kept_bins_phase(SIGMA, STEPS, EPOCHS)
    lower, upper = kept_bins_phases(SIGMA, STEPS, EPOCHS * STEPS + 3)
    assert lower.sigma == pytest.approx(SIGMA / 2) and upper.sigma == pytest.approx(SIGMA / math.sqrt(5))
    with pytest.raises(ValueError, match="epochs"):
        kept_bins_phase(SIGMA, STEPS, 0)
    with pytest.raises(ValueError, match="iterations"):
        kept_bins_phases(SIGMA, STEPS, STEPS - 1)
