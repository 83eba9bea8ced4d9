"""A loader's batches of example indices, epoch by epoch, read without touching the data.

``draw(loader, epochs=3, ...)`` returns a ``Draw``: ``dataset_size`` n and, per epoch, the
indices of its batches one after another with their offsets (batch t of epoch e is
``indices[e][offsets[e][t]:offsets[e][t + 1]]``). What is read from each kind of loader (duck
typed: neither torch nor jax is imported here):

- a PyTorch ``DataLoader`` (attributes ``dataset``, ``batch_sampler``, ``sampler``): its
  ``batch_sampler`` (Opacus' ``DPDataLoader`` has a ``UniformWithReplacementSampler`` there), never
  the loader itself, which would load the data; n = len(dataset). The batch sampler is read as
  below (our ``BatchSampler``, whose one pass is the whole run, in its epochs); A loader without one (over an
  ``IterableDataset``, or with ``batch_size=None``) is refused: its batches are the data;
- a jax-privacy ``BatchSelectionStrategy`` (a ``batch_iterator(num_examples, rng)`` method):
  ``batch_iterator(n, seed)``, cut into epochs of ``steps_per_epoch`` batches (default: its
  ``cycle_length`` where above 1, else ceil(n / batch_size) or ceil(1 / sampling_prob)); it needs
  ``dataset_size``;
- our ``batches.BatchSampler``: its stream, in epochs of its ``steps_per_epoch``;
- a PyTorch ``Sampler`` of single indices: cut into batches of ``batch_size``;
- any other iterable of index batches: with ``steps_per_epoch``, one pass cut into epochs of that
  many batches; without it, each fresh ``iter()`` is one epoch (as a ``BatchSampler`` is
  iterated by a ``DataLoader``); a one-shot iterator without ``steps_per_epoch`` is refused.

Negative indices are padding (ours and jax-privacy's pad with -1) and are dropped. A batch that is
not a 1-D sequence of integers (a tensor of data, a tuple) is refused: the audit reads indices
only. n defaults to the loader's dataset size, else the largest index + 1 (then an example above
it, never drawn, cannot be seen: ``Draw.notes`` says so).
"""

from __future__ import annotations

import itertools
import math
import numbers
import sys
from dataclasses import dataclass, field

import numpy as np

from dpsampling import progress
from dpsampling.validation import check_int_at_least

MIN_EPOCHS = 1
MAX_STEPS = 1_000_000
"""The most batches one ``iter()`` may yield before it is taken for endless."""


@dataclass
class Draw:
    """Index batches of ``len(indices)`` epochs over ``dataset_size`` examples (module docstring)."""

    dataset_size: int
    indices: list = field(default_factory=list)
    offsets: list = field(default_factory=list)
    source: str = ""
    notes: list = field(default_factory=list)

    @property
    def epochs(self) -> int:
        return len(self.indices)

    def sizes(self, epoch: int) -> np.ndarray:
        return np.diff(self.offsets[epoch])

    def batch_ids(self, epoch: int) -> np.ndarray:
        """The batch (0..T-1) of every drawn index of ``epoch``."""
        sizes = self.sizes(epoch)
        return np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)


def _as_indices(batch, where: str) -> np.ndarray:
    """One batch as int64, or a refusal that says the audit reads index batches only."""
    if isinstance(batch, np.ndarray):
        array = batch
    elif isinstance(batch, (list, range)) and all(isinstance(i, numbers.Integral) for i in batch[:8]):
        array = np.fromiter(batch, dtype=np.int64, count=len(batch))
    elif hasattr(batch, "numpy") and hasattr(batch, "dtype"):  # a (CPU) tensor
        array = np.asarray(batch.detach().cpu().numpy() if hasattr(batch, "detach") else batch)
    else:
        array = np.asarray(batch) if not isinstance(batch, (tuple, dict, str, bytes)) else None
    if array is None or array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
        kind = type(batch).__name__ if array is None else f"{type(batch).__name__} of dtype {array.dtype}, " \
                                                           f"shape {array.shape}"
        raise ValueError(f"loader must yield 1-D batches of integer example indices; {where} is a {kind}: the "
                         "audit reads indices only, never the data (pass the loader's batch_sampler or sampler)")
    return array.astype(np.int64, copy=False)


def _dataset_size_of(loader):
    for path in (("dataset",), ("data_source",), ("sampler", "data_source"), ("num_samples",), ("dataset_size",)):
        value = loader
        for name in path:
            value = getattr(value, name, None)
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)
        if value is not None and hasattr(value, "__len__") and path[-1] != "num_samples":
            try:
                return len(value)
            except TypeError:
                continue
    return None


