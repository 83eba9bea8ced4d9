"""Discrete laws of a likelihood ratio on the grid g_k = exp(k h), and what the engine does to them.

Two representations travel together (proofs: ``certified.ballsbins``):
- ``PointsLaw`` (upper bound): mass at grid points, dominating the true law in convex order;
- ``MeansLaw`` (lower bound): one atom per cell at the conditional mean, dominated in convex order.
For independent X, Z >= 0 both orders are kept by the product X Z, and by

- coarsening to a grid of step H >= h: a point between two coarse points is spread onto them with
  its mean kept (upper); atoms falling in the same coarse cell are merged at their conditional
  mean (lower, conditional Jensen: any partition will do);
- products: grid points multiply to grid points (index sums), so the upper product is a
  convolution of the masses; for the lower one, conditioning on the index sum i + j (again a
  partition) gives one atom per sum with mass sum m_i m'_j and first moment
  sum m_i v_i m'_j v'_j: two convolutions. Atoms are then merged into the cell that holds them.

Convolutions are ``convolution``'s: each entry comes with a proven bound on its error (tilted FFTs,
direct sums where no tilt makes the FFT's error relative). The upper law raises every entry by its
bound (an upper law may only gain mass) and cuts the stretches at either end where an entry is below
its bound, charging their mass and first moment (``multiply_points``), and charges likewise, from
their logarithms, the entries whose value and bound both underflow (far up the grid, past log g ~
745, an entry's mass is below the doubles while its first moment p g is not); the lower law drops
every entry not known to LOWER_THRESHOLD of it (dropping mass only lowers a delta) and carries the
kept entries' relative error. Every other operation (spreads, folds, merges, sums) adds its own
rounding to the law's ``rel_error``; docs/PROOF.md states the theorem (``rounding``: the bounds).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from . import convolution, rounding
from .convolution import TINY
from .threads import beside

# Mass (or first moment, for the upper tail) below which tails are folded in; every fold is
# accounted for exactly (remove_excess / add_excess) or is a coarsening (lower bound).
PRUNE_MASS = 1e-30
SUBNORMAL = 2.0**-1074  # an operation whose result is subnormal loses at most this absolutely (PROOF.md M4, R3)
LOWER_THRESHOLD = 1e-10  # the lower law keeps a convolution entry known to this fraction of it
LOWER_BUDGET = 1e-5
"""A product of n of a run's T steps may keep lower-law entries known to LOWER_BUDGET n / T of them
(``lower_keep``): its relative error enters the T-step law T / n times, so each product adds at most
LOWER_BUDGET to the final one (a decision, free for the proof: ``rounding``'s theorem charges the
largest kept ratio, whatever the threshold)."""
_LOWER_KEEP = contextvars.ContextVar("lower_keep", default=LOWER_THRESHOLD)


@contextlib.contextmanager
def lower_keep(share: float):
    """Products inside keep lower-law entries known to max(LOWER_THRESHOLD, LOWER_BUDGET share) of
    them, ``share`` = the product's steps / the run's (``compose.power``)."""
    token = _LOWER_KEEP.set(max(LOWER_THRESHOLD, LOWER_BUDGET * share))
    try:
        yield
    finally:
        _LOWER_KEEP.reset(token)


@dataclass
class PointsLaw:
    """Mass p[i] at exp((k0 + i) h); remove_excess d and add_excess e are added to the deltas."""

    k0: int
    p: np.ndarray
    remove_excess: float
    add_excess: float
    # the exact-arithmetic law's entries are at most (1 + rel_error) times these (one-sided: entries are
    # raised by absolute bounds; docs/PROOF.md section 4 lists the lines that read it)
    rel_error: float = 0.0

    def mean(self, h: float) -> float:
        """An upper bound on the exact-arithmetic law's mean (``rounding``)."""
        largest_log = 746.0 + h * max(abs(self.k0), abs(self.k0 + self.p.size))
        # PROOF Lemma 13: the law's mean
        fresh = rounding.tilt_rounding(largest_log) + rounding.gamma(self.p.size + 2)
        # PROOF Lemma 13: underflow, one SUBNORMAL per exp and one for the last product and division (M4, R3)
        total = float(_points_mean(self.p, self.k0, h)) + (self.p.size + 1.0) * SUBNORMAL
        return total * (1.0 + rounding.grow(self.rel_error, fresh)) / (1.0 - self.rel_error)

    def exact_mass_bound(self) -> float:
        """An upper bound on the exact-arithmetic law's mass."""
        # PROOF Lemma 13: the law's total
        # (a subnormal sum is exact, its product by 1 + g is >= it; the division may lose SUBNORMAL / 2: M4, R3)
        return float(np.sum(self.p)) * (1.0 + rounding.gamma(self.p.size + 1)) / (1.0 - self.rel_error) + SUBNORMAL


