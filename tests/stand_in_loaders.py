"""Pure-numpy stand-ins for the loaders the audit reads (tests/auditing/): the index streams of
PyTorch's and Opacus' samplers as their sources draw them, and the broken loaders of issue 34.

Each is re-iterable (one epoch per ``iter()``, as a DataLoader iterates its batch_sampler) and
seeded once, so that its epochs differ as a real loader's do, unless it is the broken one that
reseeds every epoch.
"""

from __future__ import annotations

import numpy as np


class _Loader:
    def __init__(self, n: int, batch_size: int, seed: int):
        self.n, self.batch_size = n, batch_size
        self.rng = np.random.default_rng(seed)

    def _cut(self, order, drop_last=False):
        b = self.batch_size
        stop = len(order) - len(order) % b if drop_last else len(order)
        for start in range(0, stop, b):
            yield [int(i) for i in order[start:start + b]]  # lists of ints, as torch's BatchSampler yields


class TorchShuffle(_Loader):
    """torch BatchSampler(RandomSampler(data), b, drop_last): a fresh permutation per epoch."""

    def __init__(self, n, batch_size, seed, drop_last=False):
        super().__init__(n, batch_size, seed)
        self.drop_last = drop_last

    def __iter__(self):
        return self._cut(self.rng.permutation(self.n), self.drop_last)


class OpacusPoisson(_Loader):
    """Opacus' UniformWithReplacementSampler: each example in each of 1/q steps with probability q."""

    def __iter__(self):
        rate = self.batch_size / self.n
        for _ in range(round(1 / rate)):
            yield np.flatnonzero(self.rng.random(self.n) < rate)


class Weighted(_Loader):
    """torch WeightedRandomSampler(weights, num_samples=n, replacement=True) in batches of b:
    half of the examples weigh ``ratio`` times the others."""

    def __init__(self, n, batch_size, seed, ratio=2.0):
        super().__init__(n, batch_size, seed)
        weights = np.where(np.arange(n) < n // 2, ratio, 1.0)
        self.p = weights / weights.sum()

    def __iter__(self):
        return self._cut(self.rng.choice(self.n, size=self.n, replace=True, p=self.p))


class WeightedPoisson(_Loader):
    """Independent inclusion at per-example rates: half at ``ratio`` times the others' b / n."""

    def __init__(self, n, batch_size, seed, ratio=2.0):
        super().__init__(n, batch_size, seed)
        self.rates = np.where(np.arange(n) < n // 2, ratio, 1.0) * batch_size / n

    def __iter__(self):
        for _ in range(round(self.n / self.batch_size)):
            yield np.flatnonzero(self.rng.random(self.n) < self.rates)


class SameDropped(_Loader):
    """Shuffles the first n - ``dropped`` examples only (e.g. a sampler over a fixed subset with
    drop_last): the same examples are dropped every epoch."""

    def __init__(self, n, batch_size, seed, dropped):
        super().__init__(n, batch_size, seed)
        self.dropped = dropped

    def __iter__(self):
        return self._cut(self.rng.permutation(self.n - self.dropped), drop_last=True)


class DuplicatedIndex(_Loader):
    """A shuffle over an index list that holds example 0 twice (and so n + 1 entries)."""

    def __iter__(self):
        return self._cut(self.rng.permutation(np.concatenate([np.arange(self.n), [0]])))


class Reseeded(_Loader):
    """A shuffle whose generator is reseeded with the same seed at the start of every epoch."""

    def __init__(self, n, batch_size, seed):
        super().__init__(n, batch_size, seed)
        self.seed = seed

    def __iter__(self):
        return self._cut(np.random.default_rng(self.seed).permutation(self.n))


REAL = {"torch shuffle": (lambda n, b, s: TorchShuffle(n, b, s), "shuffle"),
        "torch shuffle, drop_last": (lambda n, b, s: TorchShuffle(n, b, s, drop_last=True), "shuffle"),
        "opacus poisson": (lambda n, b, s: OpacusPoisson(n, b, s), "poisson")}
"""Stand-in -> (maker, the sampler it is)."""
BROKEN = {"weighted": (lambda n, b, s: Weighted(n, b, s), "repeats"),
          "weighted poisson": (lambda n, b, s: WeightedPoisson(n, b, s), "unequal_rates"),
          "same dropped": (lambda n, b, s: SameDropped(n, b, s, dropped=b // 2 + 3 * b), "never_drawn"),
          "duplicated index": (lambda n, b, s: DuplicatedIndex(n, b, s), "fixed_counts"),  # or repeats: both in one batch
          "reseeded": (lambda n, b, s: Reseeded(n, b, s), "epochs_repeat")}
"""Stand-in -> (maker, the finding that flags it)."""