def _is_data_loader(loader) -> bool:
    return all(hasattr(loader, name) for name in ("dataset", "batch_sampler", "sampler"))


def _strategy_steps_per_epoch(strategy, n: int) -> int:
    cycle = getattr(strategy, "cycle_length", 1) or 1
    if cycle > 1:
        return int(cycle)
    if getattr(strategy, "batch_size", None):
        return math.ceil(n / strategy.batch_size)
    if getattr(strategy, "sampling_prob", None):
        return max(1, math.ceil(round(1.0 / strategy.sampling_prob, 12)))
    raise ValueError(f"steps_per_epoch must be given for jax-privacy strategy {type(strategy).__name__} (it has no "
                     "cycle_length, batch_size or sampling_prob to cut its stream into epochs); got None")


def _epochs_from_stream(stream, epochs: int, steps_per_epoch: int, where: str):
    """``epochs`` epochs of ``steps_per_epoch`` batches from one pass (fewer if it ends)."""
    out = []
    batches = iter(stream)
    with progress.bar("drawing batches", total=epochs * steps_per_epoch) as bar:
        for e in range(epochs):
            epoch = [_as_indices(b, f"batch {t} of epoch {e} of {where}")
                     for t, b in enumerate(itertools.islice(batches, steps_per_epoch))]
            bar.update(len(epoch))
            if len(epoch) < steps_per_epoch:
                break
            out.append(epoch)
    return out


def _epochs_from_reiterable(loader, epochs: int, where: str):
    """One fresh ``iter()`` per epoch (an epoch that does not end within MAX_STEPS is refused)."""
    out = []
    with progress.bar("drawing epochs", total=epochs) as bar:
        for e in range(epochs):
            batches = itertools.islice(loader, MAX_STEPS + 1)
            out.append([_as_indices(b, f"batch {t} of epoch {e} of {where}") for t, b in enumerate(batches)])
            if len(out[-1]) > MAX_STEPS:
                raise ValueError(f"steps_per_epoch must be given for {where}: one iter() did not end within "
                                 f"{MAX_STEPS:,} batches (an endless sampler); got None")
            bar.update(1)
    return out


def _epochs_from_sampler(sampler, epochs: int, batch_size: int):
    """A sampler of single indices, each pass cut into batches of ``batch_size`` (the last shorter)."""
    out = []
    for _ in range(epochs):
        flat = np.fromiter((int(i) for i in sampler), dtype=np.int64)
        out.append(np.array_split(flat, range(batch_size, len(flat), batch_size)) if len(flat) else [])
    return out


def _first_is_integer(loader) -> bool:
    try:
        first = next(iter(loader))
    except StopIteration:
        return False
    return isinstance(first, numbers.Integral) or (isinstance(first, np.ndarray) and first.ndim == 0) or \
        (hasattr(first, "dim") and callable(first.dim) and first.dim() == 0)


def _read(loader, epochs: int, steps_per_epoch, batch_size, seed: int, n):
    """(epochs of batches, source words)."""
    from dpsampling.batches.loader import BatchSampler

    name = type(loader).__name__
    if _is_data_loader(loader):
        inner = loader.batch_sampler
        if inner is None or type(loader.sampler).__name__ == "_InfiniteConstantSampler":
            raise ValueError(f"loader must have a batch_sampler of indices; got a {name} without one (over an "
                             "IterableDataset, or with batch_size=None): its batches are the data themselves, which "
                             "the audit never reads; pass a loader over a map-style dataset, or its index batches")
        batches, source = _read(inner, epochs, steps_per_epoch, batch_size, seed, n)  # read as itself
        return batches, f"{name}.batch_sampler: {source}"
    if hasattr(loader, "batch_iterator"):
        if n is None:
            raise ValueError(f"dataset_size must be given for a jax-privacy strategy ({name}: its batch_iterator takes "
                             "num_examples); got None")
        per_epoch = steps_per_epoch or _strategy_steps_per_epoch(loader, n)
        return _epochs_from_stream(loader.batch_iterator(n, rng=seed), epochs, per_epoch, name), \
            f"{name}.batch_iterator({n}, rng={seed})"
    if isinstance(loader, BatchSampler):
        per_epoch = steps_per_epoch or loader.steps_per_epoch
        return _epochs_from_stream(loader, epochs, per_epoch, name), repr(loader)
    if not hasattr(loader, "__iter__"):
        raise ValueError(f"loader must be a DataLoader, a sampler, a jax-privacy strategy or an iterable of index "
                         f"batches; got a {name}")
    if steps_per_epoch is not None:
        return _epochs_from_stream(loader, epochs, steps_per_epoch, name), f"{name}, one pass"
    if iter(loader) is loader:
        raise ValueError(f"steps_per_epoch must be given for a one-shot iterator ({name}: it cannot be iterated once "
                         "per epoch, so its stream is cut into epochs of steps_per_epoch batches); got None")
    if _first_is_integer(loader):
        if batch_size is None:
            raise ValueError(f"batch_size must be given for a sampler of single indices ({name}); got None")
        return _epochs_from_sampler(loader, epochs, check_int_at_least("batch_size", batch_size, 1)), \
            f"{name} in batches of {batch_size}"
    return _epochs_from_reiterable(loader, epochs, name), f"{name}, one iter() per epoch"


