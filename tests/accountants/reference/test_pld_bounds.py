"""PLD bounds of Poisson and WOR: valid, ordered, in [0, 1], refined until they meet.

Issue 12, item 6. The grid runs with a coarse discretization so that it stays cheap; the
properties checked (order, range, no NaN, the refinement record) must hold at any interval.
"""

import math

import numpy as np
import pytest
from scipy import special

from dpsampling.accountants import deterministic, pld_bounds, poisson
from dpsampling.accountants.tables import AccountingOptions, delta_table, epsilon_table

EPS = [0.0, 0.05, 1.0, 4.0]
COARSE = AccountingOptions(pld_method="dp_accounting", pld_discretization=1e-3, pld_min_discretization=2.5e-4)


@pytest.mark.parametrize("sampler", ["poisson", "wor"])
@pytest.mark.parametrize("sigma", [0.5, 0.8, 2.0])
@pytest.mark.parametrize("steps", [10, 1000])
@pytest.mark.parametrize("epochs", [1, 4])
def test_delta_bounds_are_ordered_and_in_the_unit_interval(sampler, sigma, steps, epochs):
    frame = delta_table(sampler, sigma, steps, EPS, epochs, COARSE)
    for prefix in ("", "remove_", "add_"):
        lower, upper = frame[f"{prefix}delta_lower"].to_numpy(), frame[f"{prefix}delta_upper"].to_numpy()
        assert not np.isnan(lower).any() and not np.isnan(upper).any()
        assert ((0 <= lower) & (lower <= upper) & (upper <= 1)).all(), (prefix, lower, upper)
    # the record: the interval used lies in [min, start]; converged rows meet the target
    assert frame["pld_discretization"].between(2.5e-4, 1e-3).all()
    met = frame["pld_converged"].to_numpy()
    gap = (frame[["remove_delta_upper", "add_delta_upper"]].to_numpy()
           - frame[["remove_delta_lower", "add_delta_lower"]].to_numpy())
    allowed = np.maximum(1e-2 * frame[["remove_delta_upper", "add_delta_upper"]].to_numpy(),
                         pld_bounds.DELTA_ABSOLUTE_ACCURACY)
    assert (gap[met] <= allowed[met] * (1 + 1e-12)).all()
    assert (frame.loc[~met, "pld_discretization"] == 2.5e-4).all()  # not met only once the cap is reached
    assert (frame.loc[met, "pld_accuracy"] <= 1e-2 * (1 + 1e-12)).all()
    if epochs == 1:  # eps queries: ordered, non-negative, no NaN (cheaper: one epoch only)
        eps = epsilon_table(sampler, sigma, steps, [1e-5, 1e-2], epochs, COARSE)
        for prefix in ("", "remove_", "add_"):
            lower, upper = eps[f"{prefix}epsilon_lower"], eps[f"{prefix}epsilon_upper"]
            assert not lower.isna().any() and not upper.isna().any()
            assert ((0 <= lower) & (lower <= upper)).all(), (prefix, lower, upper)


def test_add_direction_upper_bound_is_never_negative():
    # measured before the fix: -1.9e-13 (FFT round-off of the composed PMF; see pld_bounds)
    eps = np.linspace(0.0, 6.0, 61)
    options = AccountingOptions(pld_method="dp_accounting", pld_min_discretization=1e-4)  # default interval, no refinement
    frame = delta_table("poisson", 0.8, 1000, eps, epochs=4, options=options, relation="add")
    assert (frame["delta_upper"] >= 0).all() and (frame["delta_lower"] >= 0).all()
    assert (frame["delta_lower"] <= frame["delta_upper"]).all()
    # above its largest loss, sum_t log(1 / (1 - q)) ~ 4.0, the add direction's delta is 0; the
    # upper bound keeps only the truncated tail mass and the round-off, both far below 1e-12
    assert (frame.loc[frame["epsilon"] > 4.1, "delta_upper"] < 1e-12).all()


