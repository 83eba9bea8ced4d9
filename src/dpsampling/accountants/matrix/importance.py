"""Importance sampling for DP-MF, remove direction (chua25 Alg. 5, extended to banded C and every
Monte Carlo sampler: fixed balls-and-bins, balls-and-bins with a fresh bin per epoch, b-min-sep).

chua25 conditions the Gaussian noise on an event E with L <= eps_0 off E and weights by P(E). Here
y = m + w, m = C x the shift of the participation pattern x (drawn from the sampler's law), and

    E(C*) = {max_t w_t >= C*}.

Monotonicity: L(y) = log E_x' exp((<y, C x'> - ||C x'||^2 / 2) / sigma^2) is non-decreasing in every
coordinate y_t, since (C x')_t >= 0 (c >= 0). So if m <= M coordinatewise and every w_t < C*,
L(m + w) <= L(M + C* 1). C* solves L(M + C* 1) = eps_0 (L(M + c 1) increases in c; bisection, taking
the lower end, so L(M + C* 1) <= eps_0). Thresholds, per row M:

* fixed balls-and-bins: one row per bin s, M = m_s exactly (chua25's per-position event);
* balls-and-bins, fresh bin per epoch (bands <= k): one row, M = (c_(1) + c_(2)) 1 (the two largest
  coefficients: a window of bands <= k steps meets at most two epochs, one participation each);
* b-min-sep (bands <= b_sep): one row, M = max(c) 1 (at most one participation per window).

For every eps >= eps_0, Z = [1 - e^{eps - L}]_+ = 0 off E, so delta(eps) = E_x[P(E_x) E[Z | x, E_x]]
= W E[(P(E_x)/W) Z | E_x], W = max P(E) over the rows, P(E) = 1 - Phi(C*/sigma)^T exactly. Each term
(P(E_x)/W) Z lies in [0, 1], so the estimator statistics and the Bernoulli-KL bound of
``ballsbins.estimates`` apply with log weight log W: the bound gains a factor up to 1/W in samples.

w | E is drawn exactly: the first coordinate J above C* has P(J = j) = u^j (1-u) / (1-u^T),
u = Phi(C*/sigma); coordinates before J are N(0, sigma^2) truncated to (-inf, C*], J's to
[C*, inf), later ones are N(0, sigma^2). Estimates are NaN for eps < eps_0.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpsampling.accountants.ballsbins.estimates import DeltaEstimate, _check_grid
from dpsampling.accountants.matrix.montecarlo import CHUNK, check_monte_carlo, kernel_losses
from dpsampling.accountants.matrix.reference import bminsep_patterns, fixed_bins_shifts
from dpsampling.accountants.matrix.run import EPOCH_BINS, FIXED_BINS, MatrixRun, banded_times
from dpsampling.validation import check_int_at_least


def shift_bounds(run: MatrixRun) -> np.ndarray:
    """Rows M (module docstring): (k, T) for fixed balls-and-bins, else (1, T) bounding every shift C x."""
    if run.kind == FIXED_BINS:
        return fixed_bins_shifts(run)
    largest = sorted(run.coefficients, reverse=True)
    bound = largest[0] + (largest[1] if run.kind == EPOCH_BINS and run.bands > 1 else 0.0)
    return np.full((1, run.steps), bound)


def thresholds(run: MatrixRun, epsilon0: float) -> np.ndarray:
    """C* for every row M of ``shift_bounds``: the largest c found with L(M + c 1) <= eps_0."""
    rows = shift_bounds(run)

    def loss(c):  # L(M_r + c_r 1) for every row r
        return kernel_losses(run, rows + c[:, None])

    low = np.full(rows.shape[0], -1.0)
    high = np.full(rows.shape[0], 1.0)
    while np.any(loss(low) > epsilon0):
        low = np.where(loss(low) > epsilon0, 2 * low, low)
    while np.any(loss(high) < epsilon0):
        high = np.where(loss(high) < epsilon0, 2 * high, high)
    for _ in range(100):
        mid = 0.5 * (low + high)
        below = loss(mid) <= epsilon0
        low, high = np.where(below, mid, low), np.where(below, high, mid)
    return low


def _draw_shifts(run: MatrixRun, count: int, rng: np.random.Generator):
    """(row index, shift C x) of ``count`` patterns from the sampler's law."""
    if run.kind == FIXED_BINS:
        bins = rng.integers(0, run.cycle_length, size=count)
        return bins, fixed_bins_shifts(run)[bins]
    if run.kind == EPOCH_BINS:
        k = run.cycle_length
        steps = rng.integers(0, k, size=(count, run.epochs)) + k * np.arange(run.epochs)
        patterns = np.zeros((count, run.steps))
        patterns[np.arange(count)[:, None], steps] = 1.0
    else:
        patterns = bminsep_patterns(run, count, rng)
    return np.zeros(count, dtype=np.int64), banded_times(run.column(), patterns)


