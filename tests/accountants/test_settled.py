"""Calibration at the price of an estimate (issue 41): an evaluation refined only until it settles
"is eps <= target?" gives the verdict of the fully refined answer, so the calibrations built on it
answer what full evaluations would, bit for bit. Deterministic checks against a slow reference
(a bisection that asks ``get_epsilon`` at every step)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.calibrate import calibrate_sigma
from dpsampling.accountants.certified import engine
from dpsampling.accountants.knobs import calibrate_knob
from dpsampling.accountants.run import Phase

RUNS = [
    Phase("poisson", 0.9, sampling_rate=0.01, steps=1000),
    Phase("wor", 1.2, sampling_rate=0.02, steps=300),
    Phase("balls_and_bins", 0.8, steps_per_epoch=50, epochs=3),
    Phase("deterministic", 4.0, steps_per_epoch=20, epochs=1),
]


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.sampler)
def test_a_settled_bracket_gives_the_full_answers_verdict_and_contains_its_bracket(run):
    """For targets at and around the full answer (within 0.1% of it, where a coarse grid cannot
    decide, and far from it, where it can): upper <= target exactly when the full upper is, lower
    > target only when the full upper is above it too, and the settled bracket holds the full one."""
    delta = 1e-6
    full = Accountant(run).epsilon_bounds([delta])
    row = full[full["direction"] == full.attrs["headline"]].iloc[0]
    lower, upper = float(row["epsilon_lower"]), float(row["epsilon_upper"])
    for target in upper * np.array([0.5, 0.98, 0.999, 1.0, 1.001, 1.02, 2.0]):
        settled_lower, settled_upper = Accountant(run).epsilon_settled(delta, float(target))
        assert (settled_upper <= target) == (upper <= target)
        assert not settled_lower > target or upper > target
        assert settled_lower <= lower and settled_upper >= upper


def _reference_sigma(phase: Phase, target: float, delta: float, rtol: float) -> tuple[float, float]:
    """The bisection of ``calibrate_sigma`` with a full answer at every step (its path before
    issue 41): (sigma shown sufficient, sigma not shown sufficient)."""
    def sufficient(sigma):
        return Accountant(phase.with_sigma(sigma)).get_epsilon(delta) <= target

    low, high = (1.0, 1.0)
    if sufficient(1.0):
        while sufficient(low):
            high, low = low, low / 2.0
    else:
        while not sufficient(high):
            low, high = high, high * 2.0
    while high / low - 1.0 > rtol:
        mid = math.sqrt(low * high)
        low, high = (low, mid) if sufficient(mid) else (mid, high)
    return high, low


@pytest.mark.parametrize("run", RUNS[:3], ids=lambda p: p.sampler)
def test_calibrate_sigma_answers_what_full_evaluations_answer(run):
    target, delta, rtol = 2.0, 1e-5, 1e-2
    result = calibrate_sigma(run, target, delta, rtol=rtol)
    assert (result.sigma, result.sigma_not_shown_sufficient) == _reference_sigma(run, target, delta, rtol)
    assert result.epsilon_upper == Accountant(run.with_sigma(result.sigma)).get_epsilon(delta) <= target


def test_a_knob_calibration_answers_what_full_evaluations_answer():
    """Steps: the largest shown sufficient, its neighbour not, each verdict the full answer's."""
    run = Phase("poisson", 1.0, sampling_rate=0.01, steps=500)
    result = calibrate_knob(run, "steps", 2.0, 1e-5)
    at = Accountant(Phase("poisson", 1.0, sampling_rate=0.01, steps=result.value)).get_epsilon(1e-5)
    beyond = Accountant(Phase("poisson", 1.0, sampling_rate=0.01, steps=result.value_not_shown)).get_epsilon(1e-5)
    assert result.value_not_shown == result.value + 1
    assert result.epsilon_upper == at <= 2.0 < beyond


def test_reused_laws_are_the_laws_built_anew():
    """``reusing_laws`` hands back the laws of a run and level already built: the same numbers."""
    phases = (Phase("poisson", 1.0, sampling_rate=0.01, steps=200),)
    fresh, largest = engine._run_laws(phases, 1)
    with engine.reusing_laws():
        first, _ = engine._run_laws(phases, 1)
        again, _ = engine._run_laws(phases, 1)
    assert again is first
    assert np.array_equal(first.points.p, fresh.points.p) and first.h == fresh.h
    assert engine._kept_laws is None  # nothing is kept outside the block


def test_the_face_refuses_an_accuracy_or_rtol_floating_point_cannot_reach():
    """Issue 42 from Python: 1e-300 failed inside the kernels (accuracy) or bisected for ever (rtol)."""
    run = Phase("poisson", 1.0, sampling_rate=0.01, steps=100)
    with pytest.raises(ValueError, match=r"^accuracy must be at least 1e-06.*got 1e-300$"):
        Accountant(run, accuracy=1e-300)
    with pytest.raises(ValueError, match=r"^rtol must be at least 1e-09.*got 1e-300$"):
        calibrate_sigma(run, 2.0, 1e-5, rtol=1e-300)
    with pytest.raises(ValueError, match=r"^rtol must be at least"):
        calibrate_knob(run, "steps", 2.0, 1e-5, rtol=1e-300)
