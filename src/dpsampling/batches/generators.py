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

These are the kernels the samplers' classes (``dpsampling.samplers``) call for their batch plans;
this module does not know the registry (``batches.loader.make_batches`` draws by generator name).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from dpsampling.validation import check_int_at_least, check_rate


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
