"""Certified balls-and-bins bounds: the Accountant on a balls_and_bins phase (certified.ballsbins's laws).

Statistical test: the Monte Carlo comparison allows z = 5 standard errors on each side where
delta > 1e-3 (normal approximation: <= 5.8e-7 per check, at most 30 checks) and checks our lower
bound against the KL upper confidence bound at beta = 1e-6 (30 checks): a false failure has
probability <= 5e-5. The samples are seeded, so the outcome is fixed for a given numpy/numba.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from law_budgets import STEP_RAISE
from scipy import optimize

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.calibrate import calibrate_sigma
from dpsampling.accountants.certified import _kernels, hockey
from dpsampling.accountants.certified import ballsbins as _laws
from dpsampling.accountants.certified.compose import COARSEST_STEP, SPREAD_SCALE
from dpsampling.accountants.certified.engine import ENGINE_VERSION, _run_laws, delta_rows
from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.accountants.run import Phase

EPS = np.array([0.0, 0.013, 0.37, 1.0, 2.71, 5.0])
ROUNDING = 1e-12


def _phase(sigma, steps, epochs=1):
    return Phase("balls_and_bins", sigma, steps_per_epoch=steps, epochs=epochs)


def ballsbins_delta_bounds(sigma, steps, epsilons, *, epochs=1, accuracy=0.01, **options):
    """The face's frame of K epochs of T = ``steps`` steps of balls-and-bins (delta at each eps)."""
    return Accountant([_phase(sigma, steps, epochs)], accuracy=accuracy, **options).delta_bounds(epsilons)


def ballsbins_epsilon_bounds(sigma, steps, deltas, *, epochs=1, accuracy=0.01, **options):
    return Accountant([_phase(sigma, steps, epochs)], accuracy=accuracy, **options).epsilon_bounds(deltas)


def _rows(frame, direction):
    return frame[frame["direction"] == direction]


def _inside(lower, value, upper, rel=ROUNDING, absolute=1e-15):
    lower, value, upper = map(np.asarray, (lower, value, upper))
    assert np.all(lower <= value * (1 + rel) + absolute), (lower, value)
    assert np.all(value <= upper * (1 + rel) + absolute), (value, upper)


# ---------------------------------------------------------------- closed forms and integrals

@pytest.mark.parametrize("sigma", [0.6, 1.0, 2.5])
def test_one_step_is_the_gaussian_mechanism(sigma):
    """T = 1 is the Gaussian mechanism: inside the bracket, within 1e-3 of it wherever delta is
    above 100 times the tails the engine charged (``computation["excess"]``)."""
    frame = ballsbins_delta_bounds(sigma, 1, EPS, accuracy=1e-3)
    exact = gaussian_delta(EPS, sigma)
    computation = frame.attrs["computation"]
    assert 0.0 < computation["relative_error"] < 1e-6
    for direction in ("remove", "add", "max"):
        rows = _rows(frame, direction)
        _inside(rows["delta_lower"], exact, rows["delta_upper"], rel=0.0, absolute=0.0)
        big = exact > 100 * computation["excess"]
        gap = (rows["delta_upper"] - rows["delta_lower"]).to_numpy()[big] / exact[big]
        assert gap.max() <= 1e-3
        assert rows["converged"].to_numpy()[big].all()
        assert not np.any(rows["converged"].to_numpy() & (rows["accuracy"].to_numpy() > 1e-3))
    assert computation["converged"] == frame.loc[frame["delta_upper"] > computation["accuracy_floor"], "converged"].all()
    assert computation["method"] == "certified" and computation["engine_version"] == ENGINE_VERSION


def test_refinement_never_widens_the_bracket():
    eps = np.array([0.2, 1.0, 3.0])
    previous = None
    for refinement in range(3):
        laws, _ = _run_laws((_phase(0.7, 30, 2),), refinement)
        rows = delta_rows(laws, eps)
        if previous is not None:
            for lower, upper in ((0, 1), (2, 3)):
                assert np.all(rows[:, upper] <= previous[:, upper] * (1 + 1e-9) + 1e-15)
                assert np.all(rows[:, lower] >= previous[:, lower] * (1 - 1e-9) - 1e-15)
        previous = rows



