"""The cache identity guard: a kernel family's numbers cannot change without its version."""

import pytest

from dpsampling.papers.fingerprints import fingerprint
from dpsampling.versions import VERSIONS, algorithm_version


@pytest.mark.parametrize("family", sorted(VERSIONS))
def test_fingerprint_matches_the_recorded_digest(family):
    """A fixed-seed sample of the family hashes to the digest recorded next to its version. If this
    fails, the family's numbers changed: bump its version in dpsampling/versions.py (its cached
    results are then redrawn, and only those) and record the digest `python -m dpsampling.papers.fingerprints`
    prints."""
    assert fingerprint(family) == VERSIONS[family].digest


def test_unknown_family_is_refused():
    with pytest.raises(ValueError, match="family must be one of .*; got 'ballsbins.magic'"):
        algorithm_version("ballsbins.magic")
