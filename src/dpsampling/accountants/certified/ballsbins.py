"""Discrete laws of Y, of the average A of T copies and of the product of K copies of A.

Balls-and-bins' step laws: ``PointsLaw`` is the upper-bound representation, ``MeansLaw`` the
lower-bound one (the proofs: ``accountants.ballsbins_pld``'s docstring). Every function here is
private to the package and takes validated arguments.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from . import _kernels
from .laws import MeansLaw, PointsLaw, prune_means, prune_points

# The grid of Y leaves out at most this probability (times 1 / (T K)) at either end.
TAIL_MASS = 1e-30
_QUADRATURE_NODES, _QUADRATURE_WEIGHTS = np.polynomial.legendre.leggauss(8)


def y_range(sigma: float, tail_scale: float) -> tuple[float, float]:
    """[l_lo, l_hi] for log Y ~ N(-1/(2 sigma^2), 1/sigma^2): P(log Y < l_lo) and
    E[Y; log Y > l_hi] are both TAIL_MASS / tail_scale."""
    mu, sd = -0.5 / sigma**2, 1.0 / sigma
    z = -float(ndtri(TAIL_MASS / tail_scale))
    return mu - z * sd, mu + sd * sd + z * sd


def _cell_integrals(sigma: float, k_lo: int, k_hi: int, h: float):
    """For the cells k_lo..k_hi-1 of log Y: probability and theta = E[(Y - g_k); cell] /
    (P(cell) (g_{k+1} - g_k)) (the fraction of the cell's mass at its upper end when the mass
    is spread onto the two ends with its mean kept), by 8-point Gauss-Legendre in log y."""
    mu, sd = -0.5 / sigma**2, 1.0 / sigma
    ks = np.arange(k_lo, k_hi, dtype=float)
    x = (ks[:, None] + 0.5 * (1.0 + _QUADRATURE_NODES[None, :])) * h  # log y nodes
    log_density = -0.5 * ((x - mu) / sd) ** 2 - math.log(sd * math.sqrt(2 * math.pi))
    weights = 0.5 * h * _QUADRATURE_WEIGHTS[None, :] * np.exp(log_density)
    mass = weights.sum(axis=1)
    excess = (weights * np.expm1(x - ks[:, None] * h)).sum(axis=1) / math.expm1(h)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.clip(np.where(mass > 0, excess / mass, 0.0), 0.0, 1.0)
    return mass, theta


def y_laws(sigma: float, h: float, tail_scale: float) -> tuple[PointsLaw, MeansLaw]:
    """The two discrete laws of Y = exp(N(-1/(2 sigma^2), 1/sigma^2))."""
    mu, sd = -0.5 / sigma**2, 1.0 / sigma
    l_lo, l_hi = y_range(sigma, tail_scale)
    k_lo, k_hi = math.floor(l_lo / h), math.ceil(l_hi / h)
    mass, theta = _cell_integrals(sigma, k_lo, k_hi, h)
    # upper: Y clipped to [g_lo, g_hi], each cell spread onto its ends.
    p = np.zeros(k_hi - k_lo + 1)
    p[:-1] += mass * (1.0 - theta)
    p[1:] += mass * theta
    below = float(ndtr((k_lo * h - mu) / sd))
    above = float(ndtr((mu - k_hi * h) / sd))
    p[0] += below
    p[-1] += above
    upper = PointsLaw(k_lo, p, remove_excess=float(ndtr((mu + sd * sd - k_hi * h) / sd)),
                      add_excess=below)
    # lower: conditional means; cell k_lo is [0, g_{k_lo+1}), cell k_hi is [g_{k_hi}, inf).
    m = np.empty(k_hi - k_lo + 1)
    lv = np.empty_like(m)
    m[1:-1] = mass[1:]
    lv[1:-1] = (np.arange(k_lo + 1, k_hi) * h) + np.log1p(theta[1:] * math.expm1(h))
    first = ((k_lo + 1) * h - mu) / sd
    m[0] = float(ndtr(first))
    lv[0] = float(log_ndtr(first - sd) - log_ndtr(first))
    last = (mu - k_hi * h) / sd
    m[-1] = float(ndtr(last))
    lv[-1] = max(float(log_ndtr(last + sd) - log_ndtr(last)), k_hi * h)
    lv[0] = min(lv[0], (k_lo + 1) * h)
    return upper, MeansLaw(k_lo, m, lv)


def average_laws(a, b, w: float, h: float):
    """Law of w X + (1 - w) Y for two (PointsLaw, MeansLaw) pairs of independent variables."""
    (pa, ma), (pb, mb) = a, b
    out, o0 = _kernels.average_points(pa.p, pa.k0, pb.p, pb.k0, w, h)
    points = prune_points(PointsLaw(o0, out, w * pa.remove_excess + (1 - w) * pb.remove_excess,
                                    pa.add_excess + pb.add_excess), h)
    mass, lv, o0 = _kernels.average_means(ma.m, ma.lv, ma.k0, mb.m, mb.lv, mb.k0, w, h)
    return points, prune_means(MeansLaw(o0, mass, lv), h)


def multiply_laws(a, b, h: float):
    """Law of X Y for two (PointsLaw, MeansLaw) pairs of independent variables."""
    (pa, ma), (pb, mb) = a, b
    out, o0 = _kernels.multiply_points(pa.p, pa.k0, pb.p, pb.k0)
    mean_a, mean_b = pa.mean(h), pb.mean(h)
    da, db = pa.remove_excess, pb.remove_excess
    points = prune_points(PointsLaw(o0, out, da * mean_b + mean_a * db + da * db,
                                    pa.add_excess + pb.add_excess), h)
    mass, lv, o0 = _kernels.multiply_means(ma.m, ma.lv, ma.k0, mb.m, mb.lv, mb.k0, h)
    return points, prune_means(MeansLaw(o0, mass, lv), h)


def refine(pair, factor: int, h_fine: float):
    """The same two laws on the grid of step h_fine = h / factor (factor a power of 2).

    Points stay where they are (every coarse point is a fine point); each mean moves to the
    fine cell that holds it, the end cells staying open-ended. Nothing changes but the labels."""
    points, means = pair
    if factor == 1:
        return pair
    p = np.zeros((points.p.size - 1) * factor + 1)
    p[::factor] = points.p
    fine_points = PointsLaw(points.k0 * factor, p, points.remove_excess, points.add_excess)
    k0 = means.k0 * factor
    n = means.m.size * factor
    cells = np.clip(np.floor(means.lv / h_fine).astype(np.int64) - k0, 0, n - 1)
    mass = np.zeros(n)
    moment = np.zeros(n)
    np.add.at(mass, cells, means.m)
    with np.errstate(divide="ignore"):
        np.add.at(moment, cells, np.exp(np.log(means.m) + means.lv - (k0 + cells) * h_fine))
    with np.errstate(divide="ignore", invalid="ignore"):
        lv = (k0 + np.arange(n)) * h_fine + np.where(mass > 0, np.log(moment / mass), 0.0)
    edges = (k0 + np.arange(1, n)) * h_fine  # lower ends of cells 1..n-1
    lv[1:] = np.maximum(lv[1:], edges)
    lv[:-1] = np.minimum(lv[:-1], edges - 1e-12 * h_fine)
    return fine_points, prune_means(MeansLaw(k0, mass, lv), h_fine)


def log_sd_of_average(sigma: float, n: int) -> float:
    """Standard deviation of the lognormal with the mean and variance of A_n (a scale only)."""
    return math.sqrt(math.log1p(math.expm1(1.0 / sigma**2) / n))


def level_steps(sigma: float, steps: int, h_top: float, coarsest: float, scale: float) -> dict:
    """Grid step for the average of n copies: h_top * 2^j, the largest such step not above
    min(scale * sd_n, coarsest) * (h_top / min(scale * sd_T, coarsest)), sd_n the log-scale of
    A_n; so h_n shrinks like the spread of A_n and equals h_top at n = T."""
    ratio = h_top / min(scale * log_sd_of_average(sigma, steps), coarsest)
    out = {}
    sizes = {steps}
    while sizes:
        n = sizes.pop()
        if n in out:
            continue
        target = min(scale * log_sd_of_average(sigma, n), coarsest) * ratio
        out[n] = h_top * 2.0 ** max(0, math.floor(math.log2(target / h_top) + 1e-9))
        if n > 1:
            sizes.update({n // 2, n - n // 2})
    return out


def composed_laws(sigma: float, steps: int, epochs: int, h_top: float, coarsest: float,
                  scale: float):
    """(PointsLaw, MeansLaw) of prod_{k<epochs} A_k, A_k the average of ``steps`` copies of Y.

    The average is built by binary splitting A_n = (a A_a + b A_b) / n, a = n // 2 (at most
    two sizes per level, so at most 2 log2(steps) averages), each on the grid of
    ``level_steps``; the product by squaring on the grid h_top. Returns the pair and the
    largest array length used."""
    steps_of = level_steps(sigma, steps, h_top, coarsest, scale)
    h1 = steps_of[1]
    base = y_laws(sigma, h1, tail_scale=float(steps) * float(epochs))
    memo = {1: (prune_points(base[0], h1), prune_means(base[1], h1))}
    largest = [memo[1][0].p.size]

    def average_of(n):
        if n not in memo:
            a = n // 2
            h = steps_of[n]
            left = refine(average_of(a), round(steps_of[a] / h), h)
            right = refine(average_of(n - a), round(steps_of[n - a] / h), h)
            memo[n] = average_laws(left, right, a / n, h)
            largest.append(max(left[0].p.size, right[0].p.size, memo[n][0].p.size))
        return memo[n]

    factor = average_of(steps)
    result = None
    k = epochs
    while k:
        if k & 1:
            result = factor if result is None else multiply_laws(result, factor, h_top)
            largest.append(result[0].p.size)
        k >>= 1
        if k:
            factor = multiply_laws(factor, factor, h_top)
            largest.append(factor[0].p.size)
    return result, max(largest)
