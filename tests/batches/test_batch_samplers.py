"""BatchSampler (the loader side): laws, reproducibility, truncation/padding, accounting(), inputs.

Every statistical test is a chi-square goodness-of-fit test against the exact law, rejecting at
p < 1e-6: its false-failure probability is at most ~1e-6 (asymptotic chi-square; every cell has
expected count >= 50, rarer cells pooled). Seeds are fixed, so the suite never flakes; a wrong
law (wrong rate, a biased permutation, epochs sharing a stream) fails it.
"""

import dataclasses
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpsampling import Accountant, Phase, batches
from dpsampling.accountants.closed_form.truncation import max_batch_size, truncation_delta
from dpsampling.accountants.loader import LoaderAccounting
from dpsampling.batches import PAD_INDEX, BatchSampler, PaddedDataset, Truncation
from dpsampling.samplers import VARIABLE_SIZE

LOADER_VARIABLE_SIZE = [name for name in VARIABLE_SIZE if name in batches.LOADER_SAMPLERS]

try:  # optional: the DataLoader tests run where torch is installed
    import torch
    from torch.utils.data import DataLoader, TensorDataset
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed (pip install -e '.[torch]')")

P_REJECT = 1e-6


def _pvalue(counts: dict, law: dict, draws: int) -> float:
    """Chi-square p-value of observed counts against a law; cells with expected count < 110 pooled."""
    counts, law = dict(counts), dict(law)
    assert set(counts) <= set(law), f"impossible outcomes: {set(counts) - set(law)}"
    assert sum(law.values()) == pytest.approx(1.0)
    rare = [k for k, p in law.items() if p * draws < 110]
    if rare:
        law["rare"] = sum(law.pop(k) for k in rare)
        counts["rare"] = sum(counts.pop(k, 0) for k in rare)
    keys = sorted(law, key=repr)
    f_obs = np.array([counts.get(k, 0) for k in keys], dtype=float)
    f_exp = np.array([law[k] for k in keys]) * draws
    assert f_exp.min() >= 50, "too few draws for the chi-square approximation"
    return stats.chisquare(f_obs, f_exp).pvalue


def _count(keys) -> tuple[dict, int]:
    counts: dict = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return counts, sum(counts.values())


def _assignment(epoch_batches, n):
    """The step of each example in a one-batch-per-example epoch, as a tuple."""
    where = np.full(n, -1)
    for t, batch in enumerate(epoch_batches):
        assert np.all(where[batch] == -1), "an example in two batches of one epoch"
        where[batch] = t
    assert np.all(where >= 0), "an example in no batch of the epoch"
    return tuple(where.tolist())


# --- exact properties --------------------------------------------------------------------------

@pytest.mark.parametrize("sampler", batches.LOADER_SAMPLERS)
def test_steps_length_and_dtype(sampler):
    s = BatchSampler(sampler, 1003, 10, epochs=3, seed=5)
    assert s.steps_per_epoch == 101 == math.ceil(1003 / 10)
    assert len(s) == s.steps == 303
    out = list(s)
    assert len(out) == 303
    assert all(isinstance(b, np.ndarray) and b.dtype == np.int64 and b.ndim == 1 for b in out)
    assert all(b.size == 0 or (b.min() >= 0 and b.max() < 1003 and len(np.unique(b)) == len(b)) for b in out)


@pytest.mark.parametrize("sampler", ["deterministic", "shuffle", "balls_and_bins"])
def test_every_example_exactly_once_per_epoch(sampler):
    s = BatchSampler(sampler, 1003, 10, epochs=4, seed=2)
    for e in range(4):
        _assignment(s.epoch(e), 1003)


def test_deterministic_is_in_order_with_sizes_at_most_b_differing_by_one():
    s = BatchSampler("deterministic", 1003, 10, epochs=2, seed=7)
    out = list(s)
    np.testing.assert_array_equal(np.concatenate(out[:101]), np.arange(1003))
    assert [b.tolist() for b in out[:101]] == [b.tolist() for b in out[101:]]
    sizes = np.array([len(b) for b in out])
    assert sizes.max() <= 10 and sizes.max() - sizes.min() <= 1
    assert [len(b) for b in BatchSampler("deterministic", 100, 10)] == [10] * 10


