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

Convolutions use the FFT. Its rounding error in entry n is about 1e-16 times the largest entry
of the convolved arrays, which in the far tails would swamp entries that matter once weighted by
g_n (remove) or 1 (add). Each convolution is therefore done on the masses tilted by g^theta for
theta in TILTS (theta = 1 is the law under P), and every entry is taken from the tilt whose
rounding bound (ROUNDING times that tilt's largest entry, untilted) is smallest there. The
stretches at either end where every entry is below its bound are cut; negative entries are set
to 0 (this only raises the upper law's deltas); the lower law drops every entry below its bound
(dropping mass only lowers a delta). What the upper law's cuts removed is charged once, at the
end, from two exact facts about the true ratio, E[G] = 1 and mass 1 (``charged_excess``).
Inside the kept range each entry keeps its computed value; its rounding (about 1e-16 of the
largest tilted entry) is not charged, as in every FFT-based accountant (dp-accounting, PRV);
``tests/accountants/certified/test_engine.py`` measures it against the exact index-sum product.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import fft as sfft

# Mass (or first moment, for the upper tail) below which tails are folded in; every fold is
# accounted for exactly (remove_excess / add_excess) or is a coarsening (lower bound).
PRUNE_MASS = 1e-30
ROUNDING = 1e-15  # relative rounding of an FFT convolution entry, of the largest entry
TILTS = (0.0, 1.0, 2.0, 4.0)  # each convolution is done on the masses times g^theta (4: heavy tails, e.g. sigma 0.5, q 1e-5)
# on a short range (a fine part of a ``compose.TwoGrid``: range < log(RANGE_TILT) / 4) g^4 hardly
# tilts: steeper tilts are added, j * log(RANGE_TILT) / range for j = 1..STEEP_TILTS
RANGE_TILT = 1e8
STEEP_TILTS = 6


@dataclass
class PointsLaw:
    """Mass p[i] at exp((k0 + i) h); remove_excess d and add_excess e are added to the deltas."""

    k0: int
    p: np.ndarray
    remove_excess: float
    add_excess: float

    def mean(self, h: float) -> float:
        return float(_points_mean(self.p, self.k0, h))


@dataclass
class MeansLaw:
    """Mass m[i] at exp(lv[i]) (cell k0 + i; the two end cells are open-ended)."""

    k0: int
    m: np.ndarray
    lv: np.ndarray


@njit(cache=True)
def _points_mean(p, k0, h):
    total = 0.0
    for i in range(p.size):
        if p[i] > 0.0:
            total += math.exp(math.log(p[i]) + (k0 + i) * h)
    return total


def prune_points(law: PointsLaw, h: float) -> PointsLaw:
    """Fold the tails: the lowest mass (total <= PRUNE_MASS) moves up to the first kept point
    (remove: a move up, free; add: costs at most its probability, union bound), the highest
    moves down to the last kept point (add: free; remove: costs its first-moment loss)."""
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
    # top: cost_j = sum_{k > j} p_k (g_k - g_j), from suffix sums (log domain, no overflow)
    with np.errstate(divide="ignore"):
        logp = np.log(p)
    ks = (k0 + np.arange(p.size)) * h
    moment = np.exp(logp + ks)
    s1 = np.concatenate([np.cumsum(moment[::-1])[::-1][1:], [0.0]])
    s0 = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])
    with np.errstate(divide="ignore"):
        cost = s1 - np.exp(ks + np.log(s0))
    ok = np.nonzero(cost <= PRUNE_MASS)[0]
    hi = max(int(ok[0]) if ok.size else p.size - 1, lo)
    moved_cost = max(float(cost[hi]), 0.0)
    kept = p[lo:hi + 1].copy()
    kept[0] += moved_up
    kept[-1] += float(s0[hi])
    return PointsLaw(k0 + lo, kept, law.remove_excess + moved_cost, law.add_excess + moved_up)


def _log_mean(m: np.ndarray, lv: np.ndarray) -> float:
    """log of the conditional mean sum(m e^lv) / sum(m), in log space (no underflow to log 0)."""
    with np.errstate(divide="ignore"):
        w = np.log(m) + lv
    top = float(w.max())
    return top + math.log(float(np.exp(w - top).sum())) - math.log(float(m.sum()))