def test_composed_pmf_round_off_is_removed_from_the_upper_bound_only():
    run = poisson.PoissonAccounting(0.8, 1000, 4)
    for pessimistic in (True, False):
        raw = poisson.poisson_pld(run, pessimistic, 1e-3)
        cleaned = pld_bounds.direction_pmfs(raw, pessimistic)
        assert (np.asarray(raw._pmf_add.to_dense_pmf()._probs) < 0).any()  # the cause is there
        assert (np.asarray(cleaned["add"]._probs) >= 0).all() == pessimistic
        # clipping only raises delta (upper) -- never lowers it
        eps = np.array([0.5, 2.0, 5.0])
        if pessimistic:
            before = np.array([raw._pmf_add.get_delta_for_epsilon(e) for e in eps])
            assert (pld_bounds.query(cleaned["add"], "delta", eps, "upper") >= before).all()


def test_lower_bound_is_refined_towards_the_upper_bound():
    # measured before: delta_lower 2.95e-11 vs delta_upper 1.03e-5 at interval 1e-4
    eps = [0.05]
    fixed = delta_table("poisson", 2.0, 1000, eps, options=AccountingOptions(pld_method="dp_accounting", pld_min_discretization=1e-4))
    refined = delta_table("poisson", 2.0, 1000, eps, options=AccountingOptions(pld_method="dp_accounting", pld_min_discretization=2.5e-5))
    assert fixed["delta_lower"].iloc[0] < 1e-9  # the optimistic PLD's eps shift is ~ k d / 2 = eps itself
    assert refined["delta_lower"].iloc[0] > 100 * fixed["delta_lower"].iloc[0]
    assert refined["delta_upper"].iloc[0] <= fixed["delta_upper"].iloc[0]
    assert refined["pld_discretization"].iloc[0] < 1e-4
    # either within the target or flagged: the cap (2.5e-5) is not fine enough here
    row = refined.iloc[0]
    gap = max((row[f"{d}_delta_upper"] - row[f"{d}_delta_lower"]) / row[f"{d}_delta_upper"] for d in ("remove", "add")
              if row[f"{d}_delta_upper"] - row[f"{d}_delta_lower"] > pld_bounds.DELTA_ABSOLUTE_ACCURACY)
    assert row["pld_converged"] == (gap <= 1e-2)
    assert row["pld_accuracy"] == pytest.approx(gap, rel=1e-9)  # the larger of the two directions' gaps


@pytest.mark.parametrize("sampler", ["poisson", "wor"])
def test_epsilon_bounds_meet_to_the_relative_accuracy(sampler):
    options = AccountingOptions(pld_method="dp_accounting", pld_discretization=1e-3, pld_min_discretization=1e-5, pld_relative_accuracy=2e-2)
    sigma = 0.8 if sampler == "poisson" else 1.6
    frame = epsilon_table(sampler, sigma, 10, [1e-5, 1e-3], epochs=4, options=options)
    assert frame["pld_converged"].all()
    for prefix in ("", "remove_", "add_"):
        lower, upper = frame[f"{prefix}epsilon_lower"], frame[f"{prefix}epsilon_upper"]
        assert ((0 <= lower) & (lower <= upper)).all()
    gap = (frame["epsilon_upper"] - frame["epsilon_lower"]) / frame["epsilon_upper"]
    assert (gap <= 2e-2).all() and (frame["pld_accuracy"] <= 2e-2).all()
    # before: eps_lower sat ~k d / 2 = 0.02 below eps_upper at d = 1e-3, k = 40
    unrefined = epsilon_table(sampler, sigma, 10, [1e-5], epochs=4, options=AccountingOptions(pld_method="dp_accounting",
        pld_discretization=1e-3, pld_min_discretization=1e-3, pld_relative_accuracy=1e-3))
    assert unrefined["epsilon_upper"].iloc[0] - unrefined["epsilon_lower"].iloc[0] > 0.01
    assert not unrefined["pld_converged"].iloc[0]


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0])
def test_rate_one_single_step_brackets_the_gaussian_mechanism(sigma):
    # T = 1 Poisson at rate 1 is the Gaussian mechanism N(0, s^2) vs N(1, s^2)
    options = AccountingOptions(pld_method="dp_accounting", pld_discretization=1e-3, pld_min_discretization=1e-5, sampling_rate=1.0)
    frame = delta_table("poisson", sigma, 1, EPS, options=options)
    closed = deterministic.gaussian_delta(np.asarray(EPS), sigma)
    mu = 1.0 / sigma
    direct = np.array([special.ndtr(-e / mu + mu / 2) - math.exp(e) * special.ndtr(-e / mu - mu / 2) for e in EPS])
    np.testing.assert_allclose(closed, direct, rtol=1e-9, atol=1e-300)
    for direction in ("remove_", "add_", ""):
        assert (frame[f"{direction}delta_lower"] <= closed * (1 + 1e-9) + 1e-15).all()
        assert (closed <= frame[f"{direction}delta_upper"] * (1 + 1e-9) + 1e-15).all()
    assert frame["pld_converged"].all()