@pytest.mark.parametrize("steps", [1, 8, 100])
def test_the_face_reports_the_grid_of_one_step(steps):
    """``computation["grid_step_bottom"]``: the grid of one step's law (the bottom of ``level_steps``,
    what chua25's records read from the face), coarser than the top grid or equal to it; absent
    where the laws are not balls-and-bins'."""
    computation = ballsbins_delta_bounds(0.8, steps, [1.0]).attrs["computation"]
    top = computation["grid_step"]
    assert computation["grid_step_bottom"] == _laws.level_steps(0.8, steps, top, COARSEST_STEP, SPREAD_SCALE)[1]
    assert computation["grid_step_bottom"] >= top
    poisson = Accountant(Phase("poisson", 0.8, sampling_rate=0.1, steps=10)).delta_bounds([1.0])
    assert "grid_step_bottom" not in poisson.attrs["computation"]

def test_epsilon_bounds_shape_and_order():
    frame = ballsbins_epsilon_bounds(1.0, 196, [1e-5], epochs=10)
    assert list(frame.columns) == ["delta", "direction", "epsilon_lower", "epsilon_upper", "accuracy", "converged",
                                   "lower_method", "upper_method"]
    row = _rows(frame, "max").iloc[0]
    assert 0 <= row["epsilon_lower"] <= row["epsilon_upper"] <= 1.01 * row["epsilon_lower"]
    assert frame.attrs["computation"]["converged"]


def test_calibration_brackets_the_gaussian_mechanism_sigma():
    target, delta = 1.0, 1e-5
    exact = optimize.brentq(lambda s: gaussian_delta([target], s)[0] - delta, 0.5, 20)
    result = calibrate_sigma(_phase(1.0, 1), target, delta, accuracy=1e-3)
    sufficient, insufficient = result.sigma, result.sigma_not_shown_sufficient
    assert insufficient < sufficient <= insufficient * (1 + result.rtol)
    assert sufficient >= exact
    assert insufficient >= exact * 0.99


# ---------------------------------------------------------------- kernels against naive loops

def _naive_average_points(pa, a0, pb, b0, w, h):
    out = {}
    for i, p in enumerate(pa):
        for j, q in enumerate(pb):
            u = w * math.exp((a0 + i) * h) + (1 - w) * math.exp((b0 + j) * h)
            k = math.floor(math.log(u) / h)
            theta = (u - math.exp(k * h)) / (math.exp((k + 1) * h) - math.exp(k * h))
            out[k] = out.get(k, 0.0) + p * q * (1 - theta)
            out[k + 1] = out.get(k + 1, 0.0) + p * q * theta
    return out


def _naive_average_means(ma, lva, a0, mb, lvb, b0, w, h, o0, o1):
    mass, moment = {}, {}
    for i, p in enumerate(ma):
        for j, q in enumerate(mb):
            u = w * math.exp(lva[i]) + (1 - w) * math.exp(lvb[j])
            k = min(max(math.floor(math.log(u) / h), o0), o1)
            mass[k] = mass.get(k, 0.0) + p * q
            moment[k] = moment.get(k, 0.0) + p * q * u
    return mass, moment


def _random_means(rng, n, k0, h):
    m = rng.random(n)
    m /= m.sum()
    lv = (k0 + np.arange(n) + rng.random(n)) * h
    lv[0] -= 3 * h  # open-ended end cells
    lv[-1] += 2 * h
    return m, lv


@pytest.mark.parametrize("w", [0.5, 3 / 7])
def test_average_kernels_match_naive_loops(w):
    rng = np.random.default_rng(5)
    h = 0.05
    pa, pb = rng.random(40), rng.random(25)
    out, o0, _ = _kernels.average_points(pa, -10, pb, 3, w, h)
    naive = _naive_average_points(pa, -10, pb, 3, w, h)
    for k, value in naive.items():
        assert out[k - o0] == pytest.approx(value, rel=1e-9, abs=1e-13)
    assert out.sum() == pytest.approx(sum(naive.values()), rel=1e-12)
    ma, lva = _random_means(rng, 40, -10, h)
    mb, lvb = _random_means(rng, 25, 3, h)
    mass, lv, o0 = _kernels.average_means(ma, lva, -10, mb, lvb, 3, w, h)[:3]
    naive_mass, naive_moment = _naive_average_means(ma, lva, -10, mb, lvb, 3, w, h, o0,
                                                    o0 + mass.size - 1)
    for k, value in naive_mass.items():
        assert mass[k - o0] == pytest.approx(value, rel=1e-9, abs=1e-14)
        assert lv[k - o0] == pytest.approx(math.log(naive_moment[k] / value), abs=1e-9)