MAX_COUNT = 10**15
"""The largest dataset size or steps per epoch an audit takes (a huge integer overflowed int64, issue 42)."""


def _pad_index(loader) -> int | None:
    """PAD_INDEX where ``loader`` is (or batches with) a truncating BatchSampler (its padding slots,
    which the audit drops), else None."""
    if "dpsampling.batches.loader" not in sys.modules:  # not imported: no BatchSampler made
        return None
    from dpsampling.batches.loader import PAD_INDEX, BatchSampler

    for candidate in (loader, getattr(loader, "batch_sampler", None)):
        if isinstance(candidate, BatchSampler) and candidate.max_batch_size is not None:
            return PAD_INDEX
    return None


def _check_indices(epoch: list, number: int, padding: int | None) -> None:
    """Every index >= 0 (a truncating BatchSampler's padding index aside), else one refusal."""
    for step, batch in enumerate(epoch):
        bad = batch[(batch < 0) & (batch != padding)] if padding is not None else batch[batch < 0]
        if bad.size:
            raise ValueError(f"loader must yield example indices >= 0; got {int(bad[0])} in batch {step} of epoch "
                             f"{number} (a negative index reads an example counted from the end of the dataset)")


def draw(loader, *, epochs: int = 3, dataset_size: int | None = None, steps_per_epoch: int | None = None,
         batch_size: int | None = None, seed: int = 0) -> Draw:
    """``epochs`` epochs of ``loader``'s index batches (module docstring); ``seed`` seeds what the
    audit seeds itself (a jax-privacy strategy's rng), never the loader's own generator."""
    epochs = check_int_at_least("epochs", epochs, MIN_EPOCHS)
    n = None if dataset_size is None else check_int_at_least("dataset_size", dataset_size, 1)
    if n is not None and n > MAX_COUNT:
        raise ValueError(f"dataset_size must be at most {MAX_COUNT:.0e} (the audit holds int64 indices); got {n:.3g}")
    if steps_per_epoch is not None:
        steps_per_epoch = check_int_at_least("steps_per_epoch", steps_per_epoch, 1)
        if steps_per_epoch > MAX_COUNT:
            raise ValueError(f"steps_per_epoch must be at most {MAX_COUNT:.0e} (the batches the audit reads); got "
                             f"{steps_per_epoch:.3g}")
    seed = check_int_at_least("seed", seed, 0)
    known = n if n is not None else _dataset_size_of(loader)
    batches, source = _read(loader, epochs, steps_per_epoch, batch_size, seed, known)
    if not batches or not any(len(b) for b in batches[0]):
        raise ValueError(f"loader must yield at least one epoch of index batches; got none from {source}")
    notes = [] if len(batches) == epochs else [f"the loader ended after {len(batches)} of the {epochs} epochs asked"]
    result = Draw(0, source=source, notes=notes)
    largest, padding = -1, _pad_index(loader)
    for number, epoch in enumerate(batches):
        _check_indices(epoch, number, padding)
        kept = epoch if padding is None else [b[b != padding] for b in epoch]
        sizes = np.fromiter((len(b) for b in kept), dtype=np.int64, count=len(kept))
        indices = np.concatenate(kept) if kept else np.zeros(0, np.int64)
        largest = max(largest, int(indices.max()) if indices.size else -1)
        result.indices.append(indices)
        result.offsets.append(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64))
    if known is None:
        known = largest + 1
        result.notes.append(f"dataset_size not given: taken as the largest index + 1 = {known} (an example above it, "
                            "never drawn, cannot be seen)")
    if largest >= known:
        raise ValueError(f"dataset_size must exceed every index drawn; got {known} with index {largest} drawn")
    result.dataset_size = known
    return result


__all__ = ["Draw", "draw"]
