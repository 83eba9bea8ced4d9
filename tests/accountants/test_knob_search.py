"""The integer knobs' narrowing (issue 41): where it looks is guided by the first grid's bounds
(``engine.level_upper``) and the most refined evaluations, but every verdict is a certified
evaluation's, so the adjacent pair found is the one any search finds where the verdicts are
monotone; and it never needs more than a few evaluations per halving, whatever the guide says."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.certified import engine
from dpsampling.accountants.knobs import _largest_integer, budget_left, calibrate_knob
from dpsampling.accountants.run import Phase


class _Stub:
    """A search over a monotone eps(k) = scale k^0.3 with settled brackets [0.99 eps, (1 + bias) eps]
    and a guide (the first grid's upper) that may lie."""

    def __init__(self, target: float, guide, bias=lambda k: 0.0):
        self.target, self._guide, self.bias = target, guide, bias
        self.seen: dict = {}
        self.guides: dict = {}

    def bounds(self, k):
        if k not in self.seen:
            eps = 0.1 * k**0.3
            self.seen[k] = (0.99 * eps, (1.0 + self.bias(k)) * eps)
        return self.seen[k]

    def guide(self, k):
        return self._guide(k)

    def sufficient(self, k):
        return self.bounds(k)[1] <= self.target


GUIDES = {
    "none": lambda k: None,
    "true": lambda k: 0.1 * k**0.3 * 1.003,
    "lying": lambda k: 1.0 + math.sin(k),
    "flat": lambda k: 1.0,
}


@pytest.mark.parametrize("guide", GUIDES, ids=str)
@pytest.mark.parametrize("target", [0.7, 1.3, 2.9, 4.5])
def test_the_narrowing_finds_the_adjacent_pair_in_a_few_evaluations_per_halving(guide, target):
    bias = lambda k: 1e-3 * (1.0 + 0.5 * math.cos(k / 1000.0))  # noqa: E731 - a bias that moves slowly
    search = _Stub(target, GUIDES[guide], bias)
    low, high = _largest_integer(search, 1000, 1, 10**9)
    assert high == low + 1 and search.sufficient(low) and not search.sufficient(high)
    # doubling from 1000, then at most WEAK_GUESSES + 1 evaluations per halving of the bracket
    assert len(search.seen) <= 2 + abs(math.log2(low / 1000.0)) + 4 * (math.log2(max(low, 1000)) + 1)


def test_a_first_grids_bound_is_read_from_the_laws_kept_and_is_valid():
    """``level_upper`` builds nothing: None outside ``reusing_laws`` or for laws not built; inside,
    the first grid's upper bound, at or above the refined one (the engine keeps the best level)."""
    run = Phase("poisson", 1.0, sampling_rate=0.01, steps=300)
    column = 2  # max
    assert engine.level_upper((run,), 1e-5, column) is None
    with engine.reusing_laws():
        assert engine.level_upper((run,), 1e-5, column) is None
        upper = Accountant(run).get_epsilon(1e-5)
        first = engine.level_upper((run,), 1e-5, column)
    assert first is not None and upper <= first < 1.05 * upper
    with engine.reusing_laws():  # a Gaussian mechanism has no grid
        Accountant(Phase("deterministic", 4.0, steps_per_epoch=20, epochs=1)).get_epsilon(1e-5)
        assert engine.level_upper((Phase("deterministic", 4.0, steps_per_epoch=20, epochs=1),), 1e-5, column) is None


def test_the_guided_narrowing_asks_few_evaluations_and_answers_as_full_evaluations_do():
    """Steps and the budget left: the pair of full answers (upper <= target < the next's), in at
    most six certified evaluations each (ten and fourteen before the guide)."""
    run = Phase("poisson", 1.0, sampling_rate=0.01, steps=500)
    result = calibrate_knob(run, "steps", 2.0, 1e-5)
    at = Accountant(Phase("poisson", 1.0, sampling_rate=0.01, steps=result.value)).get_epsilon(1e-5)
    beyond = Accountant(Phase("poisson", 1.0, sampling_rate=0.01, steps=result.value + 1)).get_epsilon(1e-5)
    assert at <= 2.0 < beyond and result.value_not_shown == result.value + 1 and result.evaluations <= 6
    so_far = Phase("poisson", 1.1, sampling_rate=0.01, steps=500)
    budget = budget_left(so_far, 2.0, 1e-5)
    total = so_far.steps + budget.more
    assert Accountant(Phase("poisson", 1.1, sampling_rate=0.01, steps=total)).get_epsilon(1e-5) <= 2.0
    assert Accountant(Phase("poisson", 1.1, sampling_rate=0.01, steps=total + 1)).get_epsilon(1e-5) > 2.0
    assert np.isfinite(budget.epsilon_spent_upper)