def test_product_and_hockey_stick_kernels_match_naive_sums():
    rng = np.random.default_rng(6)
    h = 0.1
    ma, lva = _random_means(rng, 12, -4, h)
    mb, lvb = _random_means(rng, 9, 2, h)
    mass, lv, o0 = _kernels.multiply_means(ma, lva, -4, mb, lvb, 2, h)[:3]
    values = np.exp(lva[:, None] + lvb[None, :]).ravel()
    weights = (ma[:, None] * mb[None, :]).ravel()
    assert mass.sum() == pytest.approx(1.0)
    assert np.sum(mass * np.exp(lv)) == pytest.approx(np.sum(weights * values), rel=1e-12)
    for eps in (0.0, 0.3, 1.1):
        assert hockey.lower_delta(mass, lv, eps, True, 0.0) <= np.sum(
            weights * np.maximum(values - math.exp(eps), 0)) + 1e-15
        assert hockey.lower_delta(ma, lva, eps, False, 0.0) == pytest.approx(
            np.sum(ma * np.maximum(1 - math.exp(eps) * np.exp(lva), 0)), rel=1e-12, abs=1e-15)
    out, o0, _ = _kernels.multiply_points(ma, -4, mb, 2)
    assert o0 == -2 and np.allclose(out, np.convolve(ma, mb))


def test_initial_laws_keep_mass_and_mean():
    points, means = _laws.y_laws(0.7, 0.02, tail_scale=10.0)
    assert 1 - 1e-15 <= points.p.sum() <= 1 + STEP_RAISE  # raised by its proven bounds (``rounding``)
    # the spread keeps the mean of Y clipped to the grid, E[Y] = 1 up to the clipped tail
    assert points.mean(0.02) + points.remove_excess >= 1.0 - 1e-12
    assert means.m.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.sum(means.m * np.exp(means.lv)) == pytest.approx(1.0, abs=1e-10)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs,message", [
    ({"sigma": -0.5}, "sigma must be positive and finite; got -0.5"),
    ({"sigma": 0}, "sigma must be positive"),
    ({"steps": 0}, "steps_per_epoch must be an integer >= 1; got 0"),
    ({"steps": 2.5}, "steps_per_epoch must be an integer"),
    ({"epochs": 0}, "epochs must be an integer >= 1; got 0"),
    ({"accuracy": 0.0}, "accuracy must be in the open interval (0, 1); got 0.0"),
    ({"accuracy": 1.0}, "accuracy must be in the open interval (0, 1)"),
    ({"max_grid_points": 10}, "max_grid_points must be at least"),
])
def test_bad_inputs(kwargs, message):
    args = {"sigma": 1.0, "steps": 10, "epochs": 1, "accuracy": 0.01}
    args.update(kwargs)
    sigma, steps = args.pop("sigma"), args.pop("steps")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ballsbins_delta_bounds(sigma, steps, [1.0], **args)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ballsbins_epsilon_bounds(sigma, steps, [1e-5], **args)


def test_bad_query_values():
    with pytest.raises(ValueError, match="epsilon must be non-negative"):
        ballsbins_delta_bounds(1.0, 10, [-1.0])
    with pytest.raises(ValueError, match="delta must be in the open interval"):
        ballsbins_epsilon_bounds(1.0, 10, [0.0])
    with pytest.raises(ValueError, match="target_epsilon must be positive"):
        calibrate_sigma(_phase(1.0, 10), -1.0, 1e-5)


# ---------------------------------------------------------------- pld-accounting (optional)

def test_agrees_with_pld_accounting_geometric_route():
    peer = pytest.importorskip("PLD_accounting")
    sigma, steps, epochs, delta = 1.0, 20, 2, 1e-5
    peer_upper, peer_lower = peer.gaussian_allocation_epsilon_range(
        delta=delta, sigma=sigma, num_steps=steps, num_epochs=epochs)
    row = _rows(ballsbins_epsilon_bounds(sigma, steps, [delta], epochs=epochs, accuracy=1e-3),
                "max").iloc[0]
    # both are brackets of the same number: they must overlap
    assert peer_lower <= row["epsilon_upper"] * (1 + 1e-9)
    assert row["epsilon_lower"] <= peer_upper * (1 + 1e-9)


def test_sigma_below_the_supported_range_is_refused():
    with pytest.raises(ValueError, match="sigma must be >= 0.05"):
        ballsbins_delta_bounds(0.01, 10, [1.0])
