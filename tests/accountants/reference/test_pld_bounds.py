"""PLD bounds of Poisson and WOR (the reference, ``reference.pld`` and ``reference.pld_bounds``):
valid, ordered, in [0, 1], refined until they meet.

Issue 12, item 6. The grid runs with a coarse discretization so that it stays cheap; the
properties checked (order, range, no NaN, the refinement record) must hold at any interval.
``table`` is what the face's method="dp_accounting" computes (``pld._phase_bounds``, private: the face is the door), with the
intervals as parameters; ``test_the_face_answers_the_reference`` ties the two together.
"""

import math

import numpy as np
import pytest
from scipy import special

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.reference import pld, pld_bounds
from dpsampling.accountants.run import Phase

EPS = [0.0, 0.05, 1.0, 4.0]
DISTANCE = {"poisson": 1.0, "wor": 2.0}  # lebeda24 Thm 10.2: WOR's add/remove pair is Poisson's at distance 2
COARSE = {"start": 1e-3, "minimum": 2.5e-4}


def table(sampler, sigma, steps, values, kind="delta", epochs=1, *, rate=None, start=1e-4, minimum=1e-6,
          accuracy=1e-2):
    """The reference's bounds ({remove,add}_{lower,upper}, lower, upper, discretization, accuracy,
    converged) of ``epochs`` epochs of ``steps`` steps at ``rate`` (default 1 / steps), refined
    from the interval ``start`` down to ``minimum``."""
    phase = Phase(sampler, sigma, steps_per_epoch=steps, epochs=epochs, sampling_rate=rate or 1 / steps)

    def build(pessimistic, discretization):
        return pld.gaussian_pld(phase.sigma, phase.sampling_rate, phase.steps, DISTANCE[sampler], pessimistic,
                                discretization)

    return pld_bounds.refined_bounds(build, kind, values, accuracy, start, minimum)


def _poisson_pld(sigma, steps, pessimistic, interval, epochs=1):
    return pld.gaussian_pld(sigma, 1 / steps, steps * epochs, 1.0, pessimistic, interval)


@pytest.mark.parametrize("sampler", ["poisson", "wor"])
@pytest.mark.parametrize("sigma", [0.5, 0.8, 2.0])
@pytest.mark.parametrize("steps", [10, 1000])
@pytest.mark.parametrize("epochs", [1, 4])
def test_delta_bounds_are_ordered_and_in_the_unit_interval(sampler, sigma, steps, epochs):
    frame = table(sampler, sigma, steps, EPS, "delta", epochs, **COARSE)
    for prefix in ("", "remove_", "add_"):
        lower, upper = frame[f"{prefix}lower"], frame[f"{prefix}upper"]
        assert not np.isnan(lower).any() and not np.isnan(upper).any()
        assert ((0 <= lower) & (lower <= upper) & (upper <= 1)).all(), (prefix, lower, upper)
    # the record: the interval used lies in [min, start]; converged rows meet the target
    assert ((2.5e-4 <= frame["discretization"]) & (frame["discretization"] <= 1e-3)).all()
    met = frame["converged"]
    gap = (np.stack([frame["remove_upper"], frame["add_upper"]], axis=1)
           - np.stack([frame["remove_lower"], frame["add_lower"]], axis=1))
    allowed = np.maximum(1e-2 * np.stack([frame["remove_upper"], frame["add_upper"]], axis=1),
                         pld_bounds.DELTA_ABSOLUTE_ACCURACY)
    assert (gap[met] <= allowed[met] * (1 + 1e-12)).all()
    assert (frame["discretization"][~met] == 2.5e-4).all()  # not met only once the cap is reached
    assert (frame["accuracy"][met] <= 1e-2 * (1 + 1e-12)).all()
    if epochs == 1:  # eps queries: ordered, non-negative, no NaN (cheaper: one epoch only)
        eps = table(sampler, sigma, steps, [1e-5, 1e-2], "epsilon", epochs, **COARSE)
        for prefix in ("", "remove_", "add_"):
            lower, upper = eps[f"{prefix}lower"], eps[f"{prefix}upper"]
            assert not np.isnan(lower).any() and not np.isnan(upper).any()
            assert ((0 <= lower) & (lower <= upper)).all(), (prefix, lower, upper)


