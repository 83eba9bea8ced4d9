"""Importance sampling for fixed balls-and-bins DP-MF, remove direction (chua25 Alg. 5, extended).

chua25 conditions the Gaussian noise on an event E with L <= eps off E and weights by P(E). Here the
mixture component s is drawn first (uniform), y = m_s + w, m_s = C x_s >= 0 entrywise (c >= 0), and

    E_s = {max_t w_t >= C_s}.

Proof that L(y) < eps_0 off E_s: with A_s' = ||m_s'||_1 and G = M M^T, if every w_t < C_s then
<w, m_s'> < A_s' C_s (m_s' >= 0, not 0), so
    L(y) = log (1/k) sum_s' exp((<m_s, m_s'> + <w, m_s'> - G_s's'/2) / sigma^2)
         < log (1/k) sum_s' exp((G_ss' + A_s' C_s - G_s's'/2) / sigma^2) =: g_s(C_s),
and C_s solves g_s(C_s) = eps_0 (g_s increases from -inf to inf; bisection, taking the lower end so
g_s(C_s) <= eps_0). So for every eps >= eps_0, Z = [1 - e^{eps - L}]_+ = 0 off E_s and
delta(eps) = (1/k) sum_s P(E_s) E[Z | s, E_s] = W E[(P(E_s)/W) Z | E_s], W = max_s P(E_s), with
P(E_s) = 1 - Phi(C_s/sigma)^T exactly. Each term (P(E_s)/W) Z lies in [0, 1], so the estimator
statistics and the Bernoulli-KL bound of ``ballsbins.estimates`` apply with log weight log W.

w | E_s is drawn exactly: the first coordinate J above C_s has P(J = j) = u^j (1-u) / (1-u^T),
u = Phi(C_s/sigma); coordinates before J are N(0, sigma^2) truncated to (-inf, C_s], J's to
[C_s, inf), later ones are N(0, sigma^2). Estimates are NaN for eps < eps_0.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpsampling.accountants.ballsbins.estimates import DeltaEstimate, _check_grid
from dpsampling.accountants.matrix.montecarlo import CHUNK, kernel_losses
from dpsampling.accountants.matrix.reference import fixed_bins_shifts
from dpsampling.accountants.matrix.run import FIXED_BINS, MatrixRun
from dpsampling.validation import check_int_at_least


def thresholds(run: MatrixRun, epsilon0: float) -> np.ndarray:
    """C_s for every bin s (module docstring)."""
    shifts = fixed_bins_shifts(run)
    gram = shifts @ shifts.T
    mass = shifts.sum(axis=1)
    variance = run.sigma**2
    log_k = math.log(run.cycle_length)

    def g(c):  # c: (k,) -> g_s(c_s)
        logs = (gram + mass[None, :] * c[:, None] - 0.5 * np.diag(gram)[None, :]) / variance
        return special.logsumexp(logs, axis=1) - log_k

    low = np.full(run.cycle_length, -1.0)
    high = np.full(run.cycle_length, 1.0)
    while np.any(g(low) > epsilon0):
        low = np.where(g(low) > epsilon0, 2 * low, low)
    while np.any(g(high) < epsilon0):
        high = np.where(g(high) < epsilon0, 2 * high, high)
    for _ in range(200):
        mid = 0.5 * (low + high)
        below = g(mid) <= epsilon0
        low, high = np.where(below, mid, low), np.where(below, high, mid)
    return low


def importance_estimate(run: MatrixRun, epsilons, *, samples: int, epsilon0: float, seed: int = 0) -> DeltaEstimate:
    """Remove-direction estimate of delta at every eps >= epsilon0 (NaN below), fixed balls-and-bins."""
    if not isinstance(run, MatrixRun) or run.kind != FIXED_BINS:
        raise ValueError("run must be a MatrixRun with sampler fixed_balls_and_bins for importance sampling")
    samples = check_int_at_least("samples", samples, 1)
    grid = _check_grid(epsilons)
    epsilon0 = float(epsilon0)
    if not math.isfinite(epsilon0):
        raise ValueError(f"epsilon0 must be finite; got {epsilon0!r}")
    k, steps, sigma = run.cycle_length, run.steps, run.sigma
    c = thresholds(run, epsilon0)
    log_u = special.log_ndtr(c / sigma)  # log Phi(C_s / sigma)
    log_mass = np.log(-np.expm1(steps * log_u))  # log P(E_s)
    log_weight = float(log_mass.max())
    if not np.isfinite(log_weight):
        raise ValueError(f"epsilon0 must leave P(E) > 0; got {epsilon0!r}")
    relative = np.exp(log_mass - log_weight)
    shifts = fixed_bins_shifts(run)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 2]))
    totals = np.zeros_like(grid)
    squares = np.zeros_like(grid)
    for start in range(0, samples, CHUNK):
        n = min(CHUNK, samples - start)
        bins = rng.integers(0, k, size=n)
        lu = log_u[bins]
        u = np.exp(lu)
        # first exceedance J: smallest j with 1 - u^{j+1} >= V (1 - u^T)
        v = rng.random(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            first = np.ceil(np.log1p(-v * -np.expm1(steps * lu)) / lu) - 1
        first = np.clip(np.nan_to_num(first, nan=0.0), 0, steps - 1).astype(np.int64)
        uniforms = rng.random((n, steps))
        t = np.arange(steps)[None, :]
        below = special.ndtri(uniforms * u[:, None])  # truncated to (-inf, C]
        above = -special.ndtri(uniforms * -np.expm1(lu)[:, None])  # truncated to [C, inf)
        free = special.ndtri(uniforms)
        noise = sigma * np.where(t < first[:, None], below, np.where(t == first[:, None], above, free))
        losses = kernel_losses(run, noise + shifts[bins])
        scale = relative[bins]
        for j, eps in enumerate(grid):
            z = scale * np.where(losses > eps, -np.expm1(eps - losses), 0.0)
            totals[j] += z.sum()
            squares[j] += (z * z).sum()
    count = np.full(grid.shape, samples, dtype=np.int64)
    return DeltaEstimate(grid, count, totals, squares, log_weight, epsilon0)
