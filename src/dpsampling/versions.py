"""Versions of the algorithms whose numbers are cached: the identity of a cached result.

A Monte Carlo shard or a training run is identified by its canonical parameters and by the
version of the algorithm family that drew it (not by file times or code paths). The version is
passed to the producing rule as a param (so Snakemake reruns exactly that family's jobs when it
changes) and recorded in the Parquet metadata (so a reader refuses a file of another version).

Bump a family's ``version`` whenever a change alters the numbers it draws (its law, its random
stream, its chunking), and record the new ``digest``: ``python -m dpsampling.papers.fingerprints``
prints the digest of each family's small fixed-seed sample (drawn above this module, by the papers
and the training that own the families), and ``tests/papers/test_versions.py`` fails when a digest
changes without its version. Comments, refactors and moved checkouts change neither.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    "matrix.monte_carlo": AlgorithmVersion(1, "66d3cdba3f916b39"),
    "training.dpsgd": AlgorithmVersion(1, "3fd13ce8dc10ca89"),
}
"""Every cached algorithm family: ``ballsbins.<method>`` (chua25 shards), ``laplace.monte_carlo``
(lebeda24 shards), ``matrix.monte_carlo`` (bandmf26 Monte Carlo points, ``accountants.matrix``),
"training.dpsgd" (chua25 Fig. 1 runs)."""


def algorithm_version(family: str) -> int:
    """The current version of ``family`` (a key of VERSIONS)."""
    if family not in VERSIONS:
        raise ValueError(f"family must be one of {', '.join(VERSIONS)}; got {family!r}")
    return VERSIONS[family].version
