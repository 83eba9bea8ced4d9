"""Batches of example indices: what a DP-SGD data loader does, and the loader that does it.

``generators``: each sampler's batches as a ``BatchPlan`` (one epoch of the papers' samplers,
``make_batches`` by generator name; a run of the correlated-noise samplers), and
``pad_or_truncate``. ``loader``: ``BatchSampler``, the batches of a whole training run for any
sampler of the registry (re-iterable, seeded, a PyTorch ``batch_sampler``), its ``Truncation``
and ``Participation`` keywords, ``PaddedDataset``, and ``accounting()`` (docs/LOADERS.md).
Everything is importable from here, as ``dpsampling.batches.BatchSampler``.
"""

from __future__ import annotations

from dpsampling.batches.generators import (
    BatchPlan,
    _group_by_bin,
    b_min_sep_batches,
    balls_and_bins_batches,
    balls_and_bins_sequential_batches,
    cyclic_poisson_batches,
    deterministic_batches,
    fixed_balls_and_bins_batches,
    make_batches,
    pad_or_truncate,
    poisson_batches,
    shuffle_batches,
    wor_batches,
)
from dpsampling.batches.loader import (
    EPOCH_PLANS,
    LOADER_SAMPLERS,
    PAD_INDEX,
    PLANS,
    RUN_PLANS,
    BatchSampler,
    PaddedBatch,
    PaddedDataset,
    Participation,
    Truncation,
)

__all__ = ["EPOCH_PLANS", "LOADER_SAMPLERS", "PAD_INDEX", "PLANS", "RUN_PLANS", "BatchPlan", "BatchSampler",
           "PaddedBatch", "PaddedDataset", "Participation", "Truncation", "_group_by_bin", "b_min_sep_batches",
           "balls_and_bins_batches", "balls_and_bins_sequential_batches", "cyclic_poisson_batches",
           "deterministic_batches", "fixed_balls_and_bins_batches", "make_batches", "pad_or_truncate",
           "poisson_batches", "shuffle_batches", "wor_batches"]
