"""The adaptive game's certified lower bound on WOR under substitution (``certified.adaptive``).
Deterministic tests (no sampling)."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.certified.adaptive import adaptive_lower_bound
from dpsampling.accountants.closed_form.pairs import SubsampledPair
from dpsampling.accountants.run import Phase


def two_step_game(eps, sigma, q):
    """G_1 for T = 2 (slow, obviously right): the last step picks the larger of f_R, f_A at
    a / L, so G_1(a) = max(E_A[f(a / L)], E_B[f(a L)]), f = max(f_R, f_A), by quadrature in x
    (data units: B = N(0, s^2), A = (1 - q) N(0, s^2) + q N(2, s^2), L = dA/dB)."""
    pair = SubsampledPair("gaussian", sigma, q, 2.0)

    def f(e):
        e = np.atleast_1d(e)
        with np.errstate(divide="ignore"):
            return np.maximum(pair.hockey_stick(e, "remove"), pair.hockey_stick(e, "add"))[0]

    def log_ratio(x):
        return math.log1p(q * math.expm1((2.0 * x - 2.0) / sigma**2))

    def density_a(x):
        return (1 - q) * stats.norm.pdf(x, 0, sigma) + q * stats.norm.pdf(x, 2, sigma)

    lo, hi = -40.0 * sigma, 2.0 + 40.0 * sigma
    first = integrate.quad(lambda x: density_a(x) * f(eps - log_ratio(x)), lo, hi, limit=400, points=[1.0])[0]
    second = integrate.quad(lambda x: stats.norm.pdf(x, 0, sigma) * f(eps + log_ratio(x)), lo, hi, limit=400,
                            points=[1.0])[0]
    return max(first, second)


def test_two_steps_lower_bound_is_below_the_exact_game_and_close():
    sigma, q = 1.0, 0.05
    eps = np.array([0.0, 0.2, 0.5, 1.0])
    lower = adaptive_lower_bound(sigma, 2, 1, q, eps, "delta", h=0.002)
    exact = np.array([two_step_game(e, sigma, q) for e in eps])
    assert np.all(lower <= exact * (1 + 1e-9))
    np.testing.assert_allclose(lower, exact, rtol=5e-3)


def test_adapting_beats_the_remove_curve_and_stays_below_the_pair():
    """(A, B)^T's remove curve (lebeda24's lower bound, certified upper end here) is exceeded by
    the game's certified lower end: an adaptive adversary provably does better; and the game
    stays below (P*, Q*)^T's upper bound (the game is one of the runs that pair dominates), which
    the substitution frame records beside the upper bound it reports."""
    sigma, q, steps = 1.0, 0.05, 60
    deltas = np.array([1e-5, 1e-3])
    game = adaptive_lower_bound(sigma, steps, 1, q, deltas, "epsilon")
    phase = Phase("wor", sigma, steps=steps, sampling_rate=q)
    frame = Accountant([phase], accuracy=1e-4).epsilon_bounds(deltas)
    remove_upper = frame.loc[frame["direction"] == "remove", "epsilon_upper"].to_numpy()
    substitution = Accountant([phase], relation="substitution", accuracy=1e-3).epsilon_bounds(deltas)
    pair = np.asarray(substitution.attrs["computation"]["certified_upper"])
    assert np.all(game > remove_upper)
    assert np.all(game <= pair)
    assert np.all(game <= substitution.loc[substitution["direction"] == "max", "epsilon_upper"].to_numpy())


def test_bad_inputs():
    with pytest.raises(ValueError, match="sampling_rate must be < 1"):
        adaptive_lower_bound(1.0, 3, 1, 1.0, [1e-5], "epsilon")
    with pytest.raises(ValueError, match="kind"):
        adaptive_lower_bound(1.0, 3, 1, 0.1, [1e-5], "eps")