def prune_means(law: MeansLaw, h: float) -> MeansLaw:
    """Fold the tails into the end cells at their conditional mean (a coarsening: still a
    lower bound): bottom cells of total mass <= PRUNE_MASS, top cells of first moment
    <= PRUNE_MASS."""
    m, lv = law.m, law.lv
    nz = np.nonzero(m > 0)[0]
    if nz.size == 0:
        raise FloatingPointError("the discrete law has no mass left")
    m, lv = m[nz[0]:nz[-1] + 1], lv[nz[0]:nz[-1] + 1]
    k0 = law.k0 + int(nz[0])
    with np.errstate(divide="ignore"):
        moment = np.exp(np.log(m) + lv)
    cum = np.cumsum(m)
    lo = min(int(np.searchsorted(cum, PRUNE_MASS, side="right")), m.size - 1)
    tail_moment = np.concatenate([np.cumsum(moment[::-1])[::-1][1:], [0.0]])  # sum_{k > j}
    ok = np.nonzero(tail_moment <= PRUNE_MASS)[0]
    hi = max(int(ok[0]) if ok.size else m.size - 1, lo)
    if lo == hi and m.size > 1:  # everything folds into one atom: at the mean of all, in its own cell
        log_mean = _log_mean(m, lv)
        return MeansLaw(math.floor(log_mean / h), np.array([float(m.sum())]), np.array([log_mean]))
    new_m = m[lo:hi + 1].copy()
    new_lv = lv[lo:hi + 1].copy()
    if lo > 0:
        new_m[0] = m[:lo + 1].sum()
        new_lv[0] = min(_log_mean(m[:lo + 1], lv[:lo + 1]), (k0 + lo + 1) * h)
    if hi < m.size - 1:
        new_m[-1] = m[hi:].sum()
        new_lv[-1] = max(_log_mean(m[hi:], lv[hi:]), (k0 + hi) * h)
    return MeansLaw(k0 + lo, new_m, new_lv)


def _rebin_target(x_index: np.ndarray, h: float, step: float):
    """Coarse index J = floor(x / step) and offset x - J step of grid points x = k h."""
    ratio = step / h
    factor = round(ratio)
    if abs(ratio - factor) < 1e-9 * ratio:
        coarse = np.floor_divide(x_index, factor)
        return coarse, (x_index - coarse * factor) * h
    x = x_index * h
    coarse = np.floor(x / step).astype(np.int64)
    return coarse, np.clip(x - coarse * step, 0.0, step)


def coarsen_points(law: PointsLaw, h: float, step: float) -> PointsLaw:
    """The law on the grid of step ``step`` >= h: each point spread onto the two coarse points
    around it with its mean kept."""
    if step == h:
        return law
    coarse, offset = _rebin_target(law.k0 + np.arange(law.p.size), h, step)
    up = law.p * (np.expm1(offset) / math.expm1(step))
    k0 = int(coarse[0])
    n = int(coarse[-1]) - k0 + 2
    out = np.bincount(coarse - k0, weights=law.p - up, minlength=n) + np.bincount(coarse - k0 + 1, weights=up, minlength=n)
    return prune_points(PointsLaw(k0, out, law.remove_excess, law.add_excess), step)


def _merge_atoms(mass, log_value, step: float) -> MeansLaw:
    """Atoms (mass, exp(log_value)) merged per cell of step ``step`` at their conditional mean."""
    keep = mass > 0
    mass, log_value = mass[keep], log_value[keep]
    if mass.size == 0:
        raise FloatingPointError("the discrete law has no mass left")
    cells = np.floor(log_value / step).astype(np.int64)
    k0 = int(cells.min())
    n = int(cells.max()) - k0 + 1
    total = np.bincount(cells - k0, weights=mass, minlength=n)
    moment = np.bincount(cells - k0, weights=mass * np.exp(log_value - cells * step), minlength=n)
    low = (k0 + np.arange(n)) * step
    with np.errstate(divide="ignore", invalid="ignore"):
        lv = np.where(total > 0, low + np.log(moment / total), low)
    return prune_means(MeansLaw(k0, total, lv), step)


def coarsen_means(law: MeansLaw, h: float, step: float) -> MeansLaw:
    """The law on the grid of step ``step`` >= h: atoms merged per coarse cell (Jensen)."""
    if step == h:
        return law
    return _merge_atoms(law.m, law.lv, step)


