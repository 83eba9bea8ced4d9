"""chua24 Thm 4.1: the E_C lower bound on delta_S never exceeds delta_D, checked over a (sigma,
T, epochs, eps) grid (config ``chua24.thm41``). A table, no figure.

Computed by ``curves.theorem_4_1_grid``; its claim counts the grid points where it fails.
"""

from __future__ import annotations

import numpy as np

from dpsampling.papers.chua24.curves import theorem_4_1_grid
from dpsampling.papers.chua24.workflow import chua24_experiment
from dpsampling.pipeline.claims.base import Claim

KIND = "theorem_4_1"
compute = theorem_4_1_grid


def _violations(frame):
    violations = int((~frame["holds"]).sum())
    return float(violations), f"{len(frame)} grid points (sigma x T x epochs x eps); max ratio lower/delta_D = " \
        f"{np.nanmax(frame['delta_shuffle_lower'] / frame['delta_deterministic'].where(frame['delta_deterministic'] > 1e-250)):.6f}" \
        " (where delta_D > 1e-250)"


CLAIMS = [
    Claim("chua24_thm41", "chua24_thm41", "grid points where delta_S lower > delta_D (Thm 4.1)", "~", "0", _violations,
          tolerance=0.0),
]

EXPERIMENT = chua24_experiment(__name__, KIND, compute, CLAIMS, figure=False)
