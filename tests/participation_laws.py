"""The participation laws of the correlated-noise samplers, enumerated from their definitions,
and the chi-square test of observed participation patterns against them (used by the generator
tests and the loader plan tests)."""

import itertools
from collections import Counter

import numpy as np
from scipy import stats

REJECT = 1e-6
"""A chi-square test here rejects at p < 1e-6: a false failure has probability at most ~1e-6."""


def patterns(plan, examples) -> tuple:
    """The participation pattern (a 0/1 tuple over the steps) of each example of ``examples``, joined."""
    return tuple(int(example in set(plan.batch(t).tolist())) for example in examples for t in range(plan.steps))


def chi_square_pvalue(counts: Counter, law: dict, draws: int) -> float:
    assert set(counts) <= {key for key, p in law.items() if p > 0}  # no pattern the law forbids
    observed, expected, rare_observed, rare_expected = [], [], 0, 0.0
    for key, probability in law.items():
        if probability * draws < 5:
            rare_observed, rare_expected = rare_observed + counts[key], rare_expected + probability * draws
        else:
            observed.append(counts[key])
            expected.append(probability * draws)
    if rare_expected > 0:
        observed.append(rare_observed)
        expected.append(rare_expected)
    return stats.chisquare(observed, np.array(expected) * sum(observed) / sum(expected)).pvalue


def b_min_sep_law(steps: int, separation: int, rate: float, warm_start: bool) -> dict:
    """Pr[pattern] of one example, from the definition: the first participation at j - 1 + G (j = 0
    cold; warm: j in [0, b) with weights (1, p, ..., p)), each next at t + b - 1 + G, G ~ Geom(p) on
    {1, 2, ...}."""
    starts = {0: 1.0} if not warm_start else {
        j: (1.0 if j == 0 else rate) / (1 + (separation - 1) * rate) for j in range(separation)}
    law = {}
    for pattern in itertools.product((0, 1), repeat=steps):
        times = [t for t, x in enumerate(pattern) if x]
        probability = 0.0
        for j, weight in starts.items():
            earliest, term = j, weight
            for t in times:
                if t < earliest:
                    term = 0.0
                    break
                term *= rate * (1 - rate) ** (t - earliest)  # G = t - earliest + 1
                earliest = t + separation
            probability += term * (1 - rate) ** max(0, steps - earliest)  # no participation in [earliest, T)
        law[pattern] = probability
    return law
