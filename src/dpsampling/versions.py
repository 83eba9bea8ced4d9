"""Versions of the algorithms whose numbers are cached: the identity of a cached result.

A Monte Carlo shard or a training run is identified by its canonical parameters and by the
version of the algorithm family that drew it (not by file times or code paths). The version is
passed to the producing rule as a param (so Snakemake reruns exactly that family's jobs when it
changes) and recorded in the Parquet metadata (so a reader refuses a file of another version).

Bump a family's ``version`` whenever a change alters the numbers it draws (its law, its random
stream, its chunking), and record the new ``digest``: ``python -m dpsampling.versions`` prints the
digest of each family's small fixed-seed sample, and ``tests/papers/test_versions.py`` fails when a
digest changes without its version. Comments, refactors and moved checkouts change neither.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AlgorithmVersion:
    version: int
    digest: str
    """sha256 (first 16 hex digits) of the family's fingerprint sample (``fingerprint``)."""


VERSIONS: dict[str, AlgorithmVersion] = {
    "ballsbins.naive": AlgorithmVersion(1, "57bf462ec6154faf"),
    "ballsbins.importance": AlgorithmVersion(1, "f2666cedfe70758d"),
    "ballsbins.order_statistics": AlgorithmVersion(1, "180c80571b92b05a"),
    "ballsbins.importance_order_statistics": AlgorithmVersion(1, "385e492953567b33"),
    "laplace.monte_carlo": AlgorithmVersion(1, "3ba51d9ce47a9d88"),
    "training.dpsgd": AlgorithmVersion(1, "3fd13ce8dc10ca89"),
}
"""Every cached algorithm family: ``ballsbins.<method>`` (chua25 shards), ``laplace.monte_carlo``
(lebeda24 shards), "training.dpsgd" (chua25 Fig. 1 runs)."""


def algorithm_version(family: str) -> int:
    """The current version of ``family`` (a key of VERSIONS)."""
    if family not in VERSIONS:
        raise ValueError(f"family must be one of {', '.join(VERSIONS)}; got {family!r}")
    return VERSIONS[family].version


def _ballsbins_sample(method: str) -> list[np.ndarray]:
    from dpsampling.accountants.ballsbins import LossLaw, sample_losses

    orders = "1..3,5" if "order" in method else None
    importance_epsilon = 0.5 if "importance" in method else None
    epochs = (1,) if "importance" in method else (1, 2)
    return [sample_losses(LossLaw(method, 0.7, 20, direction, orders, importance_epsilon, k), 64,
                          seed=12345).losses
            for direction in ("remove", "add") for k in epochs]


def _laplace_sample() -> list[np.ndarray]:
    from dpsampling.papers.lebeda24.laplace_mechanism import sample_privacy_loss

    return [sample_privacy_loss(sampler, direction, 1.0, 0.5, k, 256, seed=12345)
            for sampler in ("poisson", "wor") for direction in ("remove", "add") for k in (1, 2)]


def _training_sample() -> list[np.ndarray]:
    from dpsampling.training.data import synthetic_ctr
    from dpsampling.training.model import Model
    from dpsampling.training.sgd import TrainingSettings, train

    dataset = synthetic_ctr(512, seed=3, buckets=64)
    runs = [dataset.labels, dataset.numeric, dataset.categorical]
    for generator in ("shuffle", "poisson", "balls_and_bins"):
        for model in (Model(), Model("mlp", 4)):
            settings = TrainingSettings(generator, 64, sigma=0.5, clip_norm=1.0, model=model)
            runs.append(train(dataset, settings, seed=7)[0])
    return runs


def fingerprint(family: str) -> str:
    """Digest of a small fixed-seed sample of ``family``, rounded to 10 significant digits (robust
    to last-bit differences of libm, sensitive to any change of law, stream or chunking)."""
    algorithm_version(family)
    if family.startswith("ballsbins."):
        arrays = _ballsbins_sample(family.removeprefix("ballsbins."))
    elif family == "laplace.monte_carlo":
        arrays = _laplace_sample()
    else:
        arrays = _training_sample()
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.array2string(np.asarray(array, dtype=np.float64), precision=9, floatmode="fixed",
                                      formatter={"float_kind": lambda x: f"{x:.9e}"}, threshold=10**9).encode())
    return digest.hexdigest()[:16]


if __name__ == "__main__":
    for name, recorded in VERSIONS.items():
        current = fingerprint(name)
        status = "ok" if current == recorded.digest else "CHANGED: bump the version and record the digest"
        print(f"{name:40s} version {recorded.version}  digest {current}  {status}")
