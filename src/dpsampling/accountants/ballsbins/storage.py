"""Loss-sample shards on disk: one Parquet column ``loss`` plus the sampling parameters
(method, direction, sigma, T, epochs, orders, importance eps, log weight, seed entropy and
spawn key, chunking, sample count) in the metadata written by ``dpsampling.io``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

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
