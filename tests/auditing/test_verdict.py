"""The audit's verdicts on seeded runs: every real loader named (and its false-alarm rate within
the stated alpha), every broken loader flagged with its consequence (power), the cost.

PyTorch's and Opacus' loaders enter here as pure-numpy stand-ins of their index streams
(tests/stand_in_loaders.py); the same checks on the real ones are in test_torch.py (marker opacus).
"""

import itertools
import math
import time
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from stand_in_loaders import BROKEN, REAL

from dpsampling import audit
from dpsampling.auditing.verdict import matching_sampler
from dpsampling.batches import LOADER_SAMPLERS, BatchSampler
from dpsampling.samplers import SAMPLERS, SHUFFLE, Sampler
from dpsampling.samplers.base import CONSTANT, CYCLIC, FIXED, MIN_SEPARATION, MULTINOMIAL, PARTITION, RATES, VARYING

N, B = 2_000, 64


def _jax_strategies(n, b):
    """jax-privacy's two strategies where it is installed (else none: the rest runs without jax)."""
    try:
        from jax_privacy import batch_selection as selection
    except ImportError:
        return {}
    steps = math.ceil(n / b)
    return {"jax-privacy CyclicPoissonSampling": (selection.CyclicPoissonSampling(sampling_prob=b / n,
                                                                                 iterations=3 * steps), "poisson"),
            "jax-privacy FixedBatchSampling": (selection.FixedBatchSampling(batch_size=b, iterations=3 * steps), "wor")}


def _real_loaders(n, b, seed):
    """(name, loader, the sampler it is) of every real loader of issue 34 that needs no torch."""
    loaders = [(f"BatchSampler {s}", BatchSampler(s, n, b, epochs=3, seed=seed), s) for s in LOADER_SAMPLERS]
    loaders += [(name, make(n, b, seed), sampler) for name, (make, sampler) in REAL.items()]
    return loaders


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_every_real_loader_is_named_at_the_default_alpha(seed):
    """False-failure probability: at most 3 seeds x 10 loaders x alpha 1e-3 = 0.03 (the audit's
    stated false-alarm rate; the loaders are seeded, so the test does not flake)."""
    loaders = _real_loaders(N, B, seed)
    loaders += [(name, strategy, sampler) for name, (strategy, sampler) in _jax_strategies(N, B).items()]
    for name, loader, sampler in loaders:
        verdict = audit(loader, dataset_size=N, seed=seed)
        assert verdict.sampler == sampler and verdict.matches, (name, verdict.behaviour(), verdict.tests)


def test_jax_privacy_strategies_are_named():
    pytest.importorskip("jax_privacy.batch_selection")
    for name, (strategy, sampler) in _jax_strategies(N, B).items():
        assert audit(strategy, dataset_size=N, seed=3).sampler == sampler, name


def test_the_false_alarm_rate_is_at_most_alpha():
    """At alpha = 0.1, 40 seeded runs of each real loader (n 600): the number of runs not named
    right is at most Bin(40, 0.1)'s 1 - 1e-4 quantile (the tests are conservative or exact, so the
    count is stochastically below Bin(40, alpha)); false-failure probability <= 1e-4 per loader."""
    alpha, runs, n, b = 0.1, 40, 600, 20
    limit = stats.binom.isf(1e-4, runs, alpha)
    names = [name for name, _, _ in _real_loaders(n, b, 0)] + list(_jax_strategies(n, b))
    wrong = dict.fromkeys(names, 0)
    for seed in range(runs):
        loaders = _real_loaders(n, b, 1000 + seed)
        loaders += [(name, s, sampler) for name, (s, sampler) in _jax_strategies(n, b).items()]
        for name, loader, sampler in loaders:
            verdict = audit(loader, dataset_size=n, seed=1000 + seed, alpha=alpha)
            wrong[name] += not (verdict.sampler == sampler and verdict.matches)
    assert all(count <= limit for count in wrong.values()), (limit, wrong)
    assert wrong["BatchSampler deterministic"] == 0  # exact: the same in-order batches every epoch


