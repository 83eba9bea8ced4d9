"""Poisson bounds against dp-accounting called directly, and against the Gaussian mechanism: the
reference (``reference.pld``, ``reference.rdp``; the face's method="dp_accounting") and the
certified engine."""

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.reference import pld, pld_bounds, rdp
from dpsampling.accountants.run import Phase

SIGMA, STEPS = 0.8, 100
RATE = 1 / STEPS


def _direct_pld(pessimistic, interval, sigma=SIGMA, steps=STEPS, rate=RATE):
    return privacy_loss_distribution.from_gaussian_mechanism(
        sigma, sampling_prob=rate, pessimistic_estimate=pessimistic,
        value_discretization_interval=interval, use_connect_dots=pessimistic,
    ).self_compose(steps)


def _phase(sigma=SIGMA, steps=STEPS, rate=RATE):
    return Phase("poisson", sigma, steps=steps, sampling_rate=rate)


def _one_interval(kind, values, phase, interval=1e-3):
    """The reference's bounds of a Poisson phase at one discretization interval (no refinement)."""
    def build(pessimistic, discretization):
        return pld.gaussian_pld(phase.sigma, phase.sampling_rate, phase.steps, 1.0, pessimistic, discretization)

    return pld_bounds.refined_bounds(build, kind, values, 1e-2, interval, interval)


def _row(frame, direction, column):
    return frame.loc[frame["direction"] == direction, column].to_numpy()


def test_delta_bounds_equal_dp_accounting_public_answers():
    eps = [0.1, 1.0, 3.0]
    table = _one_interval("delta", eps, _phase())
    upper = _direct_pld(True, 1e-3).get_delta_for_epsilon(eps)
    lower = _direct_pld(False, 1e-3).get_delta_for_epsilon(eps)
    # upper: dp-accounting's PMF with its FFT round-off negatives set to 0 (only raises delta, by ~1e-14);
    # lower: minus the 2e-15 that tail truncation may add and an estimate of the round-off, clamped at 0
    # (reference.pld_bounds): only ever lower, by ~1e-13
    assert np.all(table["upper"] >= upper) and np.all(table["lower"] <= lower)
    np.testing.assert_allclose(table["upper"], upper, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(table["lower"], lower, rtol=1e-12, atol=1e-13)
    assert np.all(table["lower"] <= table["upper"])
    # the maximum is over the two directions, and remove dominates for eps >= 0 here
    np.testing.assert_allclose(table["upper"], np.maximum(table["remove_upper"], table["add_upper"]))
    assert np.all(table["add_upper"] <= table["remove_upper"])


def test_rdp_equals_dp_accounting_and_is_looser_than_pld():
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(RATE, dp_accounting.GaussianDpEvent(SIGMA)), STEPS)
    ours = rdp.query(rdp.poisson_accountant(SIGMA, RATE, STEPS), "epsilon", [1e-5])
    assert ours[0] == pytest.approx(accountant.get_epsilon(1e-5), rel=1e-12)
    frame = Accountant([_phase()]).epsilon_bounds([1e-5])
    assert _row(frame, "max", "epsilon_upper")[0] < ours[0]


def test_epsilon_bounds_bracket_and_match_direct_call():
    deltas = [1e-6, 1e-3]
    frame = Accountant([_phase()], method="dp_accounting").epsilon_bounds(deltas)
    assert frame.attrs["method"] == "dp_accounting"
    intervals = frame.attrs["computation"]["discretization"]
    upper, lower = _row(frame, "max", "epsilon_upper"), _row(frame, "max", "epsilon_lower")
    for i, delta in enumerate(deltas):
        direct = _direct_pld(True, intervals[i]).get_epsilon_for_delta(delta)
        assert direct <= upper[i] == pytest.approx(direct, rel=1e-8)  # round-off removed: >=
        assert lower[i] <= upper[i]


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0])
def test_rate_one_single_step_brackets_the_gaussian_mechanism(sigma):
    eps = np.array([0.0, 0.5, 2.0])
    frame = Accountant([Phase("poisson", sigma, steps=1, sampling_rate=1.0)], method="dp_accounting").delta_bounds(eps)
    lower, upper = _row(frame, "max", "delta_lower"), _row(frame, "max", "delta_upper")
    exact = gaussian_delta(eps, sigma)
    assert np.all(lower <= exact * (1 + 1e-9))
    assert np.all(exact <= upper * (1 + 1e-9))
    np.testing.assert_allclose(upper, exact, rtol=2e-3)


def test_epochs_multiply_the_compositions():
    phase = Phase("poisson", SIGMA, steps_per_epoch=50, epochs=2, sampling_rate=1 / 50)
    assert phase.steps == 100 and phase == Phase("poisson", SIGMA, epochs=2, sampling_rate=1 / 50)
    one = _one_interval("delta", [1.0], phase)
    direct = _direct_pld(True, 1e-3, steps=100, rate=1 / 50)
    assert one["upper"][0] == pytest.approx(direct.get_delta_for_epsilon(1.0), rel=1e-12)


def test_delta_decreases_in_eps_and_epsilon_in_sigma():
    eps = np.linspace(0, 4, 9)
    table = _one_interval("delta", eps, _phase())
    assert np.all(np.diff(table["upper"]) <= 0)
    assert np.all(np.diff(rdp.query(rdp.poisson_accountant(SIGMA, RATE, STEPS), "delta", eps)) <= 0)
    values = [Accountant([_phase(sigma=s)]).get_epsilon(1e-5) for s in (0.6, 0.9, 1.5)]
    assert values[0] > values[1] > values[2]
