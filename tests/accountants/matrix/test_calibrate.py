"""Calibration of sigma on a MatrixRun: Monte Carlo bisection against the Gaussian mechanism's exact sigma."""

import numpy as np
import pytest

from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.matrix import MatrixRun
from dpsampling.accountants.matrix.calibrate import calibrate_matrix_sigma
from dpsampling.accountants.matrix.run import banded_times


def _exact_gaussian_sigma(target, delta, sensitivity):
    low, high = 0.01, 100.0
    for _ in range(100):
        mid = np.sqrt(low * high)
        low, high = (low, mid) if gaussian_delta(target, mid, sensitivity) <= delta else (mid, high)
    return high


def test_monte_carlo_calibration_brackets_the_gaussian():
    """k = 1 with 2 bands: the Gaussian mechanism with sensitivity ||C 1||, no certified reduction.
    The sigma shown sufficient is >= the exact one unless a bound failed (probability <= 2 beta N,
    attrs) and within 10 % of it at these samples (delta 1e-2: width ~ a few %)."""
    run = MatrixRun([1.0, 0.5], "fixed_balls_and_bins", 1.0, 3, cycle_length=1)
    sensitivity = float(np.linalg.norm(banded_times(run.column(), np.ones(3))))
    exact = _exact_gaussian_sigma(1.0, 1e-2, sensitivity)
    answer = calibrate_matrix_sigma(run, 1.0, 1e-2, samples=40_000, beta=1e-6, seed=1, rtol=0.01)
    assert answer.method == "monte carlo" and answer.error_probability == pytest.approx(2e-6 * answer.evaluations)
    assert exact <= answer.sigma <= 1.10 * exact
    assert answer.sigma_not_shown_sufficient <= answer.sigma


def test_certified_path_maps_the_sigma_back():
    run = MatrixRun([1.0, 1.0], "cyclic_poisson", 1.0, 4, cycle_length=2, sampling_rate=1.0)
    answer = calibrate_matrix_sigma(run, 1.0, 1e-2, rtol=1e-3)
    # rate 1, 2 opportunities of sensitivity sqrt(2): the Gaussian mechanism with sensitivity 2
    exact = _exact_gaussian_sigma(1.0, 1e-2, 2.0)
    assert answer.method == "certified" and answer.error_probability == 0.0
    assert exact * (1 - 2e-3) <= answer.sigma <= exact * (1 + 2e-3)
