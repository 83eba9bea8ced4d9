"""Importance sampling (remove direction; fixed balls-and-bins, balls-and-bins with a fresh bin per
epoch, b-min-sep): the event's proof checked on draws, and the estimate against the closed form and
the plain Monte Carlo. beta = 1e-6 per bound; a fresh seed fails a bracketing assertion with
probability <= 2e-6 per eps and estimator (<= 4e-6 per eps for an overlap of two intervals)."""

import numpy as np
import pytest
from scipy import special

from dpsampling.accountants.ballsbins.estimates import estimate_delta
from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.matrix import MatrixRun, sample_losses
from dpsampling.accountants.matrix.importance import _draw_shifts, importance_estimate, shift_bounds, thresholds
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


OTHER_RUNS = [
    MatrixRun([1.0, 0.5], "balls_and_bins", 0.7, 10, cycle_length=5),
    MatrixRun([1.0, 0.5], "b_min_sep", 0.7, 10, min_separation=2, sampling_rate=0.3),
    MatrixRun([1.0, 0.5], "b_min_sep", 0.7, 10, min_separation=3, sampling_rate=0.3, warm_start=True),
]


@pytest.mark.parametrize("run", OTHER_RUNS, ids=lambda r: f"{r.sampler}-{r.warm_start}")
def test_one_threshold_bounds_every_shift_of_the_law(run):
    """Shifts drawn from the law are <= M, and with every w_t below C* the loss stays below eps_0;
    at M + C* 1 it reaches eps_0 (the threshold is not an arbitrary small number)."""
    eps0 = 2.0
    (c,) = thresholds(run, eps0)
    (bound,) = shift_bounds(run)
    rng = np.random.default_rng(3)
    _, shifts = _draw_shifts(run, 2000, rng)
    assert np.all(shifts <= bound + 1e-12)
    u = special.ndtr(c / run.sigma)
    w = run.sigma * special.ndtri(rng.random(shifts.shape) * u)
    w[0] = c - 1e-12
    assert np.all(kernel_losses(run, shifts + w) < eps0 + 1e-12)
    assert kernel_losses(run, bound[None, :] + c)[0] > eps0 - 1e-6


@pytest.mark.parametrize("run", OTHER_RUNS, ids=lambda r: f"{r.sampler}-{r.warm_start}")
def test_other_samplers_agree_with_plain_monte_carlo(run):
    epsilons = [1.0, 2.0]
    ours = importance_estimate(run, epsilons, samples=20_000, epsilon0=1.0, seed=6)
    plain = estimate_delta(sample_losses(run, 20_000, seed=7), epsilons)
    (a, b), (c, d) = _interval(ours), _interval(plain)
    assert np.all(a <= d) and np.all(c <= b), (a, b, c, d)


def test_cyclic_poisson_has_no_monte_carlo():
    with pytest.raises(ValueError, match="cyclic_poisson has no Monte Carlo"):
        importance_estimate(MatrixRun([1.0], "cyclic_poisson", 1.0, 4, cycle_length=2, sampling_rate=0.5), [1.0],
                            samples=10, epsilon0=1.0)