def test_wor_batches_have_exactly_b_distinct_examples():
    assert {len(b) for b in BatchSampler("wor", 103, 10, epochs=3, seed=1)} == {10}


# --- laws (chi-square) -------------------------------------------------------------------------

def test_shuffle_assignment_is_uniform_over_balanced_splits():
    """n = 4, b = 2 (T = 2): each of the 6 ways to split 4 examples into 2 + 2 has probability 1/6,
    in every epoch (draws: 12,000 epochs of one sampler)."""
    s = BatchSampler("shuffle", 4, 2, epochs=12_000, seed=21)
    counts, draws = _count(_assignment(s.epoch(e), 4) for e in range(s.epochs))
    law = {a: 1 / 6 for a in itertools.product(range(2), repeat=4) if sum(a) == 2}
    assert _pvalue(counts, law, draws) > P_REJECT


def test_balls_and_bins_allocation_is_uniform_over_the_T_steps():
    """n = 5, b = 2 (T = 3): the steps of the 5 examples are independent and uniform, so each of the
    3^5 = 243 allocations has probability 1/243 (draws: 30,000 epochs)."""
    s = BatchSampler("balls_and_bins", 5, 2, epochs=30_000, seed=22)
    counts, draws = _count(_assignment(s.epoch(e), 5) for e in range(s.epochs))
    law = {a: 1 / 243 for a in itertools.product(range(3), repeat=5)}
    assert _pvalue(counts, law, draws) > P_REJECT


def test_poisson_batch_size_is_binomial_n_b_over_n():
    """n = 40, b = 8: every batch size is Bin(40, 0.2) (draws: 5 steps x 6,000 epochs)."""
    s = BatchSampler("poisson", 40, 8, epochs=6_000, seed=23)
    assert s.steps_per_epoch == 5
    counts, draws = _count(len(b) for b in s)
    law = {k: stats.binom.pmf(k, 40, 0.2) for k in range(41)}
    assert _pvalue(counts, law, draws) > P_REJECT


def test_poisson_memberships_are_independent_with_rate_b_over_n():
    """n = 10, b = 3 (q = 0.3, T = 4): the memberships of examples 0 and 1 in the 4 steps of an epoch
    are 8 independent Bernoulli(0.3): pattern with k ones has probability q^k (1-q)^(8-k)."""
    s = BatchSampler("poisson", 10, 3, epochs=20_000, seed=24)
    q = 0.3

    def pattern(epoch_batches):
        return tuple(int(i in set(b.tolist())) for b in epoch_batches for i in (0, 1))

    counts, draws = _count(pattern(s.epoch(e)) for e in range(s.epochs))
    law = {p: q ** sum(p) * (1 - q) ** (8 - sum(p)) for p in itertools.product((0, 1), repeat=8)}
    assert _pvalue(counts, law, draws) > P_REJECT


def test_wor_batches_are_uniform_subsets_independent_across_steps():
    """n = 5, b = 2 (T = 3): (batch 0, batch 1) uniform over the 10 x 10 pairs of 2-subsets."""
    s = BatchSampler("wor", 5, 2, epochs=12_000, seed=25)
    counts, draws = _count(tuple(tuple(sorted(b.tolist())) for b in s.epoch(e)[:2]) for e in range(s.epochs))
    subsets = list(itertools.combinations(range(5), 2))
    law = {(a, b): 1 / 100 for a in subsets for b in subsets}
    assert _pvalue(counts, law, draws) > P_REJECT


