"""The audit recognises the correlated-noise samplers' loaders (issue 44) by their signatures, and
does not take the papers' samplers' batches for them (verdict module docstring, docs/AUDIT.md)."""

import math

import pytest
from scipy import stats

from dpsampling import Phase, audit
from dpsampling.auditing import check_accountant
from dpsampling.auditing.check import loader_phase
from dpsampling.auditing.signatures import consecutive_miss_probability
from dpsampling.batches import LOADER_SAMPLERS, BatchSampler, Participation

N, B = 2_000, 64
PARTICIPATIONS = {"cyclic_poisson": Participation(sampling_rate=0.5),
                  "b_min_sep": Participation(sampling_rate=0.2, min_separation=4, warm_start=True),
                  "fixed_balls_and_bins": None}


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_each_correlated_noise_loader_is_named(seed):
    """False-failure probability: at most 3 seeds x 3 loaders x alpha 1e-3 = 0.009 (the audit's
    stated false-alarm rate; seeded, so the test does not flake)."""
    for name, participation in PARTICIPATIONS.items():
        verdict = audit(BatchSampler(name, N, B, epochs=3, seed=seed, participation=participation))
        assert verdict.sampler == name and verdict.matches, (name, verdict.behaviour(), verdict.tests)


def test_the_signatures_facts_and_bounds():
    cyclic = audit(BatchSampler("cyclic_poisson", N, B, epochs=3, seed=1, participation=PARTICIPATIONS["cyclic_poisson"]))
    assert cyclic.bound == ("sampler", "cyclic_poisson") and cyclic.facts["cycle_length"] == math.ceil(N / B)
    assert abs(cyclic.facts["rate"] - 0.5) < 0.05  # 6,000 Bernoulli(0.5) presences: 7 standard deviations
    separated = audit(BatchSampler("b_min_sep", N, B, epochs=3, seed=1, participation=PARTICIPATIONS["b_min_sep"]))
    # every example at most ceil(T / b) times per epoch: the certified deterministic bound
    assert separated.facts["min_separation"] == 4 and separated.bound == ("per_epoch_cap", math.ceil(32 / 4))
    assert "Monte Carlo" in separated.consequence()
    fixed = audit(BatchSampler("fixed_balls_and_bins", N, B, epochs=3, seed=1))
    assert fixed.bound == ("sampler", "fixed_balls_and_bins") and fixed.facts["epochs_repeat"]
    assert "sigma / sqrt(K)" in fixed.consequence() and "drawn afresh for each run" in fixed.consequence()


@pytest.mark.parametrize("seed", range(5))
def test_the_papers_samplers_are_not_taken_for_the_correlated_noise_samplers(seed):
    """The papers' five samplers keep their own names at alpha 0.1 and at the default. A chance
    signature is far rarer than alpha here: the partition samplers place all n = 2,000 examples afresh
    each epoch (all at their old step: probability T^-2000), and Poisson or wor at q = 0.032 over
    96 steps put no example in two consecutive steps with probability (1 - q^2)^(n (S - 1)) < 1e-80
    (computed below)."""
    assert consecutive_miss_probability(N, 96, B / N) < 1e-80
    for name in LOADER_SAMPLERS:
        for alpha in (0.1, 1e-3):
            verdict = audit(BatchSampler(name, N, B, epochs=3, seed=seed), alpha=alpha)
            assert verdict.sampler not in PARTICIPATIONS, (name, alpha, verdict.behaviour())
            if alpha == 1e-3:  # the audit's stated false-alarm rate: 5 seeds x 5 samplers x 1e-3
                assert verdict.sampler == name, (name, verdict.behaviour())