@dataclass
class MeansLaw:
    """Mass m[i] at exp(lv[i]) (cell k0 + i; the two end cells are open-ended)."""

    k0: int
    m: np.ndarray
    lv: np.ndarray
    rel_error: float = 0.0  # masses and first moments within a factor 1 +- rel_error of exact arithmetic's


@njit(cache=True, nogil=True)
def _points_mean(p, k0, h):
    total = 0.0
    for i in range(p.size):
        if p[i] > 0.0:
            total += math.exp(math.log(p[i]) + (k0 + i) * h)
    return total


def _log_extent(k0: int, size: int, h: float) -> float:
    """The largest |log| an entry's computation meets: log of a double (<= 746) and of g_k."""
    return 746.0 + h * max(abs(k0), abs(k0 + size))


def _tail_cost(p: np.ndarray, k0: int, hi: int, h: float) -> float:
    """sum_{k > hi} p_k (g_k - g_hi) = sum p_k g_hi expm1((k - hi) h): non-negative terms, no
    cancellation; an upper bound on its exact value for the exact p (relative ``rounding``)."""
    tail = p[hi + 1:]
    if tail.size == 0 or not np.any(tail > 0):
        return 0.0
    x = np.arange(1, tail.size + 1) * h
    # log expm1(x), as x + log1p(-e^-x) where expm1 would overflow (a few U either way, in logs)
    log_expm1 = np.where(x < 30.0, np.log(np.expm1(np.minimum(x, 30.0))), x + np.log1p(-np.exp(-x)))
    with np.errstate(divide="ignore", over="ignore"):
        terms = np.exp(np.log(tail) + (k0 + hi) * h + log_expm1)
    # PROOF Lemma 7: the fold's first-moment cost
    fresh = rounding.tilt_rounding(_log_extent(k0, p.size, h)) + rounding.gamma(tail.size + 2)
    # PROOF Lemma 7: underflow, one SUBNORMAL per exp, one for the product here and one for the caller's (M4, R3)
    return (float(np.sum(terms)) + (tail.size + 2.0) * SUBNORMAL) * (1.0 + fresh)


def prune_points(law: PointsLaw, h: float) -> PointsLaw:
    """Fold the tails: the lowest mass (total <= PRUNE_MASS) moves up to the first kept point
    (remove: a move up, free; add: costs at most its probability, union bound), the highest
    moves down to the last kept point (add: free; remove: costs its first-moment loss). The
    charges are upper bounds on the exact-arithmetic ones (divided by 1 - rel_error)."""
    p = law.p
    nz = np.nonzero(p > 0)[0]
    if nz.size == 0:
        raise FloatingPointError("the discrete law has no mass left")
    p = p[nz[0]:nz[-1] + 1].copy()
    k0 = law.k0 + int(nz[0])
    cum = np.cumsum(p)
    lo = int(np.searchsorted(cum, PRUNE_MASS, side="right"))  # p[:lo] sums to <= PRUNE_MASS
    lo = min(lo, p.size - 1)
    moved_up = float(cum[lo - 1]) if lo > 0 else 0.0
    # top: cost_j = sum_{k > j} p_k (g_k - g_j), from suffix sums (log domain, no overflow); the
    # decision only: the cost charged is recomputed without cancellation (_tail_cost)
    with np.errstate(divide="ignore"):
        logp = np.log(p)
    ks = (k0 + np.arange(p.size)) * h
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # inf or NaN: not a fold point
        moment = np.exp(logp + ks)
        s1 = np.concatenate([np.cumsum(moment[::-1])[::-1][1:], [0.0]])
        s0 = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])
        cost = s1 - np.exp(ks + np.log(s0))
    ok = np.nonzero(cost <= PRUNE_MASS)[0]
    hi = max(int(ok[0]) if ok.size else p.size - 1, lo)
    exact_scale = 1.0 / (1.0 - law.rel_error)
    moved_cost = _tail_cost(p, k0, hi, h) * exact_scale
    # PROOF Lemma 7: the fold's mass charge
    charged_up = moved_up * (1.0 + rounding.gamma(lo + 1)) * exact_scale
    kept = p[lo:hi + 1].copy()
    kept[0] += moved_up
    kept[-1] += float(s0[hi])
    rel = rounding.grow(law.rel_error, rounding.gamma(max(lo, p.size - hi) + 2))
    return PointsLaw(k0 + lo, kept, law.remove_excess + moved_cost, law.add_excess + charged_up, rel)


