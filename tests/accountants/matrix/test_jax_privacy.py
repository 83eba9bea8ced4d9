"""Side by side with jax-privacy 2.0's Monte Carlo for DP-BandMF (skipped when it is not installed).

1. The loss of the same outputs y: ours equals jax-privacy's ``compute_privacy_loss`` (deterministic),
   for b-min-sep only with at most 2 coefficients: with 3 or more, jax-privacy 2.0's truncated squared
   norms of the last steps are in reverse order (``cumsum(c**2)[:-1]`` where step T-1 keeps one row, so
   c_0^2 belongs there), and its loss differs from the exact enumeration; ``test_bminsep_three_bands``
   pins that down (if it starts failing, jax-privacy changed: update docs/MATRIX.md).
2. Estimates from each one's own sampler agree within their confidence: the KL intervals at beta = 1e-6
   overlap (a fresh seed fails with probability <= 4e-6 per eps: each interval misses delta w.p. <= 2e-6).
"""

import numpy as np
import pytest

from dpsampling.accountants.ballsbins.estimates import estimate_delta
from dpsampling.accountants.matrix import MatrixRun, sample_losses
from dpsampling.accountants.matrix.montecarlo import _lower_confidence_bound, kernel_losses
from dpsampling.accountants.matrix.reference import draw_outputs
from dpsampling.benchmark.matrix import jax_privacy_losses, jax_privacy_strategy

sample_generation = pytest.importorskip("jax_privacy.experimental.monte_carlo.sample_generation")

RUNS = [
    MatrixRun([1.0, 0.6, 0.3], "fixed_balls_and_bins", 1.5, 30, cycle_length=6),
    MatrixRun([1.0, 0.6], "b_min_sep", 1.0, 30, min_separation=3, sampling_rate=0.2),
    MatrixRun([1.0, 0.6], "b_min_sep", 1.0, 30, min_separation=4, sampling_rate=0.2, warm_start=True),
]


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"{r.sampler}-{r.warm_start}")
def test_same_outputs_same_loss(run):
    y = draw_outputs(run, 50, np.random.default_rng(4), "remove")
    theirs = sample_generation.compute_privacy_loss(jax_privacy_strategy(run), y.T.copy(), run.sigma,
                                                    np.asarray(run.coefficients))
    np.testing.assert_allclose(kernel_losses(run, y), theirs, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"{r.sampler}-{r.warm_start}")
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_estimates_agree_within_confidence(run, direction):
    epsilons = [0.5, 1.5]
    beta = 1e-6
    intervals = []
    for losses in (sample_losses(run, 4000, direction=direction, seed=8),
                   jax_privacy_losses(run, 4000, seed=9, direction=direction)):
        estimate = estimate_delta(losses, epsilons)
        intervals.append((_lower_confidence_bound(estimate.mean(), estimate.count, beta),
                          estimate.upper_confidence_bound(beta)))
    (ours_low, ours_high), (their_low, their_high) = intervals
    assert np.all(ours_low <= their_high) and np.all(their_low <= ours_high), intervals


def test_bminsep_three_bands_jax_privacy_differs_from_enumeration():
    from dpsampling.accountants.matrix.reference import reference_losses

    run = MatrixRun([1.0, 0.6, 0.3], "b_min_sep", 1.0, 12, min_separation=4, sampling_rate=0.2)
    y = draw_outputs(run, 20, np.random.default_rng(4), "remove")
    exact = reference_losses(run, y)  # every pattern enumerated with its probability
    theirs = sample_generation.compute_privacy_loss(jax_privacy_strategy(run), y.T.copy(), run.sigma,
                                                    np.asarray(run.coefficients))
    np.testing.assert_allclose(kernel_losses(run, y), exact, rtol=0, atol=1e-10)
    assert np.abs(theirs - exact).max() > 1e-3
