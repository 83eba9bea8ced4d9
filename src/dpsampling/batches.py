"""Batch generators: what a DP-SGD data loader does in one epoch of T steps over n examples.

Every generator returns a BatchPlan: ``indices`` (example ids, batch after batch) and
``offsets`` (length T + 1), batch t being ``indices[offsets[t]:offsets[t + 1]]``.

- deterministic (chua24 Alg. 2): examples in order, T batches of sizes differing by at most 1;
- shuffle (Alg. 3): a uniform permutation, then the same split;
- poisson (Alg. 4): each example joins each batch independently with probability q (default
  1/T); implemented as a Bin(n, q) size then a uniform subset of that size, which is the same law;
- balls_and_bins (chua25 Alg. 3): each example goes to one uniform batch, independently;
- balls_and_bins_sequential (chua25 Sec. 5): a uniform permutation cut into sizes
  b_t ~ Bin(n - b_1 - ... - b_{t-1}, 1/(T - t + 1)); the same law as Alg. 3 (tested);
- wor: each batch a uniform subset of fixed size b, independently across steps (lebeda24).

The correlated-noise samplers (issue 44, docs/MATRIX.md) draw a whole run of ``steps`` steps
(their law is not one of epochs): ``cyclic_poisson_batches`` (k public groups, example i in group
i mod k; at step t each example of group t mod k joins with probability q),
``fixed_balls_and_bins_batches`` (each example in one uniform bin s of [k], in the batches of the
steps t = s mod k) and ``b_min_sep_batches`` (after a participation at t the next is at
t + b_sep - 1 + G, G ~ Geometric(p) on {1, 2, ...}; the first at G - 1, or with warm start
j - 1 + G, j in [0, b_sep) with probability proportional to (1, p, ..., p)).

``pad_or_truncate`` turns a batch into exactly B slots, as in chua25 Sec. 5: a larger batch is
subsampled uniformly without replacement, a smaller one padded with index -1 and weight 0.

``BatchSampler`` is the loader side: the batches of a whole run (K epochs of T = ceil(n / b)
steps) for one of SAMPLERS, seeded per epoch, re-iterable, usable as a PyTorch ``batch_sampler``,
with optional truncation/padding and ``accounting()``: the run in the accountant face's terms,
with its truncation delta (``accountants.loader.LoaderAccounting``; docs/LOADERS.md,
docs/INTEGRATIONS.md).

Which sampler does what is looked up, never compared by name: the sampler registry
(``dpsampling.samplers``: whether batch sizes vary, the per-step inclusion rate, the generator
variants) and, here, each sampler's epoch plan (``PLANS``, keyed by the registry).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from dpsampling.accountants.closed_form.truncation import max_batch_size as smallest_max_batch_size
from dpsampling.accountants.closed_form.truncation import truncation_delta
from dpsampling.samplers import GENERATORS, SAMPLER_NAMES, SAMPLERS, VARIABLE_SIZE
from dpsampling.validation import check_choice, check_int_at_least, check_nonnegative, check_open_unit, check_rate


@dataclass(frozen=True)
class BatchPlan:
    """T batches over n examples: batch t is indices[offsets[t]:offsets[t + 1]]."""

    indices: np.ndarray
    offsets: np.ndarray
    n: int

    @property
    def steps(self) -> int:
        return len(self.offsets) - 1

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    def batch(self, t: int) -> np.ndarray:
        return self.indices[self.offsets[t]:self.offsets[t + 1]]

    def __iter__(self):
        return (self.batch(t) for t in range(self.steps))


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check(n, steps):
    n = check_int_at_least("n", n, 1)
    steps = check_int_at_least("steps", steps, 1)
    if steps > n:
        raise ValueError(f"steps must be at most n = {n} (every batch needs an example); got {steps}")
    return n, steps


def _even_offsets(n: int, steps: int) -> np.ndarray:
    return (np.arange(steps + 1, dtype=np.int64) * n) // steps


def deterministic_batches(n: int, steps: int) -> BatchPlan:
    n, steps = _check(n, steps)
    return BatchPlan(np.arange(n, dtype=np.int64), _even_offsets(n, steps), n)


def shuffle_batches(n: int, steps: int, seed=None) -> BatchPlan:
    n, steps = _check(n, steps)
    return BatchPlan(_rng(seed).permutation(n).astype(np.int64), _even_offsets(n, steps), n)


def poisson_batches(n: int, steps: int, seed=None, rate: float | None = None) -> BatchPlan:
    n, steps = _check(n, steps)
    rate = 1.0 / steps if rate is None else check_rate("sampling_rate", rate)
    rng = _rng(seed)
    sizes = rng.binomial(n, rate, size=steps)
    parts = [rng.choice(n, size=k, replace=False) for k in sizes]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return BatchPlan(np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64), offsets, n)


@numba.njit(cache=True)
def _group_by_bin(bins, steps):
    """Counting sort: example ids grouped by bin (ascending ids within a bin), and offsets."""
    counts = np.zeros(steps + 1, dtype=np.int64)
    for b in bins:
        counts[b + 1] += 1
    offsets = np.cumsum(counts)
    cursor = offsets[:-1].copy()
    order = np.empty(len(bins), dtype=np.int64)
    for i in range(len(bins)):
        order[cursor[bins[i]]] = i
        cursor[bins[i]] += 1
    return order, offsets


def balls_and_bins_batches(n: int, steps: int, seed=None) -> BatchPlan:
    """chua25 Alg. 3: every example to a uniform bin in [T], independently."""
    n, steps = _check(n, steps)
    bins = _rng(seed).integers(0, steps, size=n)
    order, offsets = _group_by_bin(bins, steps)
    return BatchPlan(order, offsets, n)


def balls_and_bins_sequential_batches(n: int, steps: int, seed=None) -> BatchPlan:
    """chua25 Sec. 5: shuffle, then sizes b_t ~ Bin(n - sum_{i<t} b_i, 1/(T - t + 1))."""
    n, steps = _check(n, steps)
    rng = _rng(seed)
    order = rng.permutation(n).astype(np.int64)
    sizes = np.empty(steps, dtype=np.int64)
    remaining = n
    for t in range(steps):
        sizes[t] = rng.binomial(remaining, 1.0 / (steps - t))
        remaining -= sizes[t]
    return BatchPlan(order, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), n)


def wor_batches(n: int, steps: int, batch_size: int, seed=None) -> BatchPlan:
    """Each step a uniform subset of exactly ``batch_size`` examples (sampling without replacement)."""
    n, steps = _check(n, steps)
    batch_size = check_int_at_least("batch_size", batch_size, 1)
    if batch_size > n:
        raise ValueError(f"batch_size must be at most the dataset size n = {n}; got {batch_size}")
    rng = _rng(seed)
    indices = np.concatenate([rng.choice(n, size=batch_size, replace=False) for _ in range(steps)]).astype(np.int64)
    return BatchPlan(indices, np.arange(steps + 1, dtype=np.int64) * batch_size, n)


def _plan_of_members(members: list[np.ndarray], n: int) -> BatchPlan:
    """A BatchPlan of the batches ``members`` (int64 arrays of example ids, one per step)."""
    sizes = np.array([len(batch) for batch in members], dtype=np.int64)
    indices = np.concatenate(members).astype(np.int64) if members else np.zeros(0, np.int64)
    return BatchPlan(indices, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), n)


def cyclic_poisson_batches(n: int, steps: int, cycle_length: int, rate: float, seed=None) -> BatchPlan:
    """Cyclic Poisson (Choquette-Choo et al. 2023): example i in public group i mod k; at step t
    each example of group t mod k joins independently with probability ``rate``."""
    n = check_int_at_least("n", n, 1)
    steps = check_int_at_least("steps", steps, 1)
    cycle_length = check_int_at_least("cycle_length", cycle_length, 1)
    if cycle_length > n:
        raise ValueError(f"cycle_length must be at most n = {n} (every group needs an example); got {cycle_length}")
    rate = check_rate("sampling_rate", rate)
    rng = _rng(seed)
    groups = [np.arange(group, n, cycle_length, dtype=np.int64) for group in range(cycle_length)]
    return _plan_of_members([group[rng.random(len(group)) < rate] for group in
                             (groups[t % cycle_length] for t in range(steps))], n)


def fixed_balls_and_bins_batches(n: int, steps: int, cycle_length: int, seed=None) -> BatchPlan:
    """Fixed balls-and-bins (jax-privacy's balls-in-bins): each example in one uniform bin s of
    [k], drawn once; batch t holds the examples of bin t mod k (ascending ids)."""
    n = check_int_at_least("n", n, 1)
    steps = check_int_at_least("steps", steps, 1)
    cycle_length = check_int_at_least("cycle_length", cycle_length, 1)
    bins = _rng(seed).integers(0, cycle_length, size=n)
    order, offsets = _group_by_bin(bins, cycle_length)
    cycle = [order[offsets[s]:offsets[s + 1]] for s in range(cycle_length)]
    return _plan_of_members([cycle[t % cycle_length] for t in range(steps)], n)


def b_min_sep_batches(n: int, steps: int, min_separation: int, rate: float, warm_start: bool = False,
                      seed=None) -> BatchPlan:
    """b-min-sep (Dong & Ganesh 2026): each example independently; after a participation at t the
    next at t + b_sep - 1 + G, G ~ Geometric(rate) on {1, 2, ...}; the first at G - 1 (cold start) or,
    with ``warm_start``, at j - 1 + G with j in [0, b_sep) drawn with weights (1, p, ..., p) (the
    stationary law of the last participation before step 0, at j - b_sep)."""
    n = check_int_at_least("n", n, 1)
    steps = check_int_at_least("steps", steps, 1)
    separation = check_int_at_least("min_separation", min_separation, 1)
    rate = check_rate("sampling_rate", rate)
    if not isinstance(warm_start, bool | np.bool_):
        raise ValueError(f"warm_start must be True or False; got {warm_start!r}")
    rng = _rng(seed)
    start = np.zeros(n, dtype=np.int64)
    if warm_start:
        weights = np.array([1.0] + [rate] * (separation - 1))
        start = rng.choice(separation, size=n, p=weights / weights.sum()).astype(np.int64)
    following = start - 1 + rng.geometric(rate, size=n)
    members = []
    for t in range(steps):
        joining = np.flatnonzero(following == t)
        following[joining] = t + separation - 1 + rng.geometric(rate, size=joining.size)
        members.append(joining.astype(np.int64))
    return _plan_of_members(members, n)


_MAKERS = {
    "deterministic": lambda n, steps, seed, b: deterministic_batches(n, steps),
    "shuffle": lambda n, steps, seed, b: shuffle_batches(n, steps, seed),
    "poisson": lambda n, steps, seed, b: poisson_batches(n, steps, seed),
    "balls_and_bins": lambda n, steps, seed, b: balls_and_bins_batches(n, steps, seed),
    "balls_and_bins_sequential": lambda n, steps, seed, b: balls_and_bins_sequential_batches(n, steps, seed),
    "wor": lambda n, steps, seed, b: wor_batches(n, steps, b or max(1, n // steps), seed),
}
if tuple(_MAKERS) != GENERATORS:
    raise ImportError(f"_MAKERS must have one entry per generator of the registry: {GENERATORS}; got {tuple(_MAKERS)}")


def make_batches(generator: str, n: int, steps: int, seed=None, batch_size: int | None = None) -> BatchPlan:
    """Dispatch by name (one of GENERATORS); ``batch_size`` only for wor (default n // steps)."""
    return _MAKERS[check_choice("generator", generator, GENERATORS)](n, steps, seed, batch_size)


def pad_or_truncate(batch: np.ndarray, max_batch_size: int, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Exactly ``max_batch_size`` slots: (indices, weights). Oversized batches are subsampled
    uniformly without replacement; short ones padded with index -1 and weight 0."""
    max_batch_size = check_int_at_least("max_batch_size", max_batch_size, 1)
    batch = np.asarray(batch, dtype=np.int64)
    if len(batch) > max_batch_size:
        chosen = _rng(seed).choice(len(batch), size=max_batch_size, replace=False)
        return batch[np.sort(chosen)], np.ones(max_batch_size)
    indices = np.full(max_batch_size, -1, dtype=np.int64)
    indices[: len(batch)] = batch
    weights = np.zeros(max_batch_size)
    weights[: len(batch)] = 1.0
    return indices, weights


# ---------------------------------------------------------------------------------------------
# Loader side: re-iterable, seeded, epoch-aware batch samplers (PyTorch ``batch_sampler`` duck type)
# ---------------------------------------------------------------------------------------------

PAD_INDEX = -1  # the index of a padding slot (weight 0), as in pad_or_truncate


class PaddedBatch(np.ndarray):
    """A batch of a truncating ``BatchSampler``: an int64 array that may hold PAD_INDEX. Numpy
    indexing (``X[batch]``) and ``tolist()`` work as for any array, but iterating one that holds
    padding (what a DataLoader does to fetch ``dataset[i]`` for each i) is refused: -1 would read
    the last example as a real one. ``PaddedDataset`` reads it whole (its ``__getitems__``)."""

    def __iter__(self):
        if self.ndim == 1 and (np.asarray(self) == PAD_INDEX).any():
            raise ValueError(f"a padded batch holds the padding index {PAD_INDEX}, which a dataset would read as "
                             "its last example: wrap the dataset in PaddedDataset(dataset) (padding then weighs 0), "
                             "or use batch.tolist() with BatchSampler.weights(batch)")
        return iter(np.asarray(self))

PLANS = {
    "deterministic": lambda n, steps, b, rng: deterministic_batches(n, steps),
    "shuffle": lambda n, steps, b, rng: shuffle_batches(n, steps, rng),
    "poisson": lambda n, steps, b, rng: poisson_batches(n, steps, rng, rate=b / n),
    "balls_and_bins": lambda n, steps, b, rng: balls_and_bins_batches(n, steps, rng),
    "wor": lambda n, steps, b, rng: wor_batches(n, steps, b, rng),
    "cyclic_poisson": None,
    "b_min_sep": None,
    "fixed_balls_and_bins": None,
}
"""The loader's epoch plan of each sampler of the registry, ``plan(n, T, b, rng)``: one epoch's
BatchPlan (the registry says whether its sizes vary and its inclusion rate); None for the
correlated-noise samplers, whose runs are not described by n, b and epochs alone (a cycle length
and a rate, a minimum separation, bins kept across epochs): ``BatchSampler`` refuses them, and
their generators above draw their batches (``NO_LOADER_PLAN``)."""
NO_LOADER_PLAN = {"cyclic_poisson": "cyclic_poisson_batches(n, steps, cycle_length, rate, seed)",
                  "b_min_sep": "b_min_sep_batches(n, steps, min_separation, rate, warm_start, seed)",
                  "fixed_balls_and_bins": "fixed_balls_and_bins_batches(n, steps, cycle_length, seed)"}
"""The generator that draws each sampler without a loader plan."""
LOADER_SAMPLERS = tuple(name for name, plan in PLANS.items() if plan is not None)
"""The samplers ``BatchSampler`` draws (those with a loader plan: the papers')."""
if tuple(PLANS) != SAMPLER_NAMES or {name for name, plan in PLANS.items() if plan is None} != set(NO_LOADER_PLAN):
    raise ImportError(f"PLANS must have one entry per registry sampler: {SAMPLER_NAMES}; got {tuple(PLANS)}")


@dataclass(frozen=True)
class Truncation:
    """A fixed batch size B for the samplers whose batch sizes vary (chua25 App. C): either
    ``max_batch_size`` B, or ``delta_target`` d, which picks the smallest B with delta' <= d at
    eps = ``epsilon`` (default 10, as chua25). ``epsilon`` is also the eps at which
    ``BatchSampler.accounting()`` reports delta'."""

    max_batch_size: int | None = None
    delta_target: float | None = None
    epsilon: float = 10.0


def _epoch_rng(seed: int, epoch: int) -> np.random.Generator:
    """Epoch e's stream: the e-th child of SeedSequence(seed), so each epoch stands alone."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(epoch,)))


class BatchSampler:
    """Batches of example indices for DP-SGD, epoch after epoch; re-iterable and reproducible.

    ``BatchSampler(sampler, dataset_size, batch_size, *, epochs=1, seed=0, truncation=None)``,
    ``sampler`` one of the registry's (``dpsampling.samplers``), ``truncation`` a ``Truncation`` or None.

    With n = dataset_size and b = batch_size, an epoch has T = ceil(n / b) steps (chua24/chua25
    write T = n / b with b dividing n):

    - deterministic, shuffle: the n examples (in order, or uniformly permuted) cut into T batches
      whose sizes differ by at most 1 (so each is at most b; exactly b when b divides n);
    - poisson: each example in each batch independently with probability q = b / n;
    - balls_and_bins: each example in one uniform batch of the T, independently (rate 1/T,
      expected batch size n / T <= b);
    - wor: each batch a uniform subset of exactly b examples, independently across steps (q = b / n).

    Iterating yields numpy int64 arrays, K T of them (K = epochs); ``len()`` is K T. Epoch e uses
    the stream SeedSequence(seed, spawn_key=(e,)), so iterating twice gives the same batches and
    ``epoch(e)`` alone gives epoch e's batches. Any object with __iter__ and __len__ like this is
    what ``torch.utils.data.DataLoader(dataset, batch_sampler=...)`` takes.

    Truncation and padding (poisson and balls_and_bins only; chua25 App. C): with
    ``Truncation(max_batch_size=B)`` (or ``Truncation(delta_target=d, epsilon=eps)``: B the
    smallest size whose delta' at eps is at most d), every batch has exactly B slots: a
    larger batch is replaced by a uniform subset of B of its examples, a smaller one is padded with
    PAD_INDEX (-1). The padding slots carry weight 0: ``weights(batch)`` (= batch != -1) is the mask
    a weighted loss needs, ``with_weights()`` yields (indices, weights) pairs, and
    ``PaddedDataset`` makes a dataset return (example, weight) for a DataLoader. The price is
    delta' = (1 + e^eps) K T Pr[Bin(n, b/n) > B] (``accounting().truncation_delta``).
    """

    def __init__(self, sampler: str, dataset_size: int, batch_size: int, *, epochs: int = 1, seed: int = 0,
                 truncation: Truncation | None = None):
        truncation = Truncation() if truncation is None else truncation
        if not isinstance(truncation, Truncation):
            raise ValueError(f"truncation must be a Truncation or None; got {truncation!r}")
        max_batch_size, truncation_delta_target = truncation.max_batch_size, truncation.delta_target
        if sampler in NO_LOADER_PLAN:
            raise ValueError(f"sampler must be one of {', '.join(LOADER_SAMPLERS)} for BatchSampler (a run of "
                             f"{sampler} is not described by dataset_size, batch_size and epochs); its batches: "
                             f"dpsampling.batches.{NO_LOADER_PLAN[sampler]}; got {sampler!r}")
        self.sampler = check_choice("sampler", sampler, LOADER_SAMPLERS)
        self.dataset_size = check_int_at_least("dataset_size", dataset_size, 1)
        self.batch_size = _check_int_in("batch_size", batch_size, 1, self.dataset_size, "dataset_size")
        self.epochs = check_int_at_least("epochs", epochs, 1)
        self.seed = check_int_at_least("seed", seed, 0)
        self.truncation_epsilon = check_nonnegative("truncation.epsilon", truncation.epsilon)
        self.steps_per_epoch = -(-self.dataset_size // self.batch_size)
        if (max_batch_size is not None or truncation_delta_target is not None) \
                and not SAMPLERS[self.sampler].variable_size:
            given = "truncation.max_batch_size" if max_batch_size is not None else "truncation.delta_target"
            raise ValueError(f"{given} applies to samplers {', '.join(n for n in VARIABLE_SIZE if n in LOADER_SAMPLERS)} only "
                             f"(their batch sizes vary); got it with sampler {self.sampler!r}")
        if max_batch_size is not None and truncation_delta_target is not None:
            raise ValueError("truncation.max_batch_size and truncation.delta_target must not both be given; got "
                             f"{max_batch_size!r} and {truncation_delta_target!r}")
        if truncation_delta_target is not None:
            target = check_open_unit("truncation.delta_target", truncation_delta_target)
            max_batch_size = smallest_max_batch_size(self.dataset_size, self.batch_size, self.steps,
                                                     self.truncation_epsilon, target)
        elif max_batch_size is not None:
            # below the expected batch size most batches are cut and the truncation delta passes 1
            max_batch_size = _check_int_in("truncation.max_batch_size", max_batch_size, self.batch_size,
                                           self.dataset_size, "dataset_size")
        self.max_batch_size = max_batch_size
        self._frozen = True

    def __setattr__(self, name, value):
        if getattr(self, "_frozen", False):  # batches and accounting() must describe the same run
            raise AttributeError(f"BatchSampler is immutable (make a new one); got {name} = {value!r}")
        object.__setattr__(self, name, value)

    @property
    def steps(self) -> int:
        """Steps over all epochs, K T."""
        return self.steps_per_epoch * self.epochs

    @property
    def sampling_rate(self) -> float | None:
        """Inclusion probability of an example in a batch: b/n (poisson, wor), 1/T (balls_and_bins), else None."""
        return SAMPLERS[self.sampler].inclusion_rate(self.dataset_size, self.batch_size, self.steps_per_epoch)

    def __len__(self) -> int:
        return self.steps

    def __iter__(self):
        for e in range(self.epochs):
            yield from self.epoch(e)

    def __repr__(self) -> str:
        return (f"BatchSampler({self.sampler!r}, dataset_size={self.dataset_size}, batch_size={self.batch_size}, "
                f"epochs={self.epochs}, seed={self.seed}, truncation=Truncation(max_batch_size={self.max_batch_size}, "
                f"epsilon={self.truncation_epsilon}))")

    def plan(self, epoch: int) -> BatchPlan:
        """Epoch ``epoch``'s batches before truncation and padding (a BatchPlan of T batches)."""
        epoch = _check_int_in("epoch", epoch, 0, self.epochs - 1, "epochs - 1")
        return self._plan(_epoch_rng(self.seed, epoch))

    def _plan(self, rng: np.random.Generator) -> BatchPlan:
        return PLANS[self.sampler](self.dataset_size, self.steps_per_epoch, self.batch_size, rng)

    def epoch(self, epoch: int) -> list[np.ndarray]:
        """Epoch ``epoch``'s T batches (int64 arrays; exactly max_batch_size long when it is set:
        then ``PaddedBatch``, which no dataset but ``PaddedDataset`` can be indexed with)."""
        epoch = _check_int_in("epoch", epoch, 0, self.epochs - 1, "epochs - 1")
        rng = _epoch_rng(self.seed, epoch)
        plan = self._plan(rng)
        if self.max_batch_size is None:
            return [plan.batch(t).copy() for t in range(plan.steps)]
        # The truncation subsets come from the same epoch stream, after the plan.
        return [pad_or_truncate(plan.batch(t), self.max_batch_size, rng)[0].view(PaddedBatch) for t in range(plan.steps)]

    @staticmethod
    def weights(batch: np.ndarray) -> np.ndarray:
        """Loss weights of a batch's slots: 1.0 for an example, 0.0 for padding (PAD_INDEX)."""
        return (np.asarray(batch) != PAD_INDEX).astype(np.float64)

    def with_weights(self):
        """Yield (indices, weights) for every step; padding slots have index PAD_INDEX and weight 0."""
        for batch in self:
            yield batch, self.weights(batch)

    def truncation_delta(self, epsilon: float | None = None) -> float:
        """delta' = (1 + e^eps) K T Pr[Bin(n, b/n) > B] (chua25 App. C); 0 without truncation.

        For balls_and_bins the batch size is Bin(n, 1/T) with 1/T <= b/n, so this is an upper bound."""
        epsilon = self.truncation_epsilon if epsilon is None else check_nonnegative("epsilon", epsilon)
        if self.max_batch_size is None:
            return 0.0
        return truncation_delta(self.dataset_size, self.batch_size, self.max_batch_size, self.steps, epsilon)

    def accounting(self):
        """The parameters an accountant needs, and delta' to add to its delta
        (``accountants.loader.LoaderAccounting``)."""
        from dpsampling.accountants.loader import LoaderAccounting

        return LoaderAccounting(self.sampler, self.dataset_size, self.batch_size, self.steps_per_epoch, self.epochs,
                                self.sampling_rate, self.max_batch_size, self.truncation_epsilon,
                                self.truncation_delta())


class PaddedDataset:
    """``dataset[i]`` as (example, weight): weight 1.0, or 0.0 and ``dataset[fill_index]`` for PAD_INDEX.

    For ``DataLoader(PaddedDataset(dataset), batch_sampler=BatchSampler(..., truncation=Truncation(max_batch_size=B)))``:
    the default collate then gives (examples, weights), weights a float32 tensor of length B.
    Weights are numpy float32 scalars (so that they collate to float32)."""

    def __init__(self, dataset, fill_index: int = 0):
        self.dataset = dataset
        self.fill_index = check_int_at_least("fill_index", fill_index, 0)

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitems__(self, indices):
        """A whole batch (what torch's DataLoader fetches with, where the dataset has it)."""
        return [self[index] for index in np.asarray(indices).tolist()]

    def __getitem__(self, index):
        index = int(index)
        if index == PAD_INDEX:
            return self.dataset[self.fill_index], np.float32(0.0)
        if index < 0:
            raise IndexError(f"index must be >= 0 or the padding index {PAD_INDEX}; got {index}")
        return self.dataset[index], np.float32(1.0)


def _check_int_in(name: str, value, lower: int, upper: int, upper_name: str) -> int:
    """An integer in [lower, upper]: ``batch_size must be in [1, dataset_size=100]; got 200``."""
    try:
        x = check_int_at_least(name, value, lower)
    except ValueError:
        x = None
    if x is None or x > upper:
        raise ValueError(f"{name} must be an integer in [{lower}, {upper_name}={upper}]; got {value!r}")
    return x
