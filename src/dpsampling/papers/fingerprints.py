"""The fingerprints of the cached algorithm families (``dpsampling.versions``): a small fixed-seed
sample of each, hashed, so a change of numbers without a version bump fails the tests.

Here, above the papers and the training that own the families (``versions`` stays below them):
``python -m dpsampling.papers.fingerprints`` prints each family's digest and whether it is the one
recorded next to its version. The samples: chua25's balls-and-bins losses (each method),
lebeda24's subsampled Laplace losses (the rate-based samplers, as the paper's Fig. 1), banded DP-MF
losses (balls-and-bins and b-min-sep, bandmf26) and DP-SGD runs of chua25 Fig. 1's generators (its
config's default).
"""

from __future__ import annotations

import hashlib

import numpy as np

from dpsampling.lazy import lazy_import
from dpsampling.samplers import B_MIN_SEP, BALLS_AND_BINS, PAPER_RATE_BASED, POISSON, SHUFFLE
from dpsampling.versions import VERSIONS, algorithm_version

_sampling = lazy_import("dpsampling.accountants.ballsbins.sampling")  # the kernels: loaded by the first draw

FIG1_GENERATORS = (SHUFFLE.name, POISSON.name, BALLS_AND_BINS.name)
"""chua25 Fig. 1's generators (its config's default): shuffle, Poisson, balls-and-bins."""


def _ballsbins_sample(method: str) -> list[np.ndarray]:

    orders = "1..3,5" if "order" in method else None
    importance_epsilon = 0.5 if "importance" in method else None
    epochs = (1,) if "importance" in method else (1, 2)
    return [_sampling.sample_losses(_sampling.LossLaw(method, 0.7, 20, direction, orders, importance_epsilon, k), 64,
                          seed=12345).losses
            for direction in ("remove", "add") for k in epochs]


def _laplace_sample() -> list[np.ndarray]:
    from dpsampling.papers.lebeda24.laplace_mechanism import sample_privacy_loss

    return [sample_privacy_loss(sampler, direction, 1.0, 0.5, k, 256, seed=12345)
            for sampler in PAPER_RATE_BASED for direction in ("remove", "add") for k in (1, 2)]


def _training_sample() -> list[np.ndarray]:
    from dpsampling.training.data import synthetic_ctr
    from dpsampling.training.model import Model
    from dpsampling.training.sgd import TrainingSettings, train

    dataset = synthetic_ctr(512, seed=3, buckets=64)
    runs = [dataset.labels, dataset.numeric, dataset.categorical]
    for generator in FIG1_GENERATORS:
        for model in (Model(), Model("mlp", 4)):
            settings = TrainingSettings(generator, 64, sigma=0.5, clip_norm=1.0, model=model)
            runs.append(train(dataset, settings, seed=7)[0])
    return runs


def _matrix_sample() -> list[np.ndarray]:
    from dpsampling.accountants.matrix import MatrixRun, sample_losses

    runs = [MatrixRun([1.0, 0.5, 0.25], BALLS_AND_BINS.name, 1.0, 12, cycle_length=4),
            MatrixRun([1.0, 0.5], B_MIN_SEP.name, 1.0, 12, min_separation=2, sampling_rate=0.3)]
    return [sample_losses(run, 64, direction=direction, seed=12345) for run in runs for direction in ("remove", "add")]


def fingerprint(family: str) -> str:
    """Digest of a small fixed-seed sample of ``family``, rounded to 10 significant digits (robust
    to last-bit differences of libm, sensitive to any change of law, stream or chunking)."""
    algorithm_version(family)  # a known family
    if family.startswith("ballsbins."):
        arrays = _ballsbins_sample(family.removeprefix("ballsbins."))
    elif family == "laplace.monte_carlo":
        arrays = _laplace_sample()
    elif family == "matrix.monte_carlo":
        arrays = _matrix_sample()
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