def _log_mean(m: np.ndarray, lv: np.ndarray) -> float:
    """log of the conditional mean sum(m e^lv) / sum(m), in log space (no underflow to log 0)."""
    with np.errstate(divide="ignore"):
        w = np.log(m) + lv
    top = float(w.max())
    return top + math.log(float(np.exp(w - top).sum())) - math.log(float(m.sum()))


def _means_fresh(k0: int, size: int, h: float, terms: int) -> float:
    """Relative error of a merge of atoms: a first moment m e^(lv - low) through exp and log, a sum
    of ``terms`` non-negative terms, the division and the log back (``rounding``)."""
    # PROOF Lemma 8: a merge of atoms
    return 2.0 * rounding.tilt_rounding(_log_extent(k0, size, h)) + rounding.gamma(terms + 3)


def prune_means(law: MeansLaw, h: float) -> MeansLaw:
    """Fold the tails into the end cells at their conditional mean (a coarsening: still a
    lower bound): bottom cells of total mass <= PRUNE_MASS, top cells of first moment
    <= PRUNE_MASS."""
    m, lv = law.m, law.lv
    nz = np.nonzero(m > 0)[0]
    if nz.size == 0:  # every atom dropped (none known to LOWER_THRESHOLD): the lower bound 0
        return law
    m, lv = m[nz[0]:nz[-1] + 1], lv[nz[0]:nz[-1] + 1]
    k0 = law.k0 + int(nz[0])
    with np.errstate(divide="ignore"):
        moment = np.exp(np.log(m) + lv)
    cum = np.cumsum(m)
    lo = min(int(np.searchsorted(cum, PRUNE_MASS, side="right")), m.size - 1)
    tail_moment = np.concatenate([np.cumsum(moment[::-1])[::-1][1:], [0.0]])  # sum_{k > j}
    ok = np.nonzero(tail_moment <= PRUNE_MASS)[0]
    hi = max(int(ok[0]) if ok.size else m.size - 1, lo)
    rel = rounding.grow(law.rel_error, _means_fresh(k0, m.size, h, m.size))
    if lo == hi and m.size > 1:  # everything folds into one atom: at the mean of all, in its own cell
        log_mean = _log_mean(m, lv)
        return MeansLaw(math.floor(log_mean / h), np.array([float(m.sum())]), np.array([log_mean]), rel)
    new_m = m[lo:hi + 1].copy()
    new_lv = lv[lo:hi + 1].copy()
    if lo > 0:
        new_m[0] = m[:lo + 1].sum()
        new_lv[0] = min(_log_mean(m[:lo + 1], lv[:lo + 1]), (k0 + lo + 1) * h)
    if hi < m.size - 1:
        new_m[-1] = m[hi:].sum()
        new_lv[-1] = max(_log_mean(m[hi:], lv[hi:]), (k0 + hi) * h)
    if lo == 0 and hi == m.size - 1:
        rel = law.rel_error
    return MeansLaw(k0 + lo, new_m, new_lv, rel)


def _rebin_target(x_index: np.ndarray, h: float, step: float):
    """Coarse index J = floor(x / step) of grid points x = k h on the grid of ``step``, and the
    offset: (integer j, True) with x = (J ratio + j) h where step is a multiple of h (every grid
    of one phase is h_1 2^j: ``compose.snapped``), else (x - J step in floating point, False)."""
    ratio = step / h
    factor = round(ratio)
    if abs(ratio - factor) < 1e-9 * ratio:
        coarse = np.floor_divide(x_index, factor)
        return coarse, x_index - coarse * factor, True
    x = x_index * h
    coarse = np.floor(x / step).astype(np.int64)
    return coarse, np.clip(x - coarse * step, 0.0, step), False


