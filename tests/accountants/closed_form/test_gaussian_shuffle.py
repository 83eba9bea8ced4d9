"""Closed forms against mpmath, the shuffle lower bound's structure, and Thm 4.1 over grids."""

import math

import mpmath
import numpy as np
import pytest

from dpsampling.accountants.closed_form import shuffle
from dpsampling.accountants.closed_form.gaussian import gaussian_delta, gaussian_epsilon

mpmath.mp.dps = 50


def _mp_phi(x):
    return mpmath.ncdf(x)


def _mp_gaussian_delta(eps, sigma, sensitivity=1.0):
    eps, sigma, s = mpmath.mpf(eps), mpmath.mpf(sigma), mpmath.mpf(sensitivity)
    return _mp_phi(s / (2 * sigma) - eps * sigma / s) - mpmath.e**eps * _mp_phi(-s / (2 * sigma) - eps * sigma / s)


@pytest.mark.parametrize("sigma", [0.3, 0.5, 1.0, 2.5])
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 8.0, 20.0])
def test_gaussian_delta_matches_mpmath(sigma, eps):
    exact = _mp_gaussian_delta(eps, sigma)
    ours = gaussian_delta([eps], sigma)[0]
    if exact < 1e-300:
        assert ours < 1e-290
    else:
        assert ours == pytest.approx(float(exact), rel=1e-9)


@pytest.mark.parametrize("epochs", [1, 4, 9])
def test_epochs_compose_to_sensitivity_sqrt_k(epochs):
    eps = np.array([0.3, 1.0, 3.0])
    exact = [float(_mp_gaussian_delta(e, 0.7, math.sqrt(epochs))) for e in eps]
    assert gaussian_delta(eps, 0.7, math.sqrt(epochs)) == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("sigma", [0.4, 0.8, 1.3])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-2, 0.3])
def test_epsilon_inverts_delta(sigma, delta):
    eps = gaussian_epsilon(delta, sigma, 1.0)
    if eps == 0.0:
        assert gaussian_delta([0.0], sigma)[0] <= delta
    else:
        assert float(_mp_gaussian_delta(eps, sigma)) == pytest.approx(delta, rel=1e-8)


def test_shuffle_event_probabilities_match_mpmath():
    sigma, steps = 0.7, 1000
    for c in [0.5, 2.0, 4.0, 9.0]:
        p, q, not_p, not_q = (float(v[0]) for v in shuffle._event_probabilities([c], sigma, steps))
        rest = _mp_phi(mpmath.mpf(c) / sigma) ** (steps - 1)
        mp_not_p = _mp_phi((mpmath.mpf(c) - 2) / sigma) * rest
        mp_not_q = _mp_phi((mpmath.mpf(c) - 1) / sigma) * rest
        assert p == pytest.approx(float(1 - mp_not_p), rel=1e-10)
        assert q == pytest.approx(float(1 - mp_not_q), rel=1e-10)
        assert not_p == pytest.approx(float(mp_not_p), rel=1e-10)
        assert not_q == pytest.approx(float(mp_not_q), rel=1e-10)


def test_shuffle_bound_is_the_maximum_over_the_grid_and_refinement_only_raises():
    grid = shuffle.c_grid(0, 20, 0.05)
    eps = np.array([0.5, 2.0, 6.0])
    coarse = shuffle.shuffle_delta_lower(eps, 0.6, 500, grid=grid, refine=False)
    refined = shuffle.shuffle_delta_lower(eps, 0.6, 500, grid=grid, refine=True)
    p, q, _, _ = shuffle._event_probabilities(grid, 0.6, 500)
    for i, e in enumerate(eps):
        assert coarse["remove"][i] == pytest.approx(np.max(p - math.exp(e) * q), rel=1e-12)
        assert refined["remove"][i] >= coarse["remove"][i]
    assert np.all(refined["max"] == np.maximum(refined["remove"], refined["add"]))


