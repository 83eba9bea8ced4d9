"""``BatchSampler`` for the correlated-noise samplers (cyclic_poisson, b_min_sep,
fixed_balls_and_bins): the law of its batches is the one the accountant assumes (the registry's
generators, docs/MATRIX.md), the same seed gives the same batches, and bad keywords are refused.

Each chi-square test rejects at p < 1e-6 (``participation_laws.REJECT``): its false-failure
probability is at most ~1e-6 (asymptotic chi-square; cells expected below 5 draws are merged).
Seeded, so a failure reproduces.
"""

import itertools
from collections import Counter

import numpy as np
import pytest
from participation_laws import REJECT, b_min_sep_law, chi_square_pvalue

from dpsampling import Accountant, Phase
from dpsampling.batches import BatchSampler, Participation, Truncation, b_min_sep_batches


def _joint_pattern(sampler: BatchSampler) -> tuple:
    """Every example's participation pattern over the whole run (0/1 per step), joined."""
    steps = list(sampler)
    return tuple(int(example in set(batch.tolist())) for example in range(sampler.dataset_size) for batch in steps)


def _drawn(make, draws: int) -> Counter:
    return Counter(_joint_pattern(make(seed)) for seed in range(draws))


def test_fixed_balls_and_bins_keeps_one_uniform_bin_for_all_epochs():
    """n = 3, b = 1 (T = 3), 2 epochs: each example in one uniform bin s, independently, and in the
    batches of steps s and s + 3: 27 joint patterns of probability 1/27 (seeds 0..8,099)."""
    cycles = [tuple(int(t % 3 == s) for t in range(6)) for s in range(3)]
    law = {a + b + c: 1 / 27 for a in cycles for b in cycles for c in cycles}
    draws = 8_100
    counts = _drawn(lambda seed: BatchSampler("fixed_balls_and_bins", 3, 1, epochs=2, seed=seed), draws)
    assert chi_square_pvalue(counts, law, draws) > REJECT


def _cyclic_poisson_law(rate: float) -> dict:
    """n = 3, T = 2, 2 epochs: the seeded shuffle puts one uniform example alone in group 1 (steps 1,
    3) and the other two in group 0 (steps 0, 2); each joins at each of its group's steps with
    probability ``rate``, independently."""
    law = {}
    for alone in range(3):
        steps_of = {example: (1, 3) if example == alone else (0, 2) for example in range(3)}
        for joins in itertools.product((0, 1), repeat=6):
            pattern = [0] * 12
            for example in range(3):
                for j, t in enumerate(steps_of[example]):
                    pattern[4 * example + t] = joins[2 * example + j]
            probability = np.prod([rate if x else 1 - rate for x in joins]) / 3
            law[tuple(pattern)] = law.get(tuple(pattern), 0.0) + probability
    return law


def test_cyclic_poisson_groups_are_a_seeded_shuffle_and_joins_are_bernoulli():
    """n = 3, b = 2 (cycle length T = 2), 2 epochs, q = 0.4: the enumerated law above (20,000 seeds)."""
    law = _cyclic_poisson_law(0.4)
    assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)
    draws = 20_000
    counts = _drawn(lambda seed: BatchSampler("cyclic_poisson", 3, 2, epochs=2, seed=seed,
                                              participation=Participation(sampling_rate=0.4)), draws)
    assert chi_square_pvalue(counts, law, draws) > REJECT


@pytest.mark.parametrize("warm_start", [False, True])
def test_b_min_sep_is_one_renewal_process_over_all_epochs(warm_start):
    """n = 2, b = 1 (T = 2), 3 epochs, b_sep = 3, p = 0.35: the joint pattern over the 6 steps is
    the product of the renewal law enumerated from the definition (epochs do not restart it;
    20,000 seeds)."""
    law = b_min_sep_law(6, 3, 0.35, warm_start)
    joint = {a + b: law[a] * law[b] for a in law for b in law}
    draws = 20_000
    participation = Participation(sampling_rate=0.35, min_separation=3, warm_start=warm_start)
    counts = _drawn(lambda seed: BatchSampler("b_min_sep", 2, 1, epochs=3, seed=seed, participation=participation),
                    draws)
    assert chi_square_pvalue(counts, joint, draws) > REJECT


def test_b_min_sep_plan_is_the_registry_generator_on_the_run_stream():
    participation = Participation(sampling_rate=0.2, min_separation=4, warm_start=True)
    sampler = BatchSampler("b_min_sep", 500, 25, epochs=3, seed=9, participation=participation)
    generated = b_min_sep_batches(500, 60, 4, 0.2, True, np.random.default_rng(np.random.SeedSequence(9)))
    assert all(np.array_equal(ours, theirs) for ours, theirs in zip(sampler, generated, strict=True))


PARTICIPATIONS = {"cyclic_poisson": Participation(sampling_rate=0.5),
                  "b_min_sep": Participation(sampling_rate=0.3, min_separation=3, warm_start=True),
                  "fixed_balls_and_bins": None}