@pytest.mark.parametrize("sampler", ["shuffle", "balls_and_bins"])
def test_epochs_are_independent(sampler):
    """n = 3, b = 1 (T = 3): the step of example 0 in epoch 0 and in epoch 1 are independent and
    uniform: 9 cells of probability 1/9 (draws: 4,500 seeds)."""
    def key(seed):
        s = BatchSampler(sampler, 3, 1, epochs=2, seed=seed)
        return tuple(_assignment(s.epoch(e), 3)[0] for e in (0, 1))

    counts, draws = _count(key(seed) for seed in range(4_500))
    law = {(a, b): 1 / 9 for a in range(3) for b in range(3)}
    assert _pvalue(counts, law, draws) > P_REJECT


# --- reproducibility ---------------------------------------------------------------------------

@pytest.mark.parametrize("sampler", batches.LOADER_SAMPLERS)
def test_reiterable_and_reproducible(sampler):
    s = BatchSampler(sampler, 97, 10, epochs=3, seed=11)
    first = [b.tolist() for b in s]
    assert [b.tolist() for b in s] == first  # iterating twice
    assert [b.tolist() for b in BatchSampler(sampler, 97, 10, epochs=3, seed=11)] == first  # a new object
    assert [b.tolist() for b in s.epoch(2)] == first[20:]  # one epoch alone
    # epoch e does not depend on how many epochs the run has
    assert [b.tolist() for b in BatchSampler(sampler, 97, 10, epochs=5, seed=11).epoch(1)] == first[10:20]
    if sampler != "deterministic":
        assert first[:10] != first[10:20]  # epochs differ
        assert [b.tolist() for b in BatchSampler(sampler, 97, 10, epochs=3, seed=12)] != first  # seeds differ


def test_iterating_does_not_advance_any_state():
    s = BatchSampler("poisson", 50, 5, epochs=2, seed=3, truncation=Truncation(max_batch_size=7))
    it = iter(s)
    head = [next(it).tolist() for _ in range(3)]
    assert [b.tolist() for b in s][:3] == head
    assert [b.tolist() for b in s.epoch(0)][:3] == head


# --- truncation and padding (chua25 App. C) ----------------------------------------------------

@pytest.mark.parametrize("sampler", LOADER_VARIABLE_SIZE)
def test_padded_batches_have_exactly_B_slots_and_keep_short_batches_whole(sampler):
    n, b, B = 200, 20, 22
    s = BatchSampler(sampler, n, b, epochs=3, seed=4, truncation=Truncation(max_batch_size=B))
    raw = BatchSampler(sampler, n, b, epochs=3, seed=4)
    truncated = padded = 0
    for e in range(3):
        plan = s.plan(e)
        for t, (batch, original) in enumerate(zip(s.epoch(e), raw.epoch(e))):
            np.testing.assert_array_equal(original, plan.batch(t))  # truncation does not change the plan
            assert len(batch) == B and batch.dtype == np.int64
            real = batch[batch != PAD_INDEX]
            weights = BatchSampler.weights(batch)
            assert weights.sum() == len(real) == min(len(original), B)
            assert np.all(batch[len(real):] == PAD_INDEX) and np.all(weights[len(real):] == 0)  # padding last
            if len(original) <= B:
                np.testing.assert_array_equal(real, original)
                padded += len(original) < B
            else:
                assert set(real.tolist()) < set(original.tolist()) and len(np.unique(real)) == B
                truncated += 1
    assert truncated > 0 and padded > 0  # both branches ran
    pairs = list(s.with_weights())
    assert len(pairs) == len(s)
    assert all(np.array_equal(w, BatchSampler.weights(i)) for i, w in pairs)


def test_truncation_keeps_a_uniform_subset():
    """A batch of 4 cut to B = 2 slots keeps a uniform pair of the 6 (6,000 seeded draws of
    ``pad_or_truncate``, the loader's truncation); a max_batch_size below the batch size is refused
    (most batches would be cut: the truncation delta would pass 1)."""
    batch = np.arange(4)
    counts, draws = _count(tuple(sorted(batches.pad_or_truncate(batch, 2, seed=26 + i)[0].tolist()))
                           for i in range(6_000))
    law = {pair: 1 / 6 for pair in itertools.combinations(range(4), 2)}
    assert _pvalue(counts, law, draws) > P_REJECT
    with pytest.raises(ValueError, match=r"^truncation.max_batch_size must be an integer in \[10, "):
        BatchSampler("balls_and_bins", 100, 10, truncation=Truncation(max_batch_size=5))


