"""Poisson bounds against dp-accounting called directly, and against the Gaussian mechanism."""

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution

from dpsampling.accountants import deterministic, poisson
from dpsampling.accountants.tables import AccountingOptions, delta_table, epsilon_table

SIGMA, STEPS = 0.8, 100
ONE_INTERVAL = AccountingOptions(pld_method="dp_accounting", pld_discretization=1e-3, pld_min_discretization=1e-3)  # no refinement


def _direct_pld(pessimistic, interval, sigma=SIGMA, steps=STEPS, rate=None):
    return privacy_loss_distribution.from_gaussian_mechanism(
        sigma, sampling_prob=rate or 1 / steps, pessimistic_estimate=pessimistic,
        value_discretization_interval=interval, use_connect_dots=pessimistic,
    ).self_compose(steps)


def test_delta_bounds_equal_dp_accounting_public_answers():
    eps = [0.1, 1.0, 3.0]
    table = delta_table("poisson", SIGMA, STEPS, eps, options=ONE_INTERVAL)
    upper = _direct_pld(True, 1e-3).get_delta_for_epsilon(eps)
    lower = _direct_pld(False, 1e-3).get_delta_for_epsilon(eps)
    # upper: dp-accounting's PMF with its FFT round-off negatives set to 0 (only raises delta, by ~1e-14);
    # lower: minus the 2e-15 that tail truncation may add and an estimate of the round-off, clamped at 0
    # (accountants.pld_bounds): only ever lower, by ~1e-13
    assert np.all(table["delta_upper"] >= upper) and np.all(table["delta_lower"] <= lower)
    np.testing.assert_allclose(table["delta_upper"], upper, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(table["delta_lower"], lower, rtol=1e-12, atol=1e-13)
    assert np.all(table["delta_lower"] <= table["delta_upper"])
    # the maximum is over the two directions, and remove dominates for eps >= 0 here
    np.testing.assert_allclose(table["delta_upper"], np.maximum(table["remove_delta_upper"], table["add_delta_upper"]))
    assert np.all(table["add_delta_upper"] <= table["remove_delta_upper"])


def test_rdp_equals_dp_accounting_and_is_looser_than_pld():
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(1 / STEPS, dp_accounting.GaussianDpEvent(SIGMA)), STEPS)
    table = epsilon_table("poisson", SIGMA, STEPS, [1e-5])
    assert table["epsilon_upper_rdp"][0] == pytest.approx(accountant.get_epsilon(1e-5), rel=1e-12)
    assert table["epsilon_upper"][0] < table["epsilon_upper_rdp"][0]


def test_epsilon_bounds_bracket_and_match_direct_call():
    table = epsilon_table("poisson", SIGMA, STEPS, [1e-6, 1e-3], options=AccountingOptions(pld_method="dp_accounting"))
    for i, delta in enumerate([1e-6, 1e-3]):
        interval = table["pld_discretization"][i]
        direct = _direct_pld(True, interval).get_epsilon_for_delta(delta)
        assert direct <= table["epsilon_upper"][i] == pytest.approx(direct, rel=1e-8)  # round-off removed: >=
        assert table["epsilon_lower"][i] <= table["epsilon_upper"][i]


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0])
def test_rate_one_single_step_brackets_the_gaussian_mechanism(sigma):
    eps = np.array([0.0, 0.5, 2.0])
    run = poisson.PoissonAccounting(sigma, steps=1, rate=1.0)
    bounds = poisson.pld_delta(eps, run, 1e-4)
    exact = deterministic.deterministic_delta(eps, sigma)
    assert np.all(bounds["lower"] <= exact * (1 + 1e-9))
    assert np.all(exact <= bounds["upper"] * (1 + 1e-9))
    np.testing.assert_allclose(bounds["upper"], exact, rtol=2e-3)


def test_epochs_multiply_the_compositions():
    one = delta_table("poisson", SIGMA, 50, [1.0], epochs=2, options=ONE_INTERVAL)
    direct = _direct_pld(True, 1e-3, steps=100, rate=1 / 50)
    assert one["delta_upper"][0] == pytest.approx(direct.get_delta_for_epsilon(1.0), rel=1e-12)


def test_delta_decreases_in_eps_and_epsilon_in_sigma():
    table = delta_table("poisson", SIGMA, STEPS, np.linspace(0, 4, 9), options=ONE_INTERVAL)
    assert np.all(np.diff(table["delta_upper"]) <= 0)
    assert np.all(np.diff(table["delta_upper_rdp"]) <= 0)
    eps = [epsilon_table("poisson", s, STEPS, [1e-5])["epsilon_upper"][0] for s in (0.6, 0.9, 1.5)]
    assert eps[0] > eps[1] > eps[2]