def test_add_direction_upper_bound_is_never_negative():
    # measured before the fix: -1.9e-13 (FFT round-off of the composed PMF; see pld_bounds)
    eps = np.linspace(0.0, 6.0, 61)
    frame = table("poisson", 0.8, 1000, eps, "delta", epochs=4, minimum=1e-4)  # default interval, no refinement
    upper, lower = frame["add_upper"], frame["add_lower"]
    assert (upper >= 0).all() and (lower >= 0).all()
    assert (lower <= upper).all()
    # above its largest loss, sum_t log(1 / (1 - q)) ~ 4.0, the add direction's delta is 0; the
    # upper bound keeps only the truncated tail mass and the round-off, both far below 1e-12
    assert (upper[eps > 4.1] < 1e-12).all()


def test_composed_pmf_round_off_is_removed_from_the_upper_bound_only():
    for pessimistic in (True, False):
        raw = _poisson_pld(0.8, 1000, pessimistic, 1e-3, epochs=4)
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
    fixed = table("poisson", 2.0, 1000, eps, minimum=1e-4)
    refined = table("poisson", 2.0, 1000, eps, minimum=2.5e-5)
    assert fixed["lower"][0] < 1e-9  # the optimistic PLD's eps shift is ~ k d / 2 = eps itself
    assert refined["lower"][0] > 100 * fixed["lower"][0]
    assert refined["upper"][0] <= fixed["upper"][0]
    assert refined["discretization"][0] < 1e-4
    # either within the target or flagged: the cap (2.5e-5) is not fine enough here
    gap = max((refined[f"{d}_upper"][0] - refined[f"{d}_lower"][0]) / refined[f"{d}_upper"][0] for d in ("remove", "add")
              if refined[f"{d}_upper"][0] - refined[f"{d}_lower"][0] > pld_bounds.DELTA_ABSOLUTE_ACCURACY)
    assert refined["converged"][0] == (gap <= 1e-2)
    assert refined["accuracy"][0] == pytest.approx(gap, rel=1e-9)  # the larger of the two directions' gaps


@pytest.mark.parametrize("sampler", ["poisson", "wor"])
def test_epsilon_bounds_meet_to_the_relative_accuracy(sampler):
    sigma = 0.8 if sampler == "poisson" else 1.6
    frame = table(sampler, sigma, 10, [1e-5, 1e-3], "epsilon", epochs=4, start=1e-3, minimum=1e-5, accuracy=2e-2)
    assert frame["converged"].all()
    for prefix in ("", "remove_", "add_"):
        lower, upper = frame[f"{prefix}lower"], frame[f"{prefix}upper"]
        assert ((0 <= lower) & (lower <= upper)).all()
    gap = (frame["upper"] - frame["lower"]) / frame["upper"]
    assert (gap <= 2e-2).all() and (frame["accuracy"] <= 2e-2).all()
    # before: eps_lower sat ~k d / 2 = 0.02 below eps_upper at d = 1e-3, k = 40
    unrefined = table(sampler, sigma, 10, [1e-5], "epsilon", epochs=4, start=1e-3, minimum=1e-3, accuracy=1e-3)
    assert unrefined["upper"][0] - unrefined["lower"][0] > 0.01
    assert not unrefined["converged"][0]


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0])
def test_rate_one_single_step_brackets_the_gaussian_mechanism(sigma):
    # T = 1 Poisson at rate 1 is the Gaussian mechanism N(0, s^2) vs N(1, s^2)
    frame = table("poisson", sigma, 1, EPS, start=1e-3, minimum=1e-5, rate=1.0)
    closed = gaussian_delta(np.asarray(EPS), sigma)
    mu = 1.0 / sigma
    direct = np.array([special.ndtr(-e / mu + mu / 2) - math.exp(e) * special.ndtr(-e / mu - mu / 2) for e in EPS])
    np.testing.assert_allclose(closed, direct, rtol=1e-9, atol=1e-300)
    for direction in ("remove_", "add_", ""):
        assert (frame[f"{direction}lower"] <= closed * (1 + 1e-9) + 1e-15).all()
        assert (closed <= frame[f"{direction}upper"] * (1 + 1e-9) + 1e-15).all()
    assert frame["converged"].all()


