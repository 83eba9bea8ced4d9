"""Fixed balls-and-bins on the face (``Accountant(..., method="monte_carlo")``): the lower bound is
the larger of the certified ``lower_bound.lower_bound_delta`` and the Monte Carlo lower confidence
bound, each row saying which (``matrix.face``)."""

import numpy as np
import pytest

from dpsampling import Accountant, Phase
from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.matrix.face import CERTIFIED_LOWER_METHOD, LOWER_METHOD
from dpsampling.accountants.matrix.lower_bound import lower_bound_delta
from dpsampling.accountants.matrix.run import banded_times

COEFFICIENTS = [1.0, 0.6, 0.3]


def _answer(phase: Phase, quantity: str, values, beta: float = 1e-3, seed: int = 0):
    accountant = Accountant(phase, method="monte_carlo", samples=20_000, error_prob=beta, seed=seed)
    return accountant.delta_bounds(values) if quantity == "delta" else accountant.epsilon_bounds(values)


def test_one_bin_reports_the_certified_gaussian_lower_bound():
    """k = 1: every step participates, the Gaussian mechanism at sensitivity ||C 1||. The certified
    lower bound is within 1e-3 of the exact delta and the Monte Carlo lower confidence bound at
    20,000 samples lies a few percent below the truth, so every row's lower bound is the certified
    one (a row would fail only if the Monte Carlo lower bound passed 0.999 delta: probability below
    its beta = 1e-3). The eps rows: the certified eps lower bound is at most the exact eps."""
    sigma, steps = 2.0, 7
    phase = Phase("fixed_balls_and_bins", sigma, coefficients=COEFFICIENTS, steps_per_epoch=1, epochs=steps)
    sensitivity = float(np.linalg.norm(banded_times(np.array(COEFFICIENTS), np.ones(steps))))
    epsilons = np.array([0.5, 1.0, 2.0])
    frame = _answer(phase, "delta", epsilons)
    exact = np.repeat(gaussian_delta(epsilons, sigma, sensitivity), 3)
    assert list(frame["lower_method"]) == [CERTIFIED_LOWER_METHOD] * 9
    assert np.all(frame["delta_lower"] <= exact) and np.allclose(frame["delta_lower"], exact, rtol=1e-3)
    assert "certified in 9 of 9 rows" in frame.attrs["computation"]["certified_lower"]
    assert "lower bound: the larger of a certified one" in frame.attrs["method_label"]
    deltas = [1e-3, 1e-2]
    eps_frame = _answer(phase, "epsilon", deltas)
    assert set(eps_frame["lower_method"]) == {CERTIFIED_LOWER_METHOD}
    for delta, row in zip(deltas, eps_frame[eps_frame["direction"] == "max"].itertuples(), strict=True):
        # the exact eps of the Gaussian mechanism at delta: its delta there is delta
        assert gaussian_delta(np.array([row.epsilon_lower]), sigma, sensitivity)[0] >= delta
        assert gaussian_delta(np.array([row.epsilon_lower * 1.01]), sigma, sensitivity)[0] < delta
        assert row.epsilon_lower <= row.epsilon_upper


@pytest.mark.parametrize("seed", [0, 1])
def test_the_reported_lower_bound_is_the_larger_and_never_passes_the_upper(seed):
    """k = 6, T = 24, sigma 1.2 (the certified bound is weak here: docs/MATRIX.md): each row's lower
    bound is max(certified, Monte Carlo) with the method of the larger, and it is at most the
    Monte Carlo upper bound. beta = 1e-6 per bound: a seed fails with probability <= 1.2e-5 (6
    rows x 2 bounds)."""
    phase = Phase("fixed_balls_and_bins", 1.2, coefficients=COEFFICIENTS, steps_per_epoch=6, epochs=4)
    epsilons = [0.5, 2.0]
    frame = _answer(phase, "delta", epsilons, beta=1e-6, seed=seed)
    certified = lower_bound_delta(phase.matrix_run(), epsilons)["lower"].to_numpy()
    lower, upper = frame["delta_lower"].to_numpy(), frame["delta_upper"].to_numpy()
    assert np.all(lower >= certified) and np.all(lower <= upper)
    chosen = frame["lower_method"].to_numpy()
    assert set(chosen) <= {CERTIFIED_LOWER_METHOD, LOWER_METHOD}
    assert np.array_equal(lower[chosen == CERTIFIED_LOWER_METHOD], certified[chosen == CERTIFIED_LOWER_METHOD])


def test_other_samplers_keep_the_monte_carlo_lower_bound():
    phase = Phase("balls_and_bins", 1.0, coefficients=[1, 0.5], steps_per_epoch=10, epochs=2)
    frame = _answer(phase, "delta", [1.0])
    assert set(frame["lower_method"]) == {LOWER_METHOD} and "certified_lower" not in frame.attrs["computation"]
    assert "certified one" not in frame.attrs["method_label"]