def _noise_on_event(rng: np.random.Generator, log_u: np.ndarray, steps: int, sigma: float) -> np.ndarray:
    """Rows of N(0, sigma^2 I_T) conditioned on max_t w_t >= C*, log_u = log Phi(C*/sigma) per row."""
    n = log_u.size
    u = np.exp(log_u)
    v = rng.random(n)  # first exceedance J: smallest j with 1 - u^{j+1} >= V (1 - u^T)
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.ceil(np.log1p(-v * -np.expm1(steps * log_u)) / log_u) - 1
    first = np.clip(np.nan_to_num(first, nan=0.0), 0, steps - 1).astype(np.int64)
    uniforms = rng.random((n, steps))
    t = np.arange(steps)[None, :]
    below = special.ndtri(uniforms * u[:, None])  # truncated to (-inf, C*]
    above = -special.ndtri(uniforms * -np.expm1(log_u)[:, None])  # truncated to [C*, inf)
    free = special.ndtri(uniforms)
    return sigma * np.where(t < first[:, None], below, np.where(t == first[:, None], above, free))


def event_log_masses(run: MatrixRun, epsilon0: float) -> np.ndarray:
    """log P(E) per row of ``shift_bounds`` (log W is their maximum)."""
    return np.log(-np.expm1(run.steps * special.log_ndtr(thresholds(run, epsilon0) / run.sigma)))


def importance_estimate(run: MatrixRun, epsilons, *, samples: int, epsilon0: float, seed: int = 0) -> DeltaEstimate:
    """Remove-direction estimate of delta at every eps >= epsilon0 (NaN below)."""
    if not isinstance(run, MatrixRun):
        raise ValueError(f"run must be a MatrixRun; got {type(run).__name__}")
    check_monte_carlo(run)
    samples = check_int_at_least("samples", samples, 1)
    grid = _check_grid(epsilons)
    epsilon0 = float(epsilon0)
    if not math.isfinite(epsilon0):
        raise ValueError(f"epsilon0 must be finite; got {epsilon0!r}")
    log_u = special.log_ndtr(thresholds(run, epsilon0) / run.sigma)
    log_mass = np.log(-np.expm1(run.steps * log_u))
    log_weight = float(log_mass.max())
    if not np.isfinite(log_weight):
        raise ValueError(f"epsilon0 must leave P(E) > 0; got {epsilon0!r}")
    relative = np.exp(log_mass - log_weight)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 2]))
    totals = np.zeros_like(grid)
    squares = np.zeros_like(grid)
    for start in range(0, samples, CHUNK):
        n = min(CHUNK, samples - start)
        rows, shifts = _draw_shifts(run, n, rng)
        losses = kernel_losses(run, shifts + _noise_on_event(rng, log_u[rows], run.steps, run.sigma))
        scale = relative[rows]
        for j, eps in enumerate(grid):
            z = scale * np.where(losses > eps, -np.expm1(eps - losses), 0.0)
            totals[j] += z.sum()
            squares[j] += (z * z).sum()
    count = np.full(grid.shape, samples, dtype=np.int64)
    return DeltaEstimate(grid, count, totals, squares, log_weight, epsilon0)