@pytest.mark.parametrize("relation", ["add", "remove"])
def test_wor_at_sigma_is_poisson_at_half_sigma_per_direction(relation):
    wor = table("wor", 1.6, 20, EPS, rate=0.05, **COARSE)
    poisson_half = table("poisson", 0.8, 20, EPS, rate=0.05, **COARSE)
    for column in (f"{relation}_lower", f"{relation}_upper", "discretization"):
        np.testing.assert_allclose(wor[column], poisson_half[column], rtol=1e-9, atol=1e-15)
    # and the brackets overlap, so both contain the common true value
    assert (wor[f"{relation}_lower"] <= poisson_half[f"{relation}_upper"]).all()
    assert (poisson_half[f"{relation}_lower"] <= wor[f"{relation}_upper"]).all()


def test_lower_bound_drops_the_tail_mass_that_only_pessimistic_truncation_may_add():
    # sigma = 2, T = 1000, eps = 4: the true delta is far below 1e-15; dp-accounting's optimistic
    # composition still reported the 1e-15 it adds to the infinity mass
    frame = table("poisson", 2.0, 1000, [4.0], minimum=1e-4)
    assert frame["lower"][0] == 0.0
    assert 0 < frame["upper"][0] < 1e-12


def test_refinement_never_builds_a_level_predicted_over_the_memory_cap():
    built = []

    def build(pessimistic, interval):
        composed = _poisson_pld(0.8, 1000, pessimistic, interval)
        built.append((pessimistic, interval, max(composed._pmf_remove.size, composed._pmf_add.size)))
        return composed

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


@pytest.mark.parametrize(("sampler", "sigma", "relation"), [("poisson", 0.8, "add_or_remove"), ("wor", 1.6, "remove")])
def test_the_face_answers_the_reference(sampler, sigma, relation):
    """Accountant(method="dp_accounting") is the reference refined from pld.DISCRETIZATION down to
    pld.MIN_DISCRETIZATION at the accuracy asked for, every direction, with its record."""
    phase = Phase(sampler, sigma, steps=20, sampling_rate=0.05)
    frame = Accountant([phase], relation=relation, accuracy=2e-2, method="dp_accounting").delta_bounds(EPS)
    ours = table(sampler, sigma, 20, EPS, rate=0.05, start=pld.DISCRETIZATION, minimum=pld.MIN_DISCRETIZATION,
                 accuracy=2e-2)
    for direction, prefix in (("remove", "remove_"), ("add", "add_"), ("max", "")):
        rows = frame[frame["direction"] == direction]
        np.testing.assert_array_equal(rows["delta_lower"], ours[f"{prefix}lower"])
        np.testing.assert_array_equal(rows["delta_upper"], ours[f"{prefix}upper"])
    assert frame.attrs["computation"]["discretization"] == ours["discretization"].tolist()
    assert frame.attrs["computation"]["converged_rows"] == ours["converged"].tolist()
    headline = frame[frame["direction"] == frame.attrs["headline"]]
    assert frame.attrs["headline"] == ("max" if relation == "add_or_remove" else relation)
    assert (headline["delta_upper"].to_numpy() == ours[f"{'' if relation == 'add_or_remove' else relation + '_'}upper"]).all()
