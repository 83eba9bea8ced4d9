"""Importance sampling (fixed balls-and-bins, remove): the event's proof checked on draws, and the
estimate against the closed form and the plain Monte Carlo. beta = 1e-6 per bound; a fresh seed fails
a bracketing assertion with probability <= 2e-6 per eps and estimator."""

import numpy as np
import pytest
from scipy import special

from dpsampling.accountants.ballsbins.estimates import estimate_delta
from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.matrix import MatrixRun, sample_losses
from dpsampling.accountants.matrix.importance import importance_estimate, thresholds
from dpsampling.accountants.matrix.montecarlo import _lower_confidence_bound, kernel_losses
from dpsampling.accountants.matrix.reference import fixed_bins_shifts

RUN = MatrixRun([1.0, 0.5], "fixed_balls_and_bins", 0.7, 10, cycle_length=10)


def test_off_the_event_the_loss_is_below_eps0():
    """Draw w with every coordinate below C_s (so off E_s), including the worst case w_t -> C_s."""
    eps0 = 2.0
    c = thresholds(RUN, eps0)
    shifts = fixed_bins_shifts(RUN)
    rng = np.random.default_rng(0)
    for s in range(RUN.cycle_length):
        u = special.ndtr(c[s] / RUN.sigma)
        w = RUN.sigma * special.ndtri(rng.random((500, RUN.steps)) * u)
        w[0] = c[s] * (1 - 1e-12) if c[s] > 0 else c[s] * (1 + 1e-12)  # every coordinate at the threshold
        losses = kernel_losses(RUN, w + shifts[s])
        assert np.all(losses < eps0 + 1e-12)
        assert losses[0] > eps0 - 1e-6  # the threshold is tight at the corner (not an arbitrary small C)


def _interval(estimate, beta=1e-6):
    return _lower_confidence_bound(estimate.mean() / np.exp(estimate.log_weight), estimate.count, beta) * np.exp(
        estimate.log_weight), estimate.upper_confidence_bound(beta)


def test_gaussian_mechanism():
    run = MatrixRun([1.0], "fixed_balls_and_bins", 0.8, 1, cycle_length=1)
    epsilons = [1.0, 2.0, 3.0]
    estimate = importance_estimate(run, epsilons, samples=20_000, epsilon0=1.0, seed=4)
    low, high = _interval(estimate)
    exact = gaussian_delta(np.asarray(epsilons), 0.8, 1.0)
    assert np.all(low <= exact) and np.all(exact <= high)
    assert np.exp(estimate.log_weight) < 0.5  # the event is a real restriction here


def test_agrees_with_plain_monte_carlo_and_is_nan_below_eps0():
    epsilons = [1.0, 2.0, 3.0, 4.0]
    ours = importance_estimate(RUN, epsilons, samples=20_000, epsilon0=2.0, seed=6)
    plain = estimate_delta(sample_losses(RUN, 20_000, seed=7), epsilons)
    assert np.isnan(ours.mean()[0]) and np.all(np.isfinite(ours.mean()[1:]))
    (a, b), (c, d) = _interval(ours), _interval(plain)
    assert np.all(a[1:] <= d[1:]) and np.all(c[1:] <= b[1:])


def test_only_fixed_bins():
    with pytest.raises(ValueError, match="fixed_balls_and_bins"):
        importance_estimate(MatrixRun([1.0], "balls_and_bins", 1.0, 2, cycle_length=2), [1.0], samples=10,
                            epsilon0=1.0)
