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

``pad_or_truncate`` turns a batch into exactly B slots, as in chua25 Sec. 5: a larger batch is
subsampled uniformly without replacement, a smaller one padded with index -1 and weight 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from dpsampling.validation import check_int_at_least, check_rate

GENERATORS = ("deterministic", "shuffle", "poisson", "balls_and_bins", "balls_and_bins_sequential", "wor")


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


def make_batches(generator: str, n: int, steps: int, seed=None, batch_size: int | None = None) -> BatchPlan:
    """Dispatch by name (one of GENERATORS); ``batch_size`` only for wor (default n // steps)."""
    if generator not in GENERATORS:
        raise ValueError(f"generator must be one of {', '.join(GENERATORS)}; got {generator!r}")
    if generator == "deterministic":
        return deterministic_batches(n, steps)
    if generator == "wor":
        return wor_batches(n, steps, batch_size or max(1, n // steps), seed)
    return {"shuffle": shuffle_batches, "poisson": poisson_batches, "balls_and_bins": balls_and_bins_batches,
            "balls_and_bins_sequential": balls_and_bins_sequential_batches}[generator](n, steps, seed)


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
