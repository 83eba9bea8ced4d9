"""The certified lower bound of fixed balls-and-bins: below the Monte Carlo, equal to the Gaussian at k = 1."""

import numpy as np
import pytest

from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.matrix import MatrixRun, delta_estimates
from dpsampling.accountants.matrix.lower_bound import lower_bound_delta
from dpsampling.accountants.matrix.run import banded_times


def test_one_bin_is_the_gaussian_mechanism():
    run = MatrixRun([1.0, 0.6, 0.3], "fixed_balls_and_bins", 2.0, 7, cycle_length=1)
    sensitivity = float(np.linalg.norm(banded_times(run.column(), np.ones(7))))
    epsilons = np.array([0.0, 0.5, 1.0, 2.0])
    exact = gaussian_delta(epsilons, 2.0, sensitivity)
    table = lower_bound_delta(run, epsilons)
    for direction in ("remove", "add"):
        lower = table[table["direction"] == direction]["lower"].to_numpy()
        assert np.all(lower <= exact)
        np.testing.assert_allclose(lower, exact, rtol=1e-3)


def test_below_the_monte_carlo_upper_bound():
    """beta = 1e-6 per bound: a fresh seed fails with probability <= 6e-6 (3 eps x 2 directions)."""
    run = MatrixRun([1.0, 0.6, 0.3], "fixed_balls_and_bins", 1.2, 24, cycle_length=6)
    epsilons = [0.5, 1.0, 2.0]
    lower = lower_bound_delta(run, epsilons)
    upper = delta_estimates(run, epsilons, samples=20_000, beta=1e-6, seed=3)
    for direction in ("remove", "add"):
        low = lower[lower["direction"] == direction]["lower"].to_numpy()
        high = upper[upper["direction"] == direction]["upper"].to_numpy()
        assert np.all(low <= high)
    assert np.all(lower[lower["direction"] == "remove"]["lower"] > 0.03)


def test_only_fixed_bins():
    with pytest.raises(ValueError, match="fixed_balls_and_bins"):
        lower_bound_delta(MatrixRun([1.0], "balls_and_bins", 1.0, 4, cycle_length=2), [1.0])
