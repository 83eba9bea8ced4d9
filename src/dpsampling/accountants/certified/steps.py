"""Discrete laws of one step's likelihood ratio L = (1 - q) + q Y of a subsampled Gaussian.

Poisson subsampling at rate q with noise sigma (sensitivity 1) is dominated by
P = (1 - q) N(0, s^2) + q N(1, s^2) vs Q = N(0, s^2) (chua24 Sec. 3), and WOR by the same pair
at distance 2, i.e. at noise sigma / 2 (lebeda24 Thm 10.2). Under Q,
    dP/dQ(x) = L = (1 - q) + q Y,    Y = exp((2 x - 1) / (2 sigma^2)),
so log Y ~ N(mu, s^2) with mu = -1/(2 sigma^2), s = 1/sigma, and E[Y] = E[L] = 1. The
size-biased law of log Y (E[Y; log Y in A] = P(N(mu + s^2, s^2) in A)) gives every partial first
moment in closed form.

Grid g_k = exp(k h). L >= 1 - q, so the lowest cell k_lo = floor(log(1 - q) / h) holds
Y in [0, y_1): nothing is clipped below (q < 1). Cell k of L is the interval of Y between
y(g_k) and y(g_{k+1}), y(g) = (g - 1 + q) / q. Per cell we need its probability P_k and
E[L - g_k; cell] = q E[Y - y(g_k); cell] >= 0:
- narrow cells (width of log Y <= NARROW, and 1/sigma >= 0.1 wide: w / s <= 0.5): 5-point Gauss-Legendre in log y of
  e^{t_k} expm1(t - t_k) phi(t) (no cancellation);
- wide cells: the closed forms E[Y; cell] - y(g_k) P_k (their relative gap is >= ~NARROW/2, so
  the subtraction loses at most ~2 / NARROW of the 16 digits).
The upper law spreads each cell onto its ends with the mean kept (convex order); the lower law
keeps one atom per cell at its conditional mean (Jensen). Above the top point g_hi, chosen so
that E[L; L > g_hi] <= tail, the upper law moves the mass down to g_hi (free for add; for
remove E[(L - g_hi)_+] is added to ``remove_excess``); the lower law keeps it as an open-ended
top cell at its conditional mean. q = 1 is the Gaussian mechanism itself (``ballsbins``'s
law of Y).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr, ndtri

from . import ballsbins as _laws
from . import rounding
from .laws import TINY, MeansLaw, PointsLaw, kept_entries

NARROW = 0.05
STEP_KEEP = 1e-10  # the lower law keeps at most a step's cells whose mass and moment are known to this (``laws.kept_entries``)
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(5)


def _interval_probability(a, b):
    """P(a <= Z < b) for standard normal Z, from the tail nearer the interval."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    upper = a > 0
    return np.where(upper, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))


def _cell_moments(q: float, sigma: float, k: np.ndarray, h: float):
    """P_k and E[L - g_k; cell k] for finite cells k (log y at both ends finite)."""
    mu, s = -0.5 / sigma**2, 1.0 / sigma
    log_q = math.log(q)
    t_lo = np.log(np.expm1(k * h) + q) - log_q
    t_hi = np.log(np.expm1((k + 1) * h) + q) - log_q
    mass = _interval_probability((t_lo - mu) / s, (t_hi - mu) / s)
    width = t_hi - t_lo
    # narrow: Gauss-Legendre in t of e^{t_lo} expm1(t - t_lo) phi(t)
    t = t_lo[:, None] + 0.5 * width[:, None] * (1.0 + _NODES[None, :])
    log_phi = -0.5 * ((t - mu) / s) ** 2 - math.log(s * math.sqrt(2.0 * math.pi))
    gl = 0.5 * width * (_WEIGHTS[None, :] * np.expm1(t - t_lo[:, None]) * np.exp(log_phi + t_lo[:, None])).sum(axis=1)
    # the mass, where Gauss-Legendre's remainder is proven below GL_MASS_ACCURACY (``rounding.gl_mass_error``):
    # by it (a difference of two ndtr values would cancel), elsewhere by that difference
    gl_mass = 0.5 * width * (_WEIGHTS[None, :] * np.exp(log_phi)).sum(axis=1)
    mass = np.where(rounding.gl_mass_error(t_lo, t_hi, mu, s) <= rounding.GL_MASS_ACCURACY, gl_mass, mass)
    # wide: closed forms
    shifted = mu + s * s
    first = _interval_probability((t_lo - shifted) / s, (t_hi - shifted) / s)
    closed = first - np.exp(t_lo) * mass
    excess = q * np.where(width <= NARROW, gl, np.maximum(closed, 0.0))
    return mass, excess


