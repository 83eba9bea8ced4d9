"""Shards on disk, with the sampling parameters (method, direction, sigma, T, epochs, orders,
importance eps, log weight, seed entropy and spawn key, chunking, sample count) in the metadata
written by ``dpsampling.io``:

- loss samples: one Parquet column ``loss`` (``write_loss_samples`` / ``read_loss_samples``);
- statistics: one row per eps of the shard's grid with count, sum and sum of squares of
  Z = [1 - e^{eps - L}]_+ (``write_loss_statistics`` / ``read_loss_statistics``), 32 bytes per
  eps whatever the sample count."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from dpsampling.accountants.ballsbins.estimates import DeltaEstimate
from dpsampling.accountants.ballsbins.sampling import LossSamples
from dpsampling.io import read_table, write_table


def write_loss_samples(samples: LossSamples, path):
    """Write one shard atomically; returns the path."""
    return write_table(pd.DataFrame({"loss": samples.losses}), path, samples.parameters())


def read_loss_samples(path, expected_parameters: dict | None = None) -> LossSamples:
    """Read a shard; ValueError if its recorded parameters differ from ``expected_parameters``."""
    frame, document = read_table(path, expected_parameters)
    p = document["parameters"]
    losses = frame["loss"].to_numpy(np.float64)
    if losses.size != p["samples"]:
        raise ValueError(f"{path} must hold {p['samples']} samples as recorded; got {losses.size}")
    return LossSamples(
        losses=losses, method=p["method"], direction=p["direction"], sigma=p["sigma"],
        steps=p["steps"], epochs=p["epochs"],
        orders=None if p["orders"] is None else np.asarray(p["orders"], dtype=np.int64),
        importance_epsilon=p["importance_epsilon"], log_weight=p["log_weight"],
        seed_entropy=None if p["seed_entropy"] is None else json.loads(p["seed_entropy"]),  # int or list of ints
        seed_spawn_key=tuple(p["seed_spawn_key"]), samples_per_chunk=p["samples_per_chunk"])


STATISTICS_COLUMNS = ("epsilon", "count", "total", "total_squares")


def write_loss_statistics(estimate: DeltaEstimate, path, metadata: dict):
    """Write the statistics of one shard (one row per eps: count, sum Z, sum Z^2) atomically;
    ``metadata`` must hold ``log_weight`` and ``importance_epsilon`` (what ``read`` rebuilds)."""
    frame = pd.DataFrame({"epsilon": estimate.epsilons, "count": estimate.count, "total": estimate.total,
                          "total_squares": estimate.total_squares})
    return write_table(frame, path, metadata)


def read_loss_statistics(path, expected_parameters: dict | None = None) -> DeltaEstimate:
    """Read a statistics shard as a ``DeltaEstimate``; ValueError if its recorded parameters differ
    from ``expected_parameters`` or its counts from the recorded sample count."""
    frame, document = read_table(path, expected_parameters)
    p = document["parameters"]
    if list(frame.columns) != list(STATISTICS_COLUMNS):
        raise ValueError(f"{path} must hold the columns {', '.join(STATISTICS_COLUMNS)}; got {', '.join(frame.columns)}")
    count = frame["count"].to_numpy(np.int64)
    if not np.all(count == p["samples"]):
        raise ValueError(f"{path} must count {p['samples']} samples at every eps as recorded; got {sorted(set(count))}")
    minimum = -math.inf if p["importance_epsilon"] is None else float(p["importance_epsilon"])
    return DeltaEstimate(frame["epsilon"].to_numpy(np.float64), count, frame["total"].to_numpy(np.float64),
                         frame["total_squares"].to_numpy(np.float64), float(p["log_weight"]), minimum)