@pytest.mark.parametrize("sampler", LOADER_VARIABLE_SIZE)
def test_truncation_delta_matches_the_appendix_c_formula(sampler):
    n, b, B, epochs = 1000, 10, 25, 3
    s = BatchSampler(sampler, n, b, epochs=epochs, truncation=Truncation(max_batch_size=B, epsilon=2.0))
    steps = 100 * epochs
    expected = (1 + math.exp(2.0)) * steps * stats.binom.sf(B, n, b / n)
    assert s.accounting().truncation_delta == pytest.approx(expected, rel=1e-9)
    assert s.accounting().truncation_delta == truncation_delta(n, b, B, steps, 2.0)
    assert s.truncation_delta(1.0) == pytest.approx((1 + math.e) * steps * stats.binom.sf(B, n, b / n), rel=1e-9)
    assert BatchSampler(sampler, n, b, epochs=epochs).accounting().truncation_delta == 0.0


def test_max_batch_size_from_a_target_delta():
    n, b, epochs, target = 10_000, 100, 2, 1e-10
    s = BatchSampler("poisson", n, b, epochs=epochs, truncation=Truncation(delta_target=target))
    B = max_batch_size(n, b, 100 * epochs, 10.0, target)
    assert s.max_batch_size == B > b
    assert s.accounting().truncation_delta <= target < truncation_delta(n, b, B - 1, 100 * epochs, 10.0)
    assert all(len(batch) == B for batch in s)


def test_balls_and_bins_truncation_delta_is_an_upper_bound_when_T_does_not_divide_n():
    """Balls-and-bins sizes are Bin(n, 1/T) with 1/T <= b/n; delta' uses Bin(n, b/n): larger tail."""
    n, b, B = 1005, 10, 20  # T = 101: 1/T = 1/101 < b/n = 10/1005
    s = BatchSampler("balls_and_bins", n, b, truncation=Truncation(max_batch_size=B))
    steps = s.steps_per_epoch
    assert steps == 101 and s.sampling_rate == 1 / 101 < b / n
    exact = (1 + math.exp(10.0)) * steps * stats.binom.sf(B, n, 1 / steps)
    assert s.accounting().truncation_delta >= exact


def test_padded_dataset_returns_weights():
    data = [10, 11, 12]
    padded = PaddedDataset(data, fill_index=1)
    assert len(padded) == 3
    assert [padded[i] for i in (0, np.int64(2), PAD_INDEX)] == [(10, 1.0), (12, 1.0), (11, 0.0)]
    assert all(isinstance(padded[i][1], np.float32) for i in (0, PAD_INDEX))
    with pytest.raises(IndexError, match="index must be >= 0 or the padding index -1; got -2"):
        padded[-2]


# --- accounting() ------------------------------------------------------------------------------

@pytest.mark.parametrize("sampler, rate", [
    ("deterministic", None), ("shuffle", None), ("poisson", 0.1), ("balls_and_bins", 1 / 10), ("wor", 0.1)])
def test_accounting_fields(sampler, rate):
    s = BatchSampler(sampler, 200, 20, epochs=3, seed=9)
    a = s.accounting()
    assert isinstance(a, LoaderAccounting)
    assert (a.sampler, a.dataset_size, a.batch_size, a.steps_per_epoch, a.epochs, a.steps) == (sampler, 200, 20, 10, 3, 30)
    assert a.sampling_rate == rate
    assert a.max_batch_size is None and a.truncation_delta == 0.0 and a.truncation_epsilon == 10.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.epochs = 4
    assert a.cli_args() == ["--sampler", sampler, "--dataset-size", "200", "--batch-size", "20", "--epochs", "3"]