def _convolve(a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """Full linear convolution a * b (b None: a * a) by real FFT."""
    n = a.size + (a.size if b is None else b.size) - 1
    size = sfft.next_fast_len(n, real=True)
    fa = sfft.rfft(a, size, workers=-1)
    fb = fa if b is None else sfft.rfft(b, size, workers=-1)
    return sfft.irfft(fa * fb, size, workers=-1)[:n]


@njit(cache=True)
def _keep_best(best, log_bound, tilted, log_shift, log_rounding, theta, h):
    """Entry i from ``tilted`` (the convolution of the normalised g^theta-tilted arrays; the
    untilted entry is tilted[i] exp(log_shift - theta offset_i)) where its rounding bound,
    log_rounding - theta offset_i in logs, is below the best so far."""
    n = best.size
    for i in range(n):
        offset = (i - (n - 1)) * h  # log of g_i / g_{n-1} <= 0
        candidate = log_rounding - theta * offset
        if candidate < log_bound[i]:
            log_bound[i] = candidate
            best[i] = math.exp(math.log(tilted[i]) + log_shift - theta * offset) if tilted[i] > 0.0 else 0.0


def _normalised_tilt(a: np.ndarray, theta: float, h: float) -> tuple[np.ndarray, float]:
    """a_i exp(theta x_i) / M and log M, M its largest entry (x_i = (i - last) h <= 0): no
    underflow however long the range."""
    with np.errstate(divide="ignore"):
        log_tilted = np.log(a) + theta * (np.arange(a.size) - (a.size - 1)) * h
    top = float(np.max(log_tilted))
    return np.exp(log_tilted - top), top


def _tilted_convolve(a: np.ndarray, b: np.ndarray | None, h: float) -> tuple[np.ndarray, np.ndarray]:
    """a * b (non-negative arrays) with each entry from the convolution tilted by g^theta,
    theta in TILTS (and steeper ones on a short range), whose rounding bound is smallest there
    (module docstring); returns the entries (negatives set to 0) and that bound per entry. Each
    tilted array is one exp per entry, normalised to its largest entry: exp(theta x) rounds
    once whatever theta, and nothing underflows over a range of hundreds in log g."""
    n = a.size + (a.size if b is None else b.size) - 1
    best = np.zeros(n)
    log_bound = np.full(n, np.inf)
    steep = math.log(RANGE_TILT) / (max(n - 1, 1) * h)
    steep_tilts = tuple(j * steep for j in range(1, STEEP_TILTS + 1)) if steep > TILTS[-1] else ()
    for theta in TILTS + steep_tilts:
        ta, top_a = _normalised_tilt(a, theta, h)
        tb, top_b = (None, top_a) if b is None else _normalised_tilt(b, theta, h)
        tilted = _convolve(ta, tb)
        scale = np.max(np.abs(tilted))
        if 0.0 < scale < math.inf:
            shift = top_a + top_b
            _keep_best(best, log_bound, tilted, shift, math.log(ROUNDING) + math.log(scale) + shift, theta, h)
    return np.maximum(best, 0.0), np.exp(np.minimum(log_bound, 700.0))


def multiply_points(a: PointsLaw, b: PointsLaw | None, h: float) -> PointsLaw:
    """Upper law of X Z (b None: two independent copies of a), both on the grid h.

    Tails: add_excess adds (union bound); remove_excess d_X E Z + E X d_Z + d_X d_Z (the mean
    lost by X times what multiplies it, and so on). The stretches at either end where every
    entry is below its rounding bound are rounding alone and are cut; what they held is charged
    once, at the end (``charged_excess``)."""
    other = a if b is None else b
    out, bound = _tilted_convolve(a.p, None if b is None else b.p, h)
    signal = np.nonzero(out > bound)[0]
    if signal.size == 0:
        raise FloatingPointError("a convolution has no entry above its rounding error")
    first, last = int(signal[0]), int(signal[-1])
    mean_a, mean_b = a.mean(h), other.mean(h)
    da, db = a.remove_excess, other.remove_excess
    return prune_points(PointsLaw(a.k0 + other.k0 + first, out[first:last + 1], da * mean_b + mean_a * db + da * db,
                                  a.add_excess + other.add_excess), h)


def charged_excess(law: PointsLaw, h: float) -> tuple[float, float]:
    """(remove, add) terms to add to the upper law's deltas: the tracked tail terms plus what
    the cuts removed. The true ratio G has E[G] = 1 and mass 1; every tail move keeps
    E[V] + remove_excess = 1, so 1 - remove_excess - E[V] is the first moment cut away (it
    costs at most that for remove: (x - c)_+ <= x), and 1 - mass(V) the mass cut away (at most
    that for add: (1 - e^eps x)_+ <= 1)."""
    mean = law.mean(h)
    return (law.remove_excess + max(0.0, 1.0 - law.remove_excess - mean),
            law.add_excess + max(0.0, 1.0 - float(law.p.sum())))


def multiply_means(a: MeansLaw, b: MeansLaw | None, h: float) -> MeansLaw:
    """Lower law of X Z: one atom per index sum (two convolutions), merged per cell. An entry
    whose mass is below its rounding bound carries no atom (dropping mass only lowers a delta)."""
    other = a if b is None else b

    def offsets(law):  # log of each atom relative to its cell's lower end
        return law.lv - (law.k0 + np.arange(law.m.size)) * h

    off_a, off_b = offsets(a), offsets(other)
    mass, bound = _tilted_convolve(a.m, None if b is None else b.m, h)
    moment, _ = _tilted_convolve(a.m * np.exp(off_a), None if b is None else b.m * np.exp(off_b), h)
    k0 = a.k0 + other.k0
    ok = (mass > bound) & (moment > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        offset = np.log(np.where(ok, moment / np.where(ok, mass, 1.0), 1.0))
    # an atom of index sum n is a mean of values with offsets in [min_a + min_b, max_a + max_b]
    offset = np.clip(offset, off_a.min() + off_b.min(), off_a.max() + off_b.max())
    return _merge_atoms(np.where(ok, mass, 0.0), (k0 + np.arange(mass.size)) * h + offset, h)


@dataclass
class Laws:
    """The pair of laws on the grid of step h (``means`` None: an upper law alone)."""

    points: PointsLaw
    means: MeansLaw | None
    h: float

    def coarsen(self, step: float) -> Laws:
        if step <= self.h:
            return self
        means = None if self.means is None else coarsen_means(self.means, self.h, step)
        return Laws(coarsen_points(self.points, self.h, step), means, step)

    def times(self, other: Laws | None) -> Laws:
        """Product with an independent ``other`` (None: with an independent copy of itself),
        on the coarser of the two grids."""
        if other is None:
            means = None if self.means is None else multiply_means(self.means, None, self.h)
            return Laws(multiply_points(self.points, None, self.h), means, self.h)
        step = max(self.h, other.h)
        a, b = self.coarsen(step), other.coarsen(step)
        means = None if a.means is None or b.means is None else multiply_means(a.means, b.means, step)
        return Laws(multiply_points(a.points, b.points, step), means, step)

    @property
    def size(self) -> int:
        return max(self.points.p.size, 0 if self.means is None else self.means.m.size)

    def plus(self, other: Laws) -> Laws:
        """The mixture (sum of the measures) of two parts on the same grid."""
        a, b = self.points, other.points
        k0 = min(a.k0, b.k0)
        p = np.zeros(max(a.k0 + a.p.size, b.k0 + b.p.size) - k0)
        p[a.k0 - k0:a.k0 - k0 + a.p.size] += a.p
        p[b.k0 - k0:b.k0 - k0 + b.p.size] += b.p
        points = PointsLaw(k0, p, a.remove_excess + b.remove_excess, a.add_excess + b.add_excess)
        means = _merge_atoms(np.concatenate([self.means.m, other.means.m]),
                             np.concatenate([self.means.lv, other.means.lv]), self.h)
        return Laws(points, means, self.h)

    def split_at(self, k: int) -> tuple[Laws, Laws | None]:
        """The parts below and at or above grid index k: points k0..k - 1 and cells below k, and
        the rest (None where empty); the tail terms stay with the part below."""
        points, means = self.points, self.means
        i, j = k - points.k0, k - means.k0
        if i >= points.p.size or j >= means.m.size or not (points.p[i:].any() and means.m[j:].any()):
            return self, None
        if i <= 0 or j <= 0:
            raise ValueError(f"split index {k} leaves nothing below it")
        below = Laws(PointsLaw(points.k0, points.p[:i], points.remove_excess, points.add_excess),
                     MeansLaw(means.k0, means.m[:j], means.lv[:j]), self.h)
        above = Laws(PointsLaw(k, points.p[i:], 0.0, 0.0), MeansLaw(k, means.m[j:], means.lv[j:]), self.h)
        return below, above

    def without_add_excess(self) -> tuple[Laws, float]:
        """The same laws with add_excess set to 0, and that add_excess."""
        points = self.points
        return Laws(PointsLaw(points.k0, points.p, points.remove_excess, 0.0), self.means, self.h), points.add_excess