@pytest.mark.parametrize("name", list(BROKEN))
def test_every_broken_loader_is_flagged_at_the_default_alpha(name):
    """Power: 10 seeded runs, each flagged with its finding (measured power 1 on 200 runs,
    docs/AUDIT.md: the chance that a seed of these is missed is below 1/200 each)."""
    make, kind = BROKEN[name]
    for seed in range(10):
        verdict = audit(make(N, B, seed), dataset_size=N)
        kinds = [f.kind for f in verdict.findings]
        assert not verdict.matches, (name, verdict.behaviour())
        assert kind in kinds or (name == "duplicated index" and "repeats" in kinds), (name, kinds)


def test_the_consequence_of_each_broken_loader():
    """What each finding allows the accounting (verdict module docstring)."""
    weighted = audit(BROKEN["weighted"][0](N, B, 1), dataset_size=N)
    assert weighted.bound is None and weighted.consequence() == "no guarantee from these batches"
    heavy = audit(BROKEN["weighted poisson"][0](N, B, 1), dataset_size=N)
    kind, rate = heavy.bound
    # the largest true rate is 2 b / n; its upper confidence bound covers it w.p. >= 1 - alpha
    assert kind == "largest_rate" and 2 * B / N <= rate < 1 and rate > heavy.facts["rate"]
    dropped = audit(BROKEN["same dropped"][0](N, B, 1), dataset_size=N)
    assert dropped.bound == ("per_epoch_cap", 1) and dropped.facts["never_drawn"] == B // 2 + 3 * B
    duplicated = audit(BROKEN["duplicated index"][0](N, B, 1), dataset_size=N)
    assert duplicated.bound in (("per_epoch_cap", 2), None)
    reseeded = audit(BROKEN["reseeded"][0](N, B, 1), dataset_size=N)
    assert reseeded.sampler == "shuffle" and reseeded.bound == ("sampler", "shuffle")
    assert "sigma / sqrt(K)" in reseeded.consequence()


def test_padding_is_dropped_and_a_truncated_poisson_sampler_is_still_named():
    from dpsampling.batches import Truncation

    loader = BatchSampler("poisson", N, B, epochs=3, seed=2, truncation=Truncation(max_batch_size=4 * B))
    assert any((batch == -1).any() for batch in loader)
    assert audit(loader).sampler == "poisson"


def test_a_million_examples_over_three_epochs_within_thirty_seconds():
    """Issue 34, point 3 (2 shared cores): drawing and deciding, indices only."""
    for sampler in ("shuffle", "poisson"):
        start = time.perf_counter()
        verdict = audit(BatchSampler(sampler, 1_000_000, 256, epochs=3, seed=0))
        assert time.perf_counter() - start < 30 and verdict.sampler == sampler


def test_epochs_cut_from_one_pass_match_one_iter_per_epoch():
    loader = BatchSampler("shuffle", 500, 25, epochs=3, seed=4)
    batches = [np.asarray(b) for b in loader]
    by_iter = audit([b for b in batches], steps_per_epoch=20)  # a list: re-iterable, cut by steps_per_epoch
    assert by_iter.facts["epochs"] == 3 and by_iter.sampler == "shuffle"


def test_drop_last_in_index_order_is_deterministic_with_the_same_examples_never_drawn():
    """DataLoader(shuffle=False, drop_last=True): the last n mod b examples, every epoch (exact)."""
    n, b = 1_000, 64
    batches = [list(range(start, start + b)) for start in range(0, n - n % b, b)]
    verdict = audit(batches, dataset_size=n)
    assert verdict.sampler == "deterministic" and not verdict.matches
    assert verdict.finding("never_drawn") and verdict.facts["never_drawn"] == n % b
    assert verdict.bound == ("sampler", "deterministic")
    # no randomness to keep fresh: not the kept bins' caveat (its signature is exact)
    assert verdict.consequence() == "the deterministic accounting"


