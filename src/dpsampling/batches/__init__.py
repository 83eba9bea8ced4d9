"""Batches of example indices: what a DP-SGD data loader does, and the loader that does it.

``generators``: the kernels of each sampler's batches as a ``BatchPlan`` (one epoch of the papers'
samplers; a run of the correlated-noise samplers), and ``pad_or_truncate``; they do not know the
registry (the samplers' classes, ``dpsampling.samplers``, call them). ``loader``: ``make_batches``
(one epoch by generator name), ``BatchSampler``, the batches of a whole training run for any
sampler of the registry (re-iterable, seeded, a PyTorch ``batch_sampler``), its ``Truncation``
and ``Participation`` keywords, ``PaddedDataset``, and ``accounting()`` (docs/LOADERS.md).
Everything is importable from here, as ``dpsampling.batches.BatchSampler``, each module loaded
on first use: a sampler's class imports ``generators`` without the loader (which imports the
registry).
"""

from __future__ import annotations

from dpsampling.lazy import lazy_attributes

_GENERATORS = ("BatchPlan", "b_min_sep_batches", "balls_and_bins_batches",
               "balls_and_bins_sequential_batches", "cyclic_poisson_batches", "deterministic_batches",
               "fixed_balls_and_bins_batches", "pad_or_truncate", "poisson_batches", "shuffle_batches", "wor_batches")
_LOADER = ("LOADER_SAMPLERS", "PAD_INDEX", "BatchSampler", "PaddedBatch", "PaddedDataset", "Participation",
           "Truncation", "make_batches")
_MODULE = {**dict.fromkeys(_GENERATORS, "dpsampling.batches.generators"),
           **dict.fromkeys(_LOADER, "dpsampling.batches.loader")}


__getattr__, __dir__ = lazy_attributes(__name__, {name: (module, name) for name, module in _MODULE.items()})

__all__ = sorted(_MODULE)
