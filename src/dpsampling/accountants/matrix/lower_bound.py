"""Certified lower bound on delta(eps) for fixed balls-and-bins DP-MF (no sampling).

For any event A, H_{e^eps}(P || Q) >= P(A) - e^eps Q(A) (the hockey-stick divergence is the supremum
over events). With v = C x_0 (the shift of bin 0) and A_tau = {y : <y, v> > tau}, <y, v> is
N(<C x_s, v>, sigma^2 ||v||^2) under component s of P and N(0, sigma^2 ||v||^2) under Q, so

    remove: P(A) - e^eps Q(A) = (1/k) sum_s Phibar((tau - mu_s) / r) - e^eps Phibar(tau / r),
    add:    Q(B) - e^eps P(B), B = {<y, v> <= tau},

r = sigma ||v||, mu_s = <C x_s, v>, evaluated with scipy's ndtr (exact up to floating point) and
maximised over a grid of tau, less 1e-15 for rounding. Every tau gives a valid bound, so the grid
only costs tightness. It is weak when k > 1 (one bin's direction only; the mixture's best test is not
a half-space): a floor, not an estimate. The
result is labelled "certified lower bound (event <y, C x_0> > tau)". For k = 1 it is the Gaussian
mechanism's delta (the likelihood-ratio test is such an event), up to the grid.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

from dpsampling.accountants.matrix.reference import fixed_bins_shifts
from dpsampling.accountants.matrix.run import FIXED_BINS, MatrixRun

GRID = 4001
SLACK = 1e-15  # absolute rounding allowance subtracted from each difference of probabilities


def _bounds(run: MatrixRun, epsilon: float):
    shifts = fixed_bins_shifts(run)
    v = shifts[0]
    radius = run.sigma * float(np.linalg.norm(v))
    means = shifts @ v
    spread = float(means.max()) + 10.0 * radius
    taus = np.linspace(-spread, spread, GRID)
    upper_tail_p = special.ndtr((means[None, :] - taus[:, None]) / radius).mean(axis=1)
    upper_tail_q = special.ndtr(-taus / radius)
    remove = upper_tail_p - np.exp(epsilon) * upper_tail_q
    add = (1.0 - upper_tail_q) - np.exp(epsilon) * (1.0 - upper_tail_p)
    return max(float(remove.max()) - SLACK, 0.0), max(float(add.max()) - SLACK, 0.0)


def lower_bound_delta(run: MatrixRun, epsilons) -> pd.DataFrame:
    """Rows (epsilon, direction in remove/add/max): ``lower`` (certified). Fixed balls-and-bins only."""
    if not isinstance(run, MatrixRun) or run.kind != FIXED_BINS:
        raise ValueError("run must be a MatrixRun with sampler fixed_balls_and_bins for the certified lower bound")
    grid = np.atleast_1d(np.asarray(epsilons, dtype=np.float64))
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)):
        raise ValueError(f"epsilons must be a non-empty 1-d list of finite numbers; got {epsilons!r}")
    rows = []
    for epsilon in grid:
        remove, add = _bounds(run, float(epsilon))
        rows += [(epsilon, "remove", remove), (epsilon, "add", add), (epsilon, "max", max(remove, add))]
    table = pd.DataFrame(rows, columns=["epsilon", "direction", "lower"])
    table.attrs["method"] = "certified lower bound (event <y, C x_0> > tau, best tau of a grid)"
    return table
