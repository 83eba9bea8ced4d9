"""The correlated-noise samplers' generators (``batches.cyclic_poisson_batches``,
``fixed_balls_and_bins_batches``, ``b_min_sep_batches``): the empirical law of the examples'
participation patterns against the law their definitions give, computed here by enumeration.

Each chi-square test rejects at p < 1e-6: its false-failure probability is at most ~1e-6
(asymptotic chi-square; cells expected below 5 draws are merged). Seeded, so a failure reproduces.
"""

import itertools
from collections import Counter

import numpy as np
import pytest
from participation_laws import REJECT
from participation_laws import b_min_sep_law as _b_min_sep_law
from participation_laws import chi_square_pvalue as _chi_square_pvalue
from participation_laws import patterns as _patterns

from dpsampling import audit, batches


def test_the_b_min_sep_law_enumerated_here_sums_to_one():
    for warm in (False, True):
        assert sum(_b_min_sep_law(6, 3, 0.35, warm).values()) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("warm_start", [False, True])
def test_b_min_sep_patterns_follow_the_renewal_law(warm_start):
    """n = 2 examples, T = 6, b_sep = 3, p = 0.35: the joint pattern of the two is the product of
    the enumerated laws (independent examples); 20,000 draws."""
    law = _b_min_sep_law(6, 3, 0.35, warm_start)
    joint = {a + b: law[a] * law[b] for a in law for b in law}
    draws = 20_000
    rng = np.random.default_rng(44)
    counts = Counter(_patterns(batches.b_min_sep_batches(2, 6, 3, 0.35, warm_start, rng), (0, 1)) for _ in range(draws))
    assert _chi_square_pvalue(counts, joint, draws) > REJECT


def test_cyclic_poisson_patterns_are_independent_bernoulli_on_the_groups_steps():
    """n = 3, k = 2, T = 4, q = 0.3: examples 0 and 2 (group 0) join at steps 0 and 2, example 1
    (group 1) at steps 1 and 3, each independently with probability q; never elsewhere."""
    q, draws = 0.3, 20_000
    groups_steps = {0: {0, 2}, 1: {1, 3}, 2: {0, 2}}
    law = {}
    for pattern in itertools.product((0, 1), repeat=12):
        probability = 1.0
        for example in range(3):
            for t in range(4):
                x = pattern[4 * example + t]
                probability *= (q if x else 1 - q) if t in groups_steps[example] else float(x == 0)
        law[pattern] = probability
    rng = np.random.default_rng(45)
    counts = Counter(_patterns(batches.cyclic_poisson_batches(3, 4, 2, q, rng), (0, 1, 2)) for _ in range(draws))
    assert _chi_square_pvalue(counts, law, draws) > REJECT


def test_fixed_balls_and_bins_keeps_one_uniform_bin_for_every_cycle():
    """n = 2, k = 3, T = 7: each example's pattern is the indicator of the steps t = s mod 3 of
    one uniform bin s, independently: 9 joint patterns of probability 1/9 (9,000 draws)."""
    cycles = [tuple(int(t % 3 == s) for t in range(7)) for s in range(3)]
    law = {a + b: 1 / 9 for a in cycles for b in cycles}
    draws = 9_000
    rng = np.random.default_rng(46)
    counts = Counter(_patterns(batches.fixed_balls_and_bins_batches(2, 7, 3, rng), (0, 1)) for _ in range(draws))
    assert _chi_square_pvalue(counts, law, draws) > REJECT


def test_the_generators_are_seeded():
    for draw in (lambda seed: batches.cyclic_poisson_batches(50, 9, 4, 0.3, seed),
                 lambda seed: batches.fixed_balls_and_bins_batches(50, 9, 4, seed),
                 lambda seed: batches.b_min_sep_batches(50, 9, 3, 0.3, True, seed)):
        first, again, other = draw(7), draw(7), draw(8)
        assert np.array_equal(first.indices, again.indices) and np.array_equal(first.offsets, again.offsets)
        assert not (np.array_equal(first.indices, other.indices) and np.array_equal(first.offsets, other.offsets))


@pytest.mark.parametrize("call, message", [
    (lambda: batches.cyclic_poisson_batches(5, 4, 6, 0.5), "cycle_length must be at most n = 5"),
    (lambda: batches.cyclic_poisson_batches(5, 4, 2, 1.5), "sampling_rate must be"),
    (lambda: batches.fixed_balls_and_bins_batches(5, 0, 2), "steps must be an integer >= 1"),
    (lambda: batches.b_min_sep_batches(5, 4, 0, 0.5), "min_separation must be an integer >= 1"),
    (lambda: batches.b_min_sep_batches(5, 4, 2, 0.5, warm_start="yes"), "warm_start must be True or False"),
])
def test_bad_inputs(call, message):
    with pytest.raises(ValueError, match=message):
        call()


class _Cycles:
    """A loader of ``epochs`` epochs of ``length`` steps each, every iteration a fresh draw of the generator."""

    def __init__(self, draw, length: int):
        self.draw, self.length, self.count = draw, length, 0

    def __iter__(self):
        self.count += 1
        return iter(list(self.draw(self.count)))

    def __len__(self):
        return self.length


def test_the_audit_recognises_the_correlated_noise_generators():
    """The generators' batches (example i in group i mod k: a fixed grouping) are named as their
    sampler: cyclic Poisson (each example at one step of the cycle), b-min-sep (no two
    participations closer than b_sep) and fixed balls-and-bins (the same partition every cycle). Each
    verdict errs with probability <= the audit's alpha 1e-3 (its stated false-alarm rate)."""
    n, k = 600, 12
    loaders = {
        "cyclic_poisson": _Cycles(lambda s: batches.cyclic_poisson_batches(n, k, k, 0.5, s), k),
        "fixed_balls_and_bins": _Cycles(lambda s: batches.fixed_balls_and_bins_batches(n, k, k, seed=3), k),
    }
    for name, loader in loaders.items():
        verdict = audit(loader, dataset_size=n, seed=1)
        assert verdict.sampler == name and verdict.matches, (name, verdict.behaviour())
    # b-min-sep is one process over the run: its epochs cut from one pass
    run = batches.b_min_sep_batches(n, 120, 4, 0.2, True, seed=2)
    verdict = audit([run.batch(t) for t in range(run.steps)], dataset_size=n, steps_per_epoch=40)
    assert verdict.sampler == "b_min_sep" and verdict.matches and verdict.facts["min_separation"] == 4, \
        verdict.behaviour()