def test_accounting_rate_uses_b_over_n_not_one_over_T():
    """n = 105, b = 10: T = 11, but the Poisson/WOR rate is b/n = 10/105, not 1/11."""
    for sampler in ("poisson", "wor"):
        assert BatchSampler(sampler, 105, 10).accounting().sampling_rate == 10 / 105
    assert BatchSampler("balls_and_bins", 105, 10).accounting().sampling_rate == 1 / 11


@pytest.mark.parametrize("sampler", ["poisson", "wor", "balls_and_bins", "deterministic", "shuffle"])
def test_accounting_phases_are_the_loader_run(sampler):
    """T = ceil(n / b) steps per epoch, K epochs, rate b / n where the sampler has one."""
    n, b, epochs = 105, 10, 3
    a = BatchSampler(sampler, n, b, epochs=epochs).accounting()
    (phase,) = a.phases(2.0)
    assert (phase.sampler, phase.sigma, phase.steps_per_epoch, phase.epochs, phase.steps) == (sampler, 2.0, 11, 3, 33)
    assert phase.sampling_rate == (b / n if phase.spec.rate_based else None)
    assert a.get_epsilon(2.0, 1e-5) == Accountant(phase).get_epsilon(1e-5)  # no truncation: nothing added


def test_accounting_eps_includes_the_truncation_delta():
    """(eps, delta_acc(eps) + delta'(eps)) <= delta at the eps returned, and the delta query adds delta'."""
    n, b, B, sigma, delta = 1000, 20, 54, 1.0, 1e-5
    a = BatchSampler("poisson", n, b, epochs=2, truncation=Truncation(max_batch_size=B, epsilon=5.0)).accounting()
    spent = a.truncation_delta_at(5.0)
    assert 0 < spent < delta
    eps = a.get_epsilon(sigma, delta)
    untruncated = Accountant(Phase("poisson", sigma, dataset_size=n, batch_size=b, epochs=2))
    assert eps == untruncated.get_epsilon(delta - spent) > untruncated.get_epsilon(delta)
    assert untruncated.get_delta(eps) + a.truncation_delta_at(eps) <= delta * (1 + 1e-6)
    assert a.get_delta(sigma, 1.0) == untruncated.get_delta(1.0) + a.truncation_delta_at(1.0)
    small = BatchSampler("poisson", n, b, truncation=Truncation(max_batch_size=50)).accounting()
    with pytest.raises(ValueError, match="delta must exceed the truncation's delta'"):
        small.get_epsilon(sigma, 1e-5)


# --- bad inputs --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"sampler": "uniform"}, "sampler must be one of deterministic, shuffle, poisson, balls_and_bins, wor, "
                             "cyclic_poisson, b_min_sep, fixed_balls_and_bins; got 'uniform'"),
    ({"dataset_size": 0}, "dataset_size must be an integer >= 1; got 0"),
    ({"batch_size": 200}, "batch_size must be an integer in [1, dataset_size=100]; got 200"),
    ({"batch_size": 0}, "batch_size must be an integer in [1, dataset_size=100]; got 0"),
    ({"batch_size": 2.5}, "batch_size must be an integer in [1, dataset_size=100]; got 2.5"),
    ({"epochs": 0}, "epochs must be an integer >= 1; got 0"),
    ({"seed": -1}, "seed must be an integer >= 0; got -1"),
    ({"truncation": Truncation(epsilon=-1.0)}, "truncation.epsilon must be non-negative and finite; got -1.0"),
    ({"truncation": Truncation(max_batch_size=0)},
     "truncation.max_batch_size must be an integer in [10, dataset_size=100]; got 0"),
    ({"truncation": Truncation(max_batch_size=101)},
     "truncation.max_batch_size must be an integer in [10, dataset_size=100]; got 101"),
    ({"truncation": Truncation(delta_target=0.0)},
     "truncation.delta_target must be in the open interval (0, 1); got 0.0"),
    ({"sampler": "shuffle", "truncation": Truncation(max_batch_size=12)},
     "truncation.max_batch_size applies to samplers poisson, balls_and_bins only (their batch sizes vary); "
     "got it with sampler 'shuffle'"),
    ({"sampler": "wor", "truncation": Truncation(delta_target=1e-9)},
     "truncation.delta_target applies to samplers poisson"),
    ({"truncation": Truncation(max_batch_size=12, delta_target=1e-9)},
     "truncation.max_batch_size and truncation.delta_target must not both"),
    ({"truncation": 12}, "truncation must be a Truncation or None; got 12"),
])
def test_bad_inputs(kwargs, message):
    arguments = {"sampler": "poisson", "dataset_size": 100, "batch_size": 10} | kwargs
    sampler, n, b = arguments.pop("sampler"), arguments.pop("dataset_size"), arguments.pop("batch_size")
    with pytest.raises(ValueError) as error:
        BatchSampler(sampler, n, b, **arguments)
    assert message in str(error.value)