def test_a_shuffle_buffer_is_not_a_shuffle():
    """tf.data / webdataset style: a buffer of 4 b examples read in index order, one drawn at random
    at a time. Every example once per epoch, but its batch depends on its index: flagged (order),
    accounted by the deterministic bound. 5 seeded runs."""
    n, b = 2_000, 64

    class BufferShuffle:
        def __init__(self, seed):
            self.rng = np.random.default_rng(seed)

        def __iter__(self):
            buffer, order = list(range(4 * b)), []
            for i in range(4 * b, n + 4 * b):
                order.append(buffer.pop(self.rng.integers(len(buffer))))
                if i < n:
                    buffer.append(i)
            return iter([order[s:s + b] for s in range(0, n, b)])

    for seed in range(5):
        verdict = audit(BufferShuffle(seed), dataset_size=n)
        assert verdict.sampler is None and verdict.finding("order") and verdict.bound == ("per_epoch_cap", 1)


OBSERVABLE = {"family": (PARTITION, RATES, CYCLIC, MIN_SEPARATION), "sizes": (FIXED, MULTINOMIAL, CONSTANT, VARYING),
              "epochs_repeat": (False, True), "index_order": (False, True)}
"""Every value the verdict observes of each property an ``AuditSignature`` fixes."""


def _completions(signature):
    """Every observation the signature matches: its fixed properties, its free ones (None) set every way."""
    fixed = {f.name: getattr(signature, f.name) for f in fields(signature) if f.name in OBSERVABLE}
    free = [name for name, value in fixed.items() if value is None]
    for values in itertools.product(*(OBSERVABLE[name] for name in free)):
        yield {**fixed, **dict(zip(free, values, strict=True))}


def test_each_audit_signature_singles_out_its_own_sampler():
    """The verdict names the registered sampler whose signature matches what it observed: for every
    observation a sampler's signature admits, that sampler and no other."""
    assert all(spec.audit_signature is not None for spec in SAMPLERS.values())
    for spec in SAMPLERS.values():
        for observed in _completions(spec.audit_signature):
            assert matching_sampler(observed) is spec, (spec.name, observed)


def test_a_sampler_without_a_signature_is_never_proposed_and_overlaps_are_refused():
    class Unsigned(Sampler):
        __slots__ = ()
        name = "unsigned"

    class Twin(type(SHUFFLE)):  # the same signature as shuffle's
        __slots__ = ()

    unsigned = Unsigned()
    everything = [dict(zip(OBSERVABLE, values, strict=True)) for values in itertools.product(*OBSERVABLE.values())]
    assert all(matching_sampler(observed, (*SAMPLERS.values(), unsigned)) is not unsigned for observed in everything)
    assert any(matching_sampler(observed) is None for observed in everything)  # e.g. rates with fixed sizes
    shuffled = next(_completions(SHUFFLE.audit_signature))
    with pytest.raises(ValueError, match="single out one sampler; .* matches shuffle, shuffle"):
        matching_sampler(shuffled, (SHUFFLE, Twin()))


def test_the_table_of_signatures_in_the_docs_is_the_classes():
    """docs/AUDIT.md's table of audit signatures (one row per sampler, by its label) says what each
    class's ``audit_signature`` holds."""
    text = (Path(__file__).parents[2] / "docs" / "AUDIT.md").read_text()
    header = "| sampler | family | batch sizes | every epoch repeats the first | ... in index order |"
    rows = text.split(header)[1].split("\n\n")[0].strip().splitlines()[1:]
    words = {"any": None, "yes": True, "no": False}
    table = {}
    for row in rows:
        sampler, family, sizes, repeat, order = (cell.strip() for cell in row.strip("|").split("|"))
        label = sampler.removesuffix(" (exact)")
        table[label] = (family, words.get(sizes.split()[0], sizes.split()[0]), words[repeat.split()[0]],
                        words[order.split()[0]], sampler != label)
    assert table == {spec.label: (spec.audit_signature.family, spec.audit_signature.sizes,
                                  spec.audit_signature.epochs_repeat, spec.audit_signature.index_order,
                                  spec.audit_signature.exact) for spec in SAMPLERS.values()}