def _top_log_y(sigma: float, q: float, tail: float) -> float:
    """t_top with q E[Y; log Y > t_top] = q Phi((mu + s^2 - t_top) / s) <= tail."""
    mu, s = -0.5 / sigma**2, 1.0 / sigma
    return mu + s * s - s * float(ndtri(min(tail / q, 0.5)))


def step_log_range(sigma: float, q: float, tail: float) -> tuple[float, float]:
    """[log(1 - q), log of the top point] of the upper law of log L (q < 1), or of log Y (q = 1)."""
    if q >= 1.0:
        return _laws.y_range(sigma, _laws.TAIL_MASS / tail)
    return math.log1p(-q), math.log1p(q * math.expm1(_top_log_y(sigma, q, tail)))


def _lowest_cell(q: float, sigma: float, k_lo: int, h: float) -> tuple[float, float]:
    """P and E[L - g_{k_lo}; cell] of the lowest cell, Y in [0, y(g_{k_lo + 1})) (L - g_{k_lo} >= 0)."""
    mu, s = -0.5 / sigma**2, 1.0 / sigma
    t1 = math.log(math.expm1((k_lo + 1) * h) + q) - math.log(q)
    mass = float(ndtr((t1 - mu) / s))
    excess = -(math.expm1(k_lo * h) + q) * mass + q * float(ndtr((t1 - mu - s * s) / s))
    return mass, max(excess, 0.0)


def _cells_laws(q: float, sigma: float, k_first: int, k_stop: int, h: float, lowest: bool,
                top: bool) -> tuple[PointsLaw, MeansLaw]:
    """(upper, lower) laws of the part of L in cells k_first..k_stop - 1 of the grid of step h
    (``lowest``: the first cell reaches down to Y = 0; ``top``: the open cell above g_{k_stop} is
    included, moved down to g_{k_stop} in the upper law, at its conditional mean in the lower)."""
    mu, s = -0.5 / sigma**2, 1.0 / sigma
    ks = np.arange(k_first + int(lowest), k_stop)
    mass, excess = _cell_moments(q, sigma, ks.astype(float), h)
    if lowest:
        mass0, excess0 = _lowest_cell(q, sigma, k_first, h)
        mass, excess = np.concatenate([[mass0], mass]), np.concatenate([[excess0], excess])
    g = np.exp(np.arange(k_first, k_stop) * h)
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.clip(np.where(mass > 0, excess / (g * math.expm1(h)), 0.0), 0.0, mass)
        lv = np.arange(k_first, k_stop) * h + np.log1p(np.where(mass > 0, excess / (mass * g), 0.0))
    p = np.zeros(k_stop - k_first + 1)
    p[:-1] += mass - up
    p[1:] += up
    # assumption B per cell (``rounding.cell_errors``): the upper law raised by it, the lower law
    # keeps the cells known to laws.LOWER_THRESHOLD
    # PROOF Lemma 10: one step's upper law
    mass_err, up_err = rounding.cell_errors(q, sigma, ks.astype(float), h, mass, excess, lowest)
    raise_by = np.zeros(p.size)
    raise_by[:-1] += mass_err + up_err
    raise_by[1:] += up_err
    p += raise_by * (1.0 + 8.0 * rounding.U)
    above = above_first = 0.0
    if top:
        t_hi = math.log(math.expm1(k_stop * h) + q) - math.log(q)
        above = float(ndtr((mu - t_hi) / s))
        above_first = float(ndtr((mu + s * s - t_hi) / s))  # E[Y; Y > y_hi]
        p[-1] += above
        top_lv = math.log((1.0 - q) + q * above_first / above) if above > 0 else k_stop * h
        mass = np.concatenate([mass, [above]])
        lv = np.concatenate([lv, [max(top_lv, k_stop * h)]])
    accuracy = 1.0 + rounding.STEP_LAW_ACCURACY
    if top:
        # PROOF Lemma 10: the top cell's ndtr values, 2^-1022 each where subnormal (assumption B)
        p[-1] += above * rounding.STEP_LAW_ACCURACY + rounding.NDTR_SUBNORMAL
        above_first += rounding.NDTR_SUBNORMAL
    upper = PointsLaw(k_first, p, remove_excess=q * above_first * accuracy, add_excess=0.0)
    # an atom's mass within mass_err, its first moment mass g + excess within mass_err g +
    # STEP_LAW_ACCURACY excess <= (mass_err + STEP_LAW_ACCURACY expm1(h) mass) g (excess <= mass g expm1(h))
    # the lower law: the cells at their computed ends (``rounding.partition_mass_errors``)
    # PROOF Lemma 11: one step's lower law
    part_err = rounding.partition_mass_errors(q, sigma, ks.astype(float), h, mass[int(lowest):mass_err.size])
    if lowest:
        part_err = np.concatenate([mass_err[:1], part_err])
    relative = np.ones(mass.size)
    cells = mass[:mass_err.size]
    with np.errstate(divide="ignore", invalid="ignore"):
        relative[:mass_err.size] = np.where(cells > 0, part_err / cells, np.inf) + (
            rounding.STEP_LAW_ACCURACY * math.expm1(h) + 8.0 * rounding.U)
    relative[mass_err.size:] = 2.0 * rounding.STEP_LAW_ACCURACY  # the top cell: its two closed forms
    # a cell below TINY carries no atom (dropping lowers a lower law, Lemma 6): every atom's mass is
    # normal, so the merges (Lemma 8) meet no subnormal mass
    relative = np.where(mass >= TINY, relative, np.inf)
    kept = kept_entries(relative, mass, 0.0, STEP_KEEP)
    # PROOF Lemma 9: stored as logs
    stored = rounding.tilt_rounding(746.0 + abs(k_stop * h) + abs(k_first * h))
    lower_rel = float(np.max(relative[kept], initial=0.0)) * 2.0 + stored
    # an atom whose conditional mean did not compute (mass g underflowed: excess / 0, NaN) is dropped,
    # which only lowers a lower law (docs/PROOF.md Lemma 6); kept, its NaN location crashed the merges
    located = np.isfinite(lv)
    lv = np.where(located, lv, np.arange(k_first, k_first + lv.size) * h)
    return upper, MeansLaw(k_first, np.where(kept & located, mass, 0.0), lv, lower_rel)