@pytest.mark.parametrize("sigma", [0.3, 0.8, 2.0])
def test_shuffle_with_one_step_is_the_gaussian_mechanism(sigma):
    """T = 1: P_S = N(2, s^2), Q_S = N(1, s^2); the halfspaces E_C are optimal, so the bound is exact."""
    eps = np.array([0.0, 0.5, 1.0, 3.0])
    bound = shuffle.shuffle_delta_lower(eps, sigma, 1)
    exact = gaussian_delta(eps, sigma)
    assert bound["remove"] == pytest.approx(exact, rel=1e-7, abs=1e-300)
    assert bound["add"] == pytest.approx(exact, rel=1e-6, abs=1e-300)


@pytest.mark.parametrize("sigma", [0.3, 0.5, 0.8, 1.3, 3.0])
@pytest.mark.parametrize("steps", [1, 10, 1000, 100_000])
@pytest.mark.parametrize("epochs", [1, 3])
def test_theorem_4_1_shuffle_lower_bound_below_deterministic(sigma, steps, epochs):
    eps = np.linspace(0, 15, 16)
    lower = shuffle.shuffle_delta_lower(eps, sigma, steps, epochs)
    exact = gaussian_delta(eps, sigma, math.sqrt(epochs))
    assert np.all(lower["max"] <= exact * (1 + 1e-9) + 1e-300)
    deltas = [1e-8, 1e-5, 1e-2]
    eps_lower = shuffle.shuffle_epsilon_lower(deltas, sigma, steps, epochs)["max"]
    assert np.all(eps_lower <= np.array([gaussian_epsilon(d, sigma, math.sqrt(epochs)) for d in deltas]) + 1e-9)


@pytest.mark.parametrize("steps", [10, 10_000])
def test_monotonicity_over_grids(steps):
    eps = np.linspace(0, 12, 25)
    for sigma in [0.4, 0.8, 1.5]:
        for curve in (shuffle.shuffle_delta_lower(eps, sigma, steps)["max"], gaussian_delta(eps, sigma)):
            assert np.all(np.diff(curve) <= 1e-15)
    sigmas = np.linspace(0.3, 2.0, 12)
    eps_d = [gaussian_epsilon(1e-6, s, 1.0) for s in sigmas]
    eps_s = [shuffle.shuffle_epsilon_lower([1e-6], s, steps)["max"][0] for s in sigmas]
    assert np.all(np.diff(eps_d) < 0)
    assert np.all(np.diff(eps_s) <= 1e-12)


def test_more_epochs_never_lower_the_shuffle_bound():
    one = shuffle.shuffle_delta_lower([1.0, 3.0], 0.8, 100, epochs=1)["max"]
    three = shuffle.shuffle_delta_lower([1.0, 3.0], 0.8, 100, epochs=3)["max"]
    assert np.all(three >= one)


@pytest.mark.parametrize("upper", [True, False])
def test_binomial_tails_match_mpmath_down_to_tiny_values(upper):
    """Pr[Bin(K, p) >= j] / Pr[Bin(K, p) <= j - 1] keep their relative precision at 1e-250."""
    epochs = 6
    probabilities = [1e-50, 1e-8, 0.3, 1 - 1e-9]
    log_p = np.log(probabilities)
    log_not_p = np.log1p(-np.array(probabilities))
    tails = shuffle._binomial_tails(log_p, log_not_p, epochs, upper)
    for row, p in enumerate(probabilities):
        p = mpmath.mpf(p)
        for j in range(1, epochs + 1):
            terms = range(j, epochs + 1) if upper else range(0, j)
            exact = mpmath.fsum(mpmath.binomial(epochs, i) * p**i * (1 - p) ** (epochs - i) for i in terms)
            if exact < 1e-300:
                assert tails[row, j - 1] < 1e-290
            else:
                assert tails[row, j - 1] == pytest.approx(float(exact), rel=1e-9)