@pytest.mark.parametrize("name", list(PARTICIPATIONS))
def test_the_same_seed_gives_the_same_batches_and_each_epoch_alone_is_the_runs(name):
    def make(seed):
        return BatchSampler(name, 200, 20, epochs=4, seed=seed, participation=PARTICIPATIONS[name])

    first, again, other = ([b.tolist() for b in make(seed)] for seed in (5, 5, 6))
    assert first == again and first != other
    sampler = make(5)
    assert len(first) == len(sampler) == 40
    for e in range(4):
        assert [b.tolist() for b in sampler.epoch(e)] == first[10 * e:10 * (e + 1)]
        plan = sampler.plan(e)
        assert [b.tolist() for b in plan] == first[10 * e:10 * (e + 1)]


def test_fixed_balls_and_bins_is_the_same_partition_every_epoch():
    sampler = BatchSampler("fixed_balls_and_bins", 300, 30, epochs=3, seed=2)
    epochs = [[b.tolist() for b in sampler.epoch(e)] for e in range(3)]
    assert epochs[0] == epochs[1] == epochs[2]
    assert sorted(i for batch in epochs[0] for i in batch) == list(range(300))


def test_cyclic_poisson_examples_join_only_at_their_groups_steps():
    sampler = BatchSampler("cyclic_poisson", 100, 10, epochs=5, seed=1, participation=Participation(sampling_rate=0.7))
    residues = {}
    for t, batch in enumerate(sampler):
        for example in batch.tolist():
            residues.setdefault(example, set()).add(t % sampler.steps_per_epoch)
    assert all(len(r) == 1 for r in residues.values())
    groups = Counter(next(iter(r)) for r in residues.values())  # 10 groups of 10 (each seen: 0.3^5 misses)
    assert len(groups) == 10


@pytest.mark.parametrize("name, phase_fields", [
    ("cyclic_poisson", {"sampling_rate": 0.5, "steps_per_epoch": 10, "epochs": 4}),
    ("b_min_sep", {"sampling_rate": 0.3, "steps_per_epoch": 10, "epochs": 4, "min_separation": 3, "warm_start": True}),
    ("fixed_balls_and_bins", {"dataset_size": 200, "batch_size": 20, "epochs": 4}),
])
def test_accounting_is_the_registry_phase_of_the_loader_run(name, phase_fields):
    accounting = BatchSampler(name, 200, 20, epochs=4, participation=PARTICIPATIONS[name]).accounting()
    assert accounting.phases(2.0) == (Phase(name, 2.0, **phase_fields),)
    assert accounting.phases(2.0, [1.0, 0.5]) == (Phase(name, 2.0, coefficients=[1.0, 0.5], **phase_fields),)
    flags = " ".join(accounting.cli_args())
    assert flags.startswith(f"--sampler {name} ")
    assert ("--warm-start" in flags) == (name == "b_min_sep")
    if name != "b_min_sep":  # certified reductions with one coefficient (b-min-sep with b_sep 3 has none)
        assert accounting.get_epsilon(2.0, 1e-5) == Accountant(Phase(name, 2.0, **phase_fields)).get_epsilon(1e-5)


@pytest.mark.parametrize("name, kwargs, message", [
    ("cyclic_poisson", {}, "participation.sampling_rate must be given for sampler cyclic_poisson"),
    ("b_min_sep", {"participation": Participation(sampling_rate=0.2)},
     "participation.min_separation must be given for sampler b_min_sep"),
    ("cyclic_poisson", {"participation": Participation(sampling_rate=1.5)},
     r"participation.sampling_rate must be in \(0, 1\]; got 1.5"),
    ("b_min_sep", {"participation": Participation(sampling_rate=0.2, min_separation=0)},
     "participation.min_separation must be an integer >= 1; got 0"),
    ("b_min_sep", {"participation": Participation(sampling_rate=0.2, min_separation=2, warm_start="yes")},
     "participation.warm_start must be True or False; got 'yes'"),
    ("cyclic_poisson", {"participation": Participation(sampling_rate=0.2, min_separation=2)},
     "participation.min_separation applies to sampler.s. b_min_sep only; got 2 with sampler 'cyclic_poisson'"),
    ("fixed_balls_and_bins", {"participation": Participation(sampling_rate=0.2)},
     "participation.sampling_rate applies to sampler.s. cyclic_poisson, b_min_sep only; got 0.2 with sampler "
     "'fixed_balls_and_bins'"),
    ("poisson", {"participation": Participation(warm_start=True)},
     "participation.warm_start applies to sampler.s. b_min_sep only; got True with sampler 'poisson'"),
    ("poisson", {"participation": {"sampling_rate": 0.2}}, "participation must be a Participation or None; got"),
    ("fixed_balls_and_bins", {"truncation": Truncation(max_batch_size=30)},
     "truncation.max_batch_size applies to samplers poisson, balls_and_bins only"),
])
def test_bad_participation_is_refused_naming_the_argument_and_what_is_allowed(name, kwargs, message):
    with pytest.raises(ValueError, match=message):
        BatchSampler(name, 200, 20, **kwargs)