NORMAL = 2.0**-1022  # the smallest normal double


def _spread_fractions(arg_up: np.ndarray, arg_down: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The spread's fractions expm1(a) / expm1(H) up and e^a expm1(b) / expm1(H) down (a = arg_up,
    b = arg_down, scale = expm1(H)), checked to have met no underflow: every positive argument's
    expm1 and fraction is >= 2 NORMAL (a zero argument gives the exact 0), else FloatingPointError
    (docs/PROOF.md Lemma 8c: then only the products by the masses can underflow)."""
    e_up = np.expm1(arg_up)
    e_down = np.expm1(arg_down)
    up = e_up / scale
    down = np.exp(arg_up) * e_down / scale
    normal = ((arg_up == 0.0) | ((e_up >= 2.0 * NORMAL) & (up >= 2.0 * NORMAL))) & \
        ((arg_down == 0.0) | ((e_down >= 2.0 * NORMAL) & (down >= 2.0 * NORMAL)))
    if not np.all(normal):
        raise FloatingPointError("coarsen_points: a spread fraction below the normal range")
    return up, down


def _lost(term: np.ndarray, p: np.ndarray, fraction) -> np.ndarray:
    """1.0 where the product term = fl(p fraction) of positive factors is below the normal range
    (it may have lost 2^-1075: PROOF.md M4, R3), else 0.0."""
    return ((term < NORMAL) & (p > 0.0) & (fraction > 0.0)).astype(np.float64)


def spread_points(law: PointsLaw, h: float, step: float) -> PointsLaw:
    """``coarsen_points`` before its fold: each point spread onto the two coarse points around it
    with its mean kept, raised as ``coarsen_points`` states."""
    coarse, offset, integer = _rebin_target(law.k0 + np.arange(law.p.size), h, step)
    scale = math.expm1(step)
    k0 = int(coarse[0]) - 1
    n = int(coarse[-1]) - k0 + 3
    if integer:
        factor = round(step / h)
        up_frac, down_frac = _spread_fractions(offset * h, (factor - offset) * h, scale)
        # PROOF Lemma 8: a spread onto the coarse grid
        fresh = 12.0 * rounding.U + rounding.gamma(2 * factor + 2)
    else:
        up_frac, down_frac = _spread_fractions(offset, step - offset, scale)
        fresh = 12.0 * rounding.U + rounding.gamma(int(2 * step / h) + 8)
    up = law.p * up_frac
    down = law.p * down_frac
    at, above = coarse - k0, coarse - k0 + 1
    out = np.bincount(at, weights=down, minlength=n) + np.bincount(above, weights=up, minlength=n)
    lost = np.bincount(at, weights=_lost(down, law.p, down_frac), minlength=n) + \
        np.bincount(above, weights=_lost(up, law.p, up_frac), minlength=n)
    if not integer:
        # PROOF Lemma 8: an offset off the coarse grid
        d = 4.0 * rounding.U * (np.abs(law.k0 + np.arange(law.p.size)) * h + np.abs(coarse) * step)
        if not np.all((d == 0.0) | (d >= 2.0 * NORMAL)):  # then e^H d / expm1(H) >= d is normal too (Lemma 8c)
            raise FloatingPointError("coarsen_points: an offset bound below the normal range")
        raise_by = law.p * (math.exp(step) * d / scale + 8.0 * rounding.U)
        lost_raise = _lost(raise_by, law.p, 1.0)
        for shift in (-1, 0, 1, 2):
            out += np.bincount(at + shift, weights=raise_by, minlength=n)
            lost += np.bincount(at + shift, weights=lost_raise, minlength=n)
    # PROOF Lemma 8: underflow of the spread's products, 2^-1074 per product below the normal range
    # (lost counts them: integers, and SUBNORMAL times them is exact; the addition is one of fresh's
    # roundings, exact where subnormal): the exact-arithmetic law stays <= (1 + rel) times the entries
    out = out + lost * SUBNORMAL
    rel = rounding.grow(law.rel_error, fresh)
    return PointsLaw(k0, out, law.remove_excess, law.add_excess, rel)


def coarsen_points(law: PointsLaw, h: float, step: float) -> PointsLaw:
    """The law on the grid of step ``step`` >= h: each point spread onto the two coarse points
    around it with its mean kept: a fraction expm1(o) / expm1(H) up and e^o expm1(H - o) /
    expm1(H) down (o the offset, H = step; both without cancellation: 4 roundings of 2 U each
    and the bincount's sum of at most 2 * ratio + 2 terms). Where H is not a multiple of h (two
    phases' grids) the offset o^ = fl(x - J H) is within d = 4 U (|x| + |J H|) of the exact
    one and the exact point may even lie in a neighbouring cell: every point then raises coarse
    points J - 1 .. J + 2 by its mass times e^H d / expm1(H) + 8 U (an upper law may only gain
    mass, ``rounding``). A product of a mass and a fraction (or a raise) below the normal range
    adds 2^-1074 to its coarse point (``spread_points``; docs/PROOF.md Lemma 8c)."""
    if step == h:
        return law
    return prune_points(spread_points(law, h, step), step)


def _merge_atoms(mass, log_value, step: float, rel_error: float) -> MeansLaw:
    """Atoms (mass, exp(log_value)) merged per cell of step ``step`` at their conditional mean;
    ``rel_error`` the atoms' (``rounding``): the merged ones' grows by ``_means_fresh``."""
    keep = mass > 0
    mass, log_value = mass[keep], log_value[keep]
    if mass.size == 0:  # every atom dropped: the empty lower law (its deltas are 0, a valid lower bound)
        return MeansLaw(0, np.zeros(1), np.zeros(1), rel_error)
    cells = np.floor(log_value / step).astype(np.int64)
    k0 = int(cells.min())
    n = int(cells.max()) - k0 + 1
    total = np.bincount(cells - k0, weights=mass, minlength=n)
    moment = np.bincount(cells - k0, weights=mass * np.exp(log_value - cells * step), minlength=n)
    low = (k0 + np.arange(n)) * step
    with np.errstate(divide="ignore", invalid="ignore"):
        lv = np.where(total > 0, low + np.log(moment / total), low)
    terms = int(np.bincount(cells - k0).max())
    extent = max(float(np.max(np.abs(log_value))), abs(k0 * step), abs((k0 + n) * step))
    # PROOF Lemma 8: a merge of atoms per cell
    fresh = 2.0 * rounding.tilt_rounding(746.0 + extent) + rounding.gamma(terms + 3)
    return prune_means(MeansLaw(k0, total, lv, rounding.grow(rel_error, fresh)), step)


def coarsen_means(law: MeansLaw, h: float, step: float) -> MeansLaw:
    """The law on the grid of step ``step`` >= h: atoms merged per coarse cell (Jensen)."""
    if step == h:
        return law
    return _merge_atoms(law.m, law.lv, step, law.rel_error)


def _kept_relative(rel_a: float, rel_b: float, out: np.ndarray, bound: np.ndarray, keep: np.ndarray) -> float:
    """Relative error of the kept convolution entries (inputs carrying rel_a and rel_b): an entry
    with |c^ - c| <= bound <= r c^ has |c^ - c| <= r / (1 - r) c; r the largest over the kept."""
    ratio = float(np.max(bound[keep] / out[keep])) if np.any(keep) else 0.0
    # PROOF Lemma 6: the kept entries of a lower law
    return rounding.combine(rel_a, rel_b, ratio / (1.0 - ratio))


def _cut_charges(values: np.ndarray, k0: int, h: float) -> tuple[float, float]:
    """(first moment, mass) of non-negative entries at g_{k0 + i}, rounded up."""
    if not np.any(values > 0):
        return 0.0, 0.0
    # the callers' one product or quotient per entry (ends (1 + rho), p / (1 - rho)) may have lost 2^-1075
    # where subnormal, which a first moment multiplies by g: each entry raised by 2^-1074 (exact where
    # subnormal, never lowering: M4, R3)
    values = np.where(values > 0, values + SUBNORMAL, 0.0)
    with np.errstate(divide="ignore"):
        moments = np.exp(np.log(values) + (k0 + np.arange(values.size)) * h)
    # PROOF Lemma 7: a cut's charges
    fresh = rounding.tilt_rounding(_log_extent(k0, values.size, h)) + rounding.gamma(values.size + 2)
    # PROOF Lemma 7: underflow, one SUBNORMAL per exp and one for the product (M4, R3); the masses' sum
    # is exact where subnormal and its product by 1 + fresh >= it
    return (float(np.sum(moments)) + (values.size + 1.0) * SUBNORMAL) * (1.0 + fresh), float(np.sum(values)) * (1.0 + fresh)


def multiply_points(a: PointsLaw, b: PointsLaw | None, h: float) -> PointsLaw:
    """Upper law of X Z (b None: two independent copies of a), both on the grid h.

    Tails: add_excess adds (union bound); remove_excess d_X E Z + E X d_Z + d_X d_Z (the mean
    lost by X times what multiplies it, and so on; ``PointsLaw.mean`` bounds the exact mean).
    Rounding (``rounding``): each entry is raised by its proven error bound, so it is at least
    the exact convolution of the computed inputs (an upper law may only gain mass: every delta
    is a sum with non-negative weights, and products, spreads and folds keep the order); the
    stretches at either end where an entry is below its bound are cut, their mass (at most
    entry + bound, times (1 + rho_a)(1 + rho_b)) charged to add_excess and their first moment to
    remove_excess (a cut costs at most those: (x - c)_+ <= x, (1 - c x)_+ <= 1, E[Z] <= 1)."""
    other = a if b is None else b
    k0 = a.k0 + other.k0
    out, bound, logs = convolution.tilted_convolve(a.p, None if b is None else b.p, h)
    log_g = (k0 + np.arange(out.size)) * h
    # entries whose value and bound both underflow (p below the doubles, far up the grid) still carry
    # first moment p g: charged from their logs (an upper bound; inf where it overflows)
    gone = (out + bound < TINY) & np.isfinite(logs)
    x = log_g[gone]
    with np.errstate(over="ignore"):
        # PROOF Lemma 7: each charge one exp, whose subnormal result may lose 2^-1074 (C): added, exact there
        underflow_moment = float(np.exp(np.logaddexp.reduce(logs[gone] + x))) + 2.0**-1074 if gone.any() else 0.0
        underflow_mass = float(np.exp(np.logaddexp.reduce(logs[gone]))) + 2.0**-1074 if gone.any() else 0.0
    convolution.sharpen(a.p, None if b is None else b.p, out, bound, rounding.REL_THRESHOLD, log_g)
    signal = np.nonzero((out > bound) & (out >= TINY))[0]
    if signal.size == 0:
        raise FloatingPointError("a convolution has no entry above its rounding error")
    first, last = int(signal[0]), int(signal[-1])
    # PROOF Lemma 5: a product of upper laws
    rel = rounding.combine(a.rel_error, other.rel_error, 0.0)
    raised = out + bound
    ends = raised.copy()
    ends[first:last + 1] = 0.0
    cut_moment, cut_mass = _cut_charges(ends * (1.0 + rel), k0, h)
    mean_a, mean_b = a.mean(h), other.mean(h)
    da, db = a.remove_excess, other.remove_excess
    # PROOF Lemma 7: cuts and underflow of a product (factors: PROOF.md section 5, F1-F3)
    # (the three products may each lose 2^-1075 where subnormal: 2^-1073 charged inside F1's factor, M4, R3)
    remove = (da * mean_b + mean_a * db + da * db + 2.0**-1073) * (1.0 + 8 * rounding.U) + cut_moment * (1.0 + 4 * rounding.U) + \
        underflow_moment * (1.0 + rel) * 1.01
    add = (a.add_excess + other.add_excess) * (1.0 + 6 * rounding.U) + cut_mass * (1.0 + 4 * rounding.U) + \
        underflow_mass * (1.0 + rel) * 1.01
    law = PointsLaw(k0 + first, raised[first:last + 1] * (1.0 + 2 * rounding.U), remove, add, rel)
    if not np.all(np.isfinite(law.p)):  # a probability law past the doubles: its bounds, not its mass
        raise FloatingPointError("a product's rounding bounds overflowed the doubles")
    return prune_points(law, h)


def excess(law: PointsLaw) -> tuple[float, float]:
    """(remove, add) terms to add to the upper law's deltas: every tail moved or cut, charged
    where it happened (``prune_points``, ``multiply_points``, the steps' top points)."""
    return law.remove_excess, law.add_excess


LOWER_CAP = 1e-6  # a lower-law product keeps at most entries known to this (``kept_entries``)


def kept_entries(relative: np.ndarray, mass: np.ndarray, floor: float, cap: float) -> np.ndarray:
    """The entries a lower law keeps: those whose relative error is at most r, the smallest r in
    [floor, cap] with the mass of the entries above r at most r (cap if none). In a T-step product
    both the dropped mass and the kept entries' relative error count about T times (``rounding``),
    so neither is let grow for the other's sake. A decision, free for the proof: the theorem
    charges the largest kept relative error, whatever r."""
    order = np.argsort(relative, kind="stable")
    rel = relative[order]
    above = np.r_[np.cumsum(mass[order][::-1])[::-1], 0.0]  # above[i]: mass of the i-th smallest up
    candidates = np.maximum(rel, floor)
    dropped = above[np.searchsorted(rel, candidates, side="right")]
    ok = (dropped <= candidates) & (candidates <= cap)
    r = float(np.min(candidates[ok])) if np.any(ok) else cap
    return relative <= r


def _sharp_lower_convolve(a, b, h: float, threshold: float, log_g: np.ndarray):
    """The lower law's convolution a * b (``convolution.lower_convolve``), its entries not known to
    ``threshold`` summed directly (``convolution.sharpen``)."""
    out, bound = convolution.lower_convolve(a, b, h)
    convolution.sharpen(a, b, out, bound, threshold, log_g)
    return out, bound


def multiply_means(a: MeansLaw, b: MeansLaw | None, h: float) -> MeansLaw:
    """Lower law of X Z: one atom per index sum (two convolutions: masses, and first moments
    relative to the cell's lower end), merged per cell. An entry of either convolution whose
    proven error over it exceeds r carries no atom (dropping mass only lowers a delta), r between
    the keep threshold (``lower_keep``) and LOWER_CAP as ``kept_entries`` trades dropped mass
    against kept error."""
    other = a if b is None else b
    if not (np.any(a.m > 0) and np.any(other.m > 0)):  # an empty lower law: so is the product
        return MeansLaw(a.k0 + other.k0, np.zeros(1), np.zeros(1), 0.0)

    def offsets(law):  # log of each atom relative to its cell's lower end
        return law.lv - (law.k0 + np.arange(law.m.size)) * h

    off_a, off_b = offsets(a), offsets(other)
    threshold = _LOWER_KEEP.get()
    log_g = (a.k0 + other.k0 + np.arange(a.m.size + other.m.size - 1)) * h
    moment_a = a.m * np.exp(off_a)
    moment_b = None if b is None else b.m * np.exp(off_b)
    moments = beside("moments", a.m.size, _sharp_lower_convolve, moment_a, moment_b, h, threshold, log_g)
    mass, bound = _sharp_lower_convolve(a.m, None if b is None else b.m, h, threshold, log_g)
    moment, moment_bound = moments.result()
    k0 = a.k0 + other.k0
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.where((mass >= TINY) & (moment >= TINY),
                            np.maximum(bound / mass, moment_bound / moment), np.inf)
    ok = kept_entries(relative, mass, threshold, max(threshold, LOWER_CAP))
    with np.errstate(divide="ignore", invalid="ignore"):
        offset = np.log(np.where(ok, moment / np.where(ok, mass, 1.0), 1.0))
    # an atom of index sum n is a mean of values with offsets in [min_a + min_b, max_a + max_b]
    offset = np.clip(offset, off_a.min() + off_b.min(), off_a.max() + off_b.max())
    # PROOF Lemma 9: log values exponentiated again
    recomputed = rounding.tilt_rounding(_log_extent(min(a.k0, other.k0), max(a.m.size, other.m.size), h))
    rel = max(_kept_relative(a.rel_error, other.rel_error, mass, bound, ok),
              _kept_relative(rounding.grow(a.rel_error, recomputed), rounding.grow(other.rel_error, recomputed),
                             moment, moment_bound, ok))
    return _merge_atoms(np.where(ok, mass, 0.0), (k0 + np.arange(mass.size)) * h + offset, h, rel)
