"""Monte Carlo shards of the subsampled Laplace privacy loss (Appendix B.2), and their merge.

A curve is (sampler, direction, k): N draws of L_1 + ... + L_k (``laplace.sample_privacy_loss``).
Its N samples are cut into ``shards`` files of sizes differing by at most one; shard i draws from
``SeedSequence(entropy=(seed, crc32(experiment)), spawn_key=(sampler, direction, k, i))`` (sampler
and direction as their index in SUBSAMPLED_SAMPLERS / DIRECTIONS), so every number depends on the config
seed and the shard's identity only -- not on how many jobs run at once. The merge pools every
shard of a curve and evaluates delta(eps) = mean (1 - e^{eps - L})_+ at every eps of the grid E,
with the Hoeffding band alpha = sqrt(ln(2|E| / beta) / (2N)): the whole curve lies in its band
with probability >= 1 - beta.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from dpsampling import DIRECTIONS
from dpsampling.accountants.relations import check_direction
from dpsampling.io import read_table
from dpsampling.papers.lebeda24.laplace_mechanism import (
    CHUNK,
    delta_from_loss_samples,
    loss_samples_frame,
    sample_privacy_loss,
)
from dpsampling.papers.lebeda24.subsampled import SUBSAMPLED_SAMPLERS, check_sampler
from dpsampling.validation import check_int_at_least
from dpsampling.versions import algorithm_version


def shard_sizes(total: int, shards: int) -> list[int]:
    """``shards`` sizes summing to ``total``, the first ``total % shards`` one larger."""
    total = check_int_at_least("samples", total, 1)
    shards = check_int_at_least("shards", shards, 1)
    if shards > total:
        raise ValueError(f"shards must be at most samples = {total}; got {shards}")
    base, extra = divmod(total, shards)
    return [base + (i < extra) for i in range(shards)]


def shard_seed(seed: int, experiment: str, sampler: str, direction: str, k: int, shard: int) -> np.random.SeedSequence:
    """The shard's SeedSequence (see the module docstring)."""
    seed = check_int_at_least("seed", seed, 0)
    key = (SUBSAMPLED_SAMPLERS.index(check_sampler(sampler)), DIRECTIONS.index(check_direction(direction)),
           check_int_at_least("k", k, 1), check_int_at_least("shard", shard, 0))
    return np.random.SeedSequence(entropy=(seed, zlib.crc32(experiment.encode())), spawn_key=key)


def shard_parameters(spec: dict, seed: int, experiment: str, sampler: str, direction: str, k: int, shard: int) -> dict:
    """Everything a shard's numbers depend on (written to and checked against its metadata)."""
    sizes = shard_sizes(spec["samples"], spec["shards"])
    if not 0 <= shard < len(sizes):
        raise ValueError(f"shard must be in 0..{len(sizes) - 1}; got {shard}")
    sequence = shard_seed(seed, experiment, sampler, direction, k, shard)
    return {"experiment": experiment, "sampler": sampler, "direction": direction, "compositions": int(k),
            "shard": int(shard), "shards": int(spec["shards"]), "samples": int(sizes[shard]),
            "curve_samples": int(spec["samples"]), "laplace_scale": float(spec["laplace_scale"][sampler]),
            "sampling_rate": float(spec["sampling_rate"]), "seed": int(seed),
            "seed_entropy": [int(v) for v in sequence.entropy], "seed_spawn_key": list(sequence.spawn_key),
            "chunk": CHUNK, "algorithm_version": algorithm_version("laplace.monte_carlo")}


def sample_shard(parameters: dict) -> pd.DataFrame:
    """The one-column frame ``privacy_loss`` of the shard ``shard_parameters`` describes."""
    p = parameters
    seed = shard_seed(p["seed"], p["experiment"], p["sampler"], p["direction"], p["compositions"], p["shard"])
    samples = sample_privacy_loss(p["sampler"], p["direction"], p["laplace_scale"], p["sampling_rate"],
                                  p["compositions"], p["samples"], seed=seed)
    return loss_samples_frame(samples)


def read_curve(paths, spec: dict, seed: int, experiment: str, sampler: str, direction: str, k: int) -> np.ndarray:
    """All samples of one curve, each shard checked against the parameters it must have."""
    parts = []
    for shard, path in enumerate(paths):
        expected = shard_parameters(spec, seed, experiment, sampler, direction, k, shard)
        frame, _ = read_table(path, expected)
        parts.append(frame["privacy_loss"].to_numpy(np.float64))
    samples = np.concatenate(parts)
    if samples.size != spec["samples"]:
        raise ValueError(f"curve {sampler}/{direction}/k{k} must have {spec['samples']} samples; got {samples.size}")
    return samples


def merge_curves(shard_paths: dict, spec: dict, seed: int, experiment: str, epsilons, progress=print) -> pd.DataFrame:
    """Monte Carlo delta(eps) with its band for every curve.

    ``shard_paths``: {(sampler, direction, k): [path of shard 0, 1, ...]}. Columns: sampler,
    direction, compositions, epsilon, delta_mc, delta_mc_low, delta_mc_high, alpha, beta,
    n_samples, shards.
    """
    frames = []
    for (sampler, direction, k), paths in sorted(shard_paths.items()):
        samples = read_curve(paths, spec, seed, experiment, sampler, direction, k)
        frame = delta_from_loss_samples(samples, epsilons, beta=spec["beta"])
        frame.insert(0, "compositions", int(k))
        frame.insert(0, "direction", direction)
        frame.insert(0, "sampler", sampler)
        frame["shards"] = len(paths)
        frames.append(frame)
        progress(f"merged {sampler}/{direction}/k{k}: N = {samples.size}, alpha = {frame['alpha'].iloc[0]:.2e}")
    return pd.concat(frames, ignore_index=True)