def test_the_check_accounts_each_correlated_noise_loader_on_its_own_run():
    sigma, delta, steps = 1.5, 1e-5, 3 * 32
    assumed = Phase("poisson", sigma, sampling_rate=B / N, steps=steps)
    cyclic = audit(BatchSampler("cyclic_poisson", N, B, epochs=3, seed=1, participation=PARTICIPATIONS["cyclic_poisson"]))
    mine = loader_phase(cyclic, assumed)
    assert (mine.sampler, mine.steps_per_epoch, mine.epochs) == ("cyclic_poisson", 32, 3)
    assert mine.sampling_rate >= cyclic.facts["rate"]  # the upper confidence bound of the rate seen
    check = check_accountant(cyclic, assumed, delta)
    assert check.mismatch and "cyclic_poisson at q = " in check.sentence
    fixed = audit(BatchSampler("fixed_balls_and_bins", N, B, epochs=3, seed=1))
    assert loader_phase(fixed, assumed) == Phase("fixed_balls_and_bins", sigma, steps_per_epoch=32, epochs=3)
    separated = audit(BatchSampler("b_min_sep", N, B, epochs=3, seed=1, participation=PARTICIPATIONS["b_min_sep"]))
    assert loader_phase(separated, assumed) == Phase("deterministic", sigma, steps_per_epoch=32, epochs=8 * 3)


def test_the_false_alarm_rate_on_the_correlated_noise_loaders_is_at_most_alpha():
    """At alpha = 0.1, 40 seeded runs of each (n 600, b 20, 3 epochs): the runs not named right
    are at most Bin(40, 0.1)'s 1 - 1e-4 quantile (false-failure probability <= 1e-4 per loader
    where the tests' approximations hold; measured 6, 3 and 12 of 200 at these sizes, docs/AUDIT.md)."""
    alpha, runs, n, b = 0.1, 40, 600, 20
    limit = stats.binom.isf(1e-4, runs, alpha)
    for name, participation in PARTICIPATIONS.items():
        wrong = 0
        for seed in range(runs):
            verdict = audit(BatchSampler(name, n, b, epochs=3, seed=3000 + seed, participation=participation),
                            alpha=alpha)
            wrong += not (verdict.sampler == name and verdict.matches)
        assert wrong <= limit, (name, wrong, limit)


@pytest.mark.parametrize("seed", [0, 1])
def test_jax_privacy_s_correlated_noise_strategies_are_named(seed):
    """jax-privacy 2.0's cyclic Poisson (read in epochs of its cycle length) and b-min-sep (one pass
    cut into epochs of 32 steps). False-failure probability <= 2 seeds x 2 x alpha 1e-3."""
    selection = pytest.importorskip("jax_privacy.batch_selection")
    cyclic = selection.CyclicPoissonSampling(sampling_prob=0.5, iterations=3 * 32, cycle_length=32)
    verdict = audit(cyclic, dataset_size=N, seed=seed)
    assert verdict.sampler == "cyclic_poisson" and verdict.matches and verdict.facts["cycle_length"] == 32
    separated = selection.BMinSepSampling(sampling_prob=0.2, iterations=3 * 32, min_sep=4)
    verdict = audit(separated, dataset_size=N, steps_per_epoch=32, seed=seed)
    assert verdict.sampler == "b_min_sep" and verdict.matches and verdict.facts["min_separation"] == 4


def test_an_accountant_of_the_same_correlated_noise_run_gets_no_mismatch():
    sigma, delta = 1.5, 1e-5
    cyclic = audit(BatchSampler("cyclic_poisson", N, B, epochs=3, seed=1, participation=PARTICIPATIONS["cyclic_poisson"]))
    check = check_accountant(cyclic, Phase("cyclic_poisson", sigma, sampling_rate=0.5, steps_per_epoch=32, epochs=3),
                             delta)
    assert not check.mismatch and check.loader == check.assumed
    fixed = audit(BatchSampler("fixed_balls_and_bins", N, B, epochs=3, seed=1))
    assert not check_accountant(fixed, Phase("fixed_balls_and_bins", sigma, steps_per_epoch=32, epochs=3), delta).mismatch
    kept = check_accountant(fixed, Phase("balls_and_bins", sigma, steps_per_epoch=32, epochs=3), delta)
    assert kept.mismatch and "your loader draws fixed balls-and-bins batches" in kept.sentence