def test_bad_truncation_delta_epsilon():
    with pytest.raises(ValueError, match="epsilon must be non-negative and finite; got -1"):
        BatchSampler("poisson", 100, 10).truncation_delta(-1)


def test_sampler_is_immutable():
    s = BatchSampler("poisson", 100, 10)
    with pytest.raises(AttributeError, match="BatchSampler is immutable"):
        s.batch_size = 20
    assert s.accounting().steps_per_epoch == 10


def test_bad_epoch():
    s = BatchSampler("shuffle", 10, 2, epochs=3)
    for e in (-1, 3):
        with pytest.raises(ValueError, match=r"epoch must be an integer in \[0, epochs - 1=2\]"):
            s.epoch(e)


# --- PyTorch DataLoader ------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("sampler", ["deterministic", "shuffle", "wor"])
def test_torch_dataloader_yields_our_indices(sampler):
    n = 23
    dataset = TensorDataset(torch.arange(n) * 10, torch.arange(n))
    s = BatchSampler(sampler, n, 4, epochs=2, seed=8)
    loader = DataLoader(dataset, batch_sampler=s)
    assert len(loader) == len(s) == 12
    expected = [b.tolist() for b in s]
    for _ in range(2):  # two passes over the loader give the same batches
        got = [(x.tolist(), y.tolist()) for x, y in loader]
        assert [y for _, y in got] == expected and [x for x, _ in got] == [[10 * i for i in b] for b in expected]
    per_epoch = [y.tolist() for e in range(2) for _, y in DataLoader(dataset, batch_sampler=s.epoch(e))]
    assert per_epoch == expected  # an outer epoch loop over epoch(e) gives the same run


@needs_torch
@pytest.mark.parametrize("sampler", LOADER_VARIABLE_SIZE)
def test_torch_dataloader_with_variable_batches_needs_an_empty_safe_collate(sampler):
    """Unpadded Poisson/balls-and-bins batches can be empty, which torch's default collate rejects;
    with a collate that accepts an empty list the loader yields exactly our batches."""
    n = 12
    dataset = TensorDataset(torch.arange(n))
    s = BatchSampler(sampler, n, 2, epochs=20, seed=8)
    expected = [b.tolist() for b in s]
    assert [] in expected  # an empty batch occurs with these seeds
    loader = DataLoader(dataset, batch_sampler=s, collate_fn=lambda items: [int(x) for (x,) in items])
    assert list(loader) == expected


@needs_torch
def test_torch_dataloader_with_padding_gives_weights():
    n, B = 30, 5
    dataset = TensorDataset(torch.arange(n, dtype=torch.float32) + 100)
    s = BatchSampler("poisson", n, 3, epochs=2, seed=1, truncation=Truncation(max_batch_size=B))
    loader = DataLoader(PaddedDataset(dataset), batch_sampler=s)
    for ((x,), w), batch in zip(loader, s, strict=True):
        assert x.shape == (B,) and w.shape == (B,) and w.dtype == torch.float32
        real = batch != PAD_INDEX
        assert w.tolist() == real.astype(float).tolist()
        assert x[torch.from_numpy(real)].tolist() == (batch[real] + 100).astype(float).tolist()
        assert torch.all(x[torch.from_numpy(~real)] == 100)  # padding slots hold dataset[0], weight 0
