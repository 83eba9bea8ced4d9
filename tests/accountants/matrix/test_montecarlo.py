"""Monte Carlo of DP-MF: Numba kernels against the plain reference, and against closed forms.

Seeded, so each assertion is deterministic; the false-failure probabilities stated are those of a
fresh seed (beta per bound, eps and direction)."""

import numpy as np
import pytest

from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.matrix import MatrixRun, delta_estimates, sample_losses
from dpsampling.accountants.matrix.montecarlo import kernel_losses
from dpsampling.accountants.matrix.reference import draw_outputs, reference_losses
from dpsampling.accountants.matrix.run import banded_times

RUNS = [
    MatrixRun([1.0, 0.5, 0.25], "fixed_balls_and_bins", 0.8, 13, cycle_length=4),
    MatrixRun([1.0, 0.5, 0.25], "balls_and_bins", 0.8, 12, cycle_length=4),
    MatrixRun([1.0, 0.7, 0.4, 0.1], "balls_and_bins", 0.9, 12, cycle_length=4),  # bands == k
    MatrixRun([1.0], "balls_and_bins", 0.6, 9, cycle_length=3),
    MatrixRun([1.0, 0.5], "b_min_sep", 0.8, 11, min_separation=3, sampling_rate=0.3),
    MatrixRun([1.0, 0.5, 0.2], "b_min_sep", 0.7, 10, min_separation=3, sampling_rate=0.4, warm_start=True),
    MatrixRun([2.0], "b_min_sep", 0.7, 6, min_separation=1, sampling_rate=0.5, warm_start=True),
]


@pytest.mark.parametrize("run", RUNS, ids=lambda r: f"{r.sampler}-{r.bands}")
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_kernel_equals_reference(run, direction):
    outputs = draw_outputs(run, 64, np.random.default_rng(7), direction)
    np.testing.assert_allclose(kernel_losses(run, outputs), reference_losses(run, outputs), rtol=0, atol=1e-10)
    np.testing.assert_allclose(sample_losses(run, 300, direction=direction, seed=3),
                               sample_losses(run, 300, direction=direction, seed=3, reference=True),
                               rtol=0, atol=1e-10)


def test_poisson_recursion_closed_form():
    """b_min_sep with min_separation 1 is Poisson: L(y) = sum_t log(1 - p + p exp((c y_t - c^2/2) / sigma^2))."""
    run = MatrixRun([1.3], "b_min_sep", 0.9, 25, min_separation=1, sampling_rate=0.2)
    y = np.random.default_rng(0).normal(size=(50, 25))
    expected = np.log1p(0.2 * np.expm1((1.3 * y - 0.5 * 1.3**2) / 0.81)).sum(axis=1)
    np.testing.assert_allclose(kernel_losses(run, y), expected, rtol=1e-12, atol=1e-12)


# Deterministic participation: the pair is the Gaussian mechanism with sensitivity ||C x||.
DETERMINISTIC = [
    (MatrixRun([1.0], "balls_and_bins", 1.0, 1, cycle_length=1), [1.0]),
    (MatrixRun([1.0, 0.6, 0.3], "fixed_balls_and_bins", 2.0, 7, cycle_length=1), None),
    (MatrixRun([1.5], "balls_and_bins", 2.5, 5, cycle_length=1), None),
    (MatrixRun([1.0, 0.5], "b_min_sep", 1.2, 9, min_separation=3, sampling_rate=1.0), [1, 0, 0] * 3),
]


@pytest.mark.parametrize("run, pattern", DETERMINISTIC, ids=lambda r: getattr(r, "sampler", ""))
def test_deterministic_pattern_is_the_gaussian_mechanism(run, pattern):
    pattern = np.ones(run.steps) if pattern is None else np.asarray(pattern, float)
    shift = banded_times(run.column(), pattern)
    sensitivity = float(np.linalg.norm(shift))
    y = draw_outputs(run, 40, np.random.default_rng(1), "remove")
    np.testing.assert_allclose(kernel_losses(run, y), (y @ shift - 0.5 * sensitivity**2) / run.sigma**2,
                               rtol=1e-12, atol=1e-12)
    # beta = 1e-6 per bound: a fresh seed fails with probability <= 12e-6 (3 eps, 2 directions, 2 sides)
    epsilons = [0.0, 0.5, 1.5]
    table = delta_estimates(run, epsilons, samples=40_000, beta=1e-6, seed=11)
    exact = gaussian_delta(np.asarray(epsilons), run.sigma, sensitivity)
    for direction in ("remove", "add"):
        rows = table[table["direction"] == direction]
        assert np.all(rows["lower"].to_numpy() <= exact) and np.all(exact <= rows["upper"].to_numpy()), rows
    assert table.attrs["method"] == "monte carlo" and table.attrs["samples"] == 40_000


def test_ballsbins_dp_sgd_matches_the_certified_engine():
    """coefficients [1], 3 epochs of 2 steps: the Monte Carlo brackets the certified engine's delta
    (both directions; beta = 1e-6 per bound, fresh-seed false failure <= 8e-6 over 2 eps x 2 dirs x 2 sides;
    the engine's bracket is tight to ~1%, far inside the Monte Carlo's width)."""
    from dpsampling import Accountant, Phase

    epsilons = [0.5, 1.5]
    certified = Accountant(Phase("balls_and_bins", 0.8, steps=6, steps_per_epoch=2)).delta_bounds(epsilons)
    table = delta_estimates(MatrixRun([1], "balls_and_bins", 0.8, 6, cycle_length=2), epsilons,
                            samples=40_000, beta=1e-6, seed=5)
    for direction in ("remove", "add"):
        ours = table[table["direction"] == direction].reset_index()
        theirs = certified[certified["direction"] == direction].reset_index()
        assert np.all(ours["lower"] <= theirs["delta_upper"]) and np.all(theirs["delta_lower"] <= ours["upper"])


def test_cyclic_poisson_has_no_monte_carlo():
    with pytest.raises(ValueError, match="cyclic_poisson"):
        sample_losses(MatrixRun([1, 1], "cyclic_poisson", 1.0, 4, cycle_length=2, sampling_rate=0.5), 10)
    with pytest.raises(ValueError, match="coefficients"):
        sample_losses(MatrixRun([1, 1, 1], "balls_and_bins", 1.0, 4, cycle_length=2), 10)