@pytest.mark.parametrize("relation", ["add", "remove"])
def test_wor_at_sigma_is_poisson_at_half_sigma_per_direction(relation):
    options = AccountingOptions(pld_method="dp_accounting", pld_discretization=1e-3, pld_min_discretization=2.5e-4, sampling_rate=0.05)
    wor = delta_table("wor", 1.6, 20, EPS, options=options, relation=relation)
    poisson_half = delta_table("poisson", 0.8, 20, EPS, options=options, relation=relation)
    for column in ("delta_lower", "delta_upper", "pld_discretization"):
        np.testing.assert_allclose(wor[column], poisson_half[column], rtol=1e-9, atol=1e-15)
    # and the brackets overlap, so both contain the common true value
    assert (wor["delta_lower"] <= poisson_half["delta_upper"]).all()
    assert (poisson_half["delta_lower"] <= wor["delta_upper"]).all()


def test_lower_bound_drops_the_tail_mass_that_only_pessimistic_truncation_may_add():
    # sigma = 2, T = 1000, eps = 4: the true delta is far below 1e-15; dp-accounting's optimistic
    # composition still reported the 1e-15 it adds to the infinity mass
    frame = delta_table("poisson", 2.0, 1000, [4.0], options=AccountingOptions(pld_method="dp_accounting", pld_min_discretization=1e-4))
    assert frame["delta_lower"].iloc[0] == 0.0
    assert 0 < frame["delta_upper"].iloc[0] < 1e-12


def test_refinement_never_builds_a_level_predicted_over_the_memory_cap():
    run = poisson.PoissonAccounting(0.8, 1000)
    built = []

    def build(pessimistic, interval):
        pld = poisson.poisson_pld(run, pessimistic, interval)
        built.append((pessimistic, interval, max(pld._pmf_remove.size, pld._pmf_add.size)))
        return pld

    uncapped = pld_bounds.refined_bounds(build, "epsilon", [1e-5], 1e-3, 1e-3, 1e-5)
    levels = sorted({interval for _, interval, _ in built}, reverse=True)
    assert len(levels) >= 3  # the test needs a refinement it can cut short
    first_upper = next(size for pessimistic, _, size in built if pessimistic)
    built.clear()
    capped = pld_bounds.refined_bounds(build, "epsilon", [1e-5], 1e-3, 1e-3, 1e-5, max_points=3 * first_upper)
    assert max(size for _, _, size in built) <= 3 * first_upper * 1.5  # only the prediction's error above the cap
    assert len({interval for _, interval, _ in built}) < len(levels)
    assert not capped["converged"][0] and capped["accuracy"][0] > uncapped["accuracy"][0]
    assert capped["lower"][0] <= uncapped["upper"][0] and capped["upper"][0] >= uncapped["lower"][0]


def test_predicted_points_uses_the_growth_of_the_last_two_levels():
    assert pld_bounds.predicted_points([], 1e-5) == 0
    assert pld_bounds.predicted_points([(1e-4, 1000)], 2.5e-5) == pytest.approx(1000 * 4 ** pld_bounds.GROWTH_EXPONENT)
    assert pld_bounds.predicted_points([(1e-4, 1000), (5e-5, 4000)], 2.5e-5) == pytest.approx(16000)
    assert pld_bounds.predicted_points([(1e-4, 1000), (5e-5, 1500)], 2.5e-5) == pytest.approx(3000)  # at least linear