def subsampled_step(sigma: float, q: float, h: float, tail: float) -> tuple[PointsLaw, MeansLaw]:
    """(upper, lower) laws of L = (1 - q) + q Y on the grid of step h; ``tail`` bounds the
    first moment E[L; L > g_hi] left above the top point (module docstring)."""
    if q >= 1.0:
        return _laws.y_laws(sigma, h, tail_scale=_laws.TAIL_MASS / tail)
    k_lo = math.floor(math.log1p(-q) / h)
    k_hi = max(math.ceil(math.log1p(q * math.expm1(_top_log_y(sigma, q, tail))) / h), k_lo + 2)
    return _cells_laws(q, sigma, k_lo, k_hi, h, lowest=True, top=True)


def split_log(sigma: float, q: float, mass: float) -> float:
    """log of the point of L above which the law of L has probability ``mass`` (q < 1)."""
    mu, s = -0.5 / sigma**2, 1.0 / sigma
    return math.log1p(q * math.expm1(mu - s * float(ndtri(mass))))


def split_step(sigma: float, q: float, h: float, coarse_step: float, cut: float, tail: float):
    """The laws of L as two parts (q < 1): cells below the first multiple of ``coarse_step`` at or
    above ``cut`` on the grid of step h (fine), the rest on the grid of step ``coarse_step``
    (a multiple of h), each as (upper, lower). Each part is a sub-probability; the mixture of
    the parts' upper (lower) laws is an upper (lower) law of L, as in ``subsampled_step``."""
    ratio = round(coarse_step / h)
    k_lo = math.floor(math.log1p(-q) / h)
    top = math.log1p(q * math.expm1(_top_log_y(sigma, q, tail)))
    cut_coarse = max(math.ceil(cut / coarse_step), math.floor(k_lo / ratio) + 1)
    k_cut = cut_coarse * ratio
    k_hi = max(math.ceil(top / coarse_step), cut_coarse + 1)
    fine = _cells_laws(q, sigma, k_lo, k_cut, h, lowest=True, top=False)
    coarse = _cells_laws(q, sigma, cut_coarse, k_hi, coarse_step, lowest=False, top=True)
    return fine, coarse


def log_sd(sigma: float, q: float) -> float:
    """log-scale of L: sd of the lognormal with L's mean 1 and variance q^2 (e^{1/sigma^2} - 1)."""
    return math.sqrt(math.log1p(q * q * math.expm1(1.0 / sigma**2)))


