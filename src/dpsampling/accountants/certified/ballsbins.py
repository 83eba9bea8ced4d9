"""Discrete laws of Y, of the average A of T copies and of the product of K copies of A, and the
proofs that they bound balls-and-bins' (and every sampler's) hockey-stick divergences.

Balls-and-bins' step laws: ``PointsLaw`` is the upper-bound representation, ``MeansLaw`` the
lower-bound one. Every function here is private to the package and takes validated arguments.

**Proofs** (they hold for every law the engine builds: ``laws``, ``steps``, ``compose`` and
``_kernels`` point here).

Balls-and-bins (each example in one uniformly random step of T per epoch, K epochs) is
dominated (chua25 Thm 3.1) by P = (1/T) sum_t N(e_t, s^2 I_T) vs Q = N(0, s^2 I_T), s = sigma.
Under Q the x_t are iid N(0, s^2) and
    dP/dQ(x) = A(x) = (1/T) sum_t Y_t,   Y_t = exp((2 x_t - 1) / (2 s^2)),
because N(e_t, s^2 I)/N(0, s^2 I) = exp((x_t^2 - (x_t - 1)^2) / (2 s^2)); so log Y_t ~
N(-1/(2 s^2), 1/s^2) iid and E[Y] = 1. With K independent epochs the likelihood ratio is
G = prod_k A_k (A_k iid copies of A) and the hockey-stick divergences are
    remove: delta(eps) = E_Q[(G - e^eps)_+],     add: delta(eps) = E_Q[(1 - e^eps G)_+].
Both integrands are convex functions f of G. Everything reduces to the law of G.

Grid: g_k = exp(k h). Two discrete laws are carried through the same computation:

Upper bound (convex order). V dominates X in convex order (X <=_cx V) when E f(X) <= E f(V)
for every convex f. (i) Mass at a point u in [g_k, g_{k+1}] split onto g_k and g_{k+1} with
its mean kept is a mean-preserving spread, so it dominates in convex order. (ii) Convex order
is preserved by averages of independent variables with fixed positive weights and by products
of independent non-negative variables (E f(X Z) = E_Z E_X f(X z), and x -> f(x z) is convex
for z >= 0; same for w x + (1-w) z). (iii) For a fixed copy, f(G) is a convex function of it
(G is affine in each copy with a non-negative coefficient), so replacing copies one at a time
is valid. Hence: spread Y's cells onto their ends, then build A_T by binary splitting
A_{a+b} = (a A_a + b A_b)/(a+b) and G by products, spreading every result onto the grid again:
E f(G) <= E f(V_final) for both directions. A product of grid points is a grid point (index
sum), so products need no spreading.

Lower bound (Jensen). Replacing a variable by its conditional mean given the grid cell it
falls in gives W <=_cx X (conditional Jensen). Each discrete law is kept as one atom per cell
at the conditional mean of the mass in that cell; averages and products of such laws are
computed pair by pair and again collapsed to per-cell conditional means, so by (ii)-(iii)
E f(W_final) <= E f(G). Cells at the two ends are open ([0, g) and [g, inf)), so nothing is
ever dropped; folding tail cells into them is another coarsening.

Tails of the upper law (each term is added to the reported bound, never assumed small):
- Y is clipped to [g_lo, g_hi]. Below: moving mass up is free for remove (f increasing in G,
  G increasing in Y) and for add costs at most the moved probability (union bound, 0 <= f <= 1);
  ``add_excess`` sums these over all copies (T K of Y). Above: moving mass down is free for add
  (f decreasing); for remove, with X = X_c + R, R >= 0, (a + b)_+ <= a_+ + b gives
  E f(G) <= E f(G_c) + E[G - G_c], and the mean loss is tracked (``remove_excess``): weighted
  averages under averaging, d1 m2 + m1 d2 + d1 d2 under products (independence). The same rules
  fold negligible tails (mass or first moment <= PRUNE_MASS = 1e-30) during the computation.
- E[(Y - g_hi)_+] <= E[Y; Y >= g_hi] = Phi((mu + s_L^2 - l_hi)/s_L) in closed form.

Grids: the average of n copies uses step h_n = h_top 2^j (h_n shrinking like the spread of
A_n, so that every level costs about the same and contributes errors of the same size; a
coarse grid's points and cells are unions of fine ones, so moving a law to a finer grid only
relabels it). The error of both constructions is second order in h (variance added or
removed per step), so halving h shrinks the gap about 4x.

Cost: an average of two laws of n cells costs O(n * min(n, log(2)/h)) with prefix sums (pairs
of cells whose result falls in the same cell are summed at once); a product costs O(n m).

Floating point: sums use double precision without directed rounding; prefix sums are taken
from the end nearer the range summed. Each kernel also returns a proven entrywise bound on its
rounding (``_kernels``' docstring states its rules, docs/PROOF.md Lemma 14; ``refine``'s regrouping is bounded in
``_refine_record``); ``average_laws``, ``multiply_laws`` and ``refine`` hand them up as
``KernelRounding`` records (before pruning) when given a ``roundings`` list, and
``composed_laws`` collects them for a whole run. The upper law's entries are raised by their
bounds (``_raised``), the lower law keeps the atoms known to ``laws.LOWER_THRESHOLD`` with their
relative error (``_kept_means``); pruning and the log values add theirs (``laws``, ``rounding``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from . import _kernels, rounding
from .laws import LOWER_THRESHOLD, TINY, MeansLaw, PointsLaw, prune_means, prune_points

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
    # assumption B (``rounding``): each cell's mass and upper share within STEP_LAW_ACCURACY; the
    # upper law raised by it (an upper law may only gain mass)
    # PROOF Lemma 15: balls-and-bins step laws (assumption B)
    share_err = rounding.STEP_LAW_ACCURACY * mass * (1.0 + theta) * (1.0 + 8.0 * rounding.U)
    # PROOF Lemma 15: a cell below TINY (where B's relative accuracy is not claimed and its
    # operations may underflow, M4 R3) raises both ends by its whole mass and the cell's
    # subnormal losses, whatever its share
    share_err = np.where(mass >= TINY, share_err, mass + rounding.SUBNORMAL_OPS)
    p[:-1] += share_err
    p[1:] += share_err
    # the two tail masses and the excess are ndtr values: 2^-1022 each where subnormal (B)
    p[0] += rounding.STEP_LAW_ACCURACY * below + rounding.NDTR_SUBNORMAL
    p[-1] += rounding.STEP_LAW_ACCURACY * above + rounding.NDTR_SUBNORMAL
    accuracy = 1.0 + rounding.STEP_LAW_ACCURACY
    upper = PointsLaw(k_lo, p, remove_excess=(float(ndtr((mu + sd * sd - k_hi * h) / sd)) + rounding.NDTR_SUBNORMAL)
                      * accuracy, add_excess=(below + rounding.NDTR_SUBNORMAL) * accuracy)
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
    # PROOF Lemma 9: stored as logs
    stored = rounding.tilt_rounding(746.0 + h * max(abs(k_lo), abs(k_hi)))
    # an atom below TINY is dropped (a lower law may lose mass, Lemma 6): B's relative accuracy
    # holds for normal values only, and the merges (Lemma 8) meet no subnormal mass
    return upper, MeansLaw(k_lo, np.where(m >= TINY, m, 0.0), lv, 2.0 * rounding.STEP_LAW_ACCURACY + stored)


def _max_relative(value: np.ndarray, err: np.ndarray) -> float:
    """max err[k] / value[k] over the entries with value[k] > 0 (0 if there are none)."""
    positive = value > 0
    return float(np.max(err[positive] / value[positive])) if positive.any() else 0.0


@dataclass(frozen=True)
class KernelRounding:
    """The rounding bound of one kernel call, on the kernel's raw output (before pruning):
    |value[i] - exact[i]| <= err[i] (and the same for the moment of a means kernel), exact as
    defined in ``_kernels``' docstring. Entry i is grid cell k0 + i of step h. ``relative`` is
    max err / value over the entries with value > 0 (likewise ``moment_relative``).

    ``moment`` is the kernel's first moment: absolute for ``average_means``, relative to the
    cell's lower end g_{k0+i} for ``multiply_means``; None for the points kernels."""

    kernel: str
    k0: int
    h: float
    value: np.ndarray
    err: np.ndarray
    relative: float
    moment: np.ndarray | None = None
    moment_err: np.ndarray | None = None
    moment_relative: float | None = None


def _points_record(kernel, o0, h, out, err):
    return KernelRounding(kernel, o0, h, out, err, _max_relative(out, err))


def _means_record(kernel, o0, h, result):
    mass, _, _, moment, mass_err, moment_err = result
    return KernelRounding(kernel, o0, h, mass, mass_err, _max_relative(mass, mass_err), moment,
                          moment_err, _max_relative(moment, moment_err))


def average_laws(a, b, w: float, h: float, roundings: list | None = None):
    """Law of w X + (1 - w) Y for two (PointsLaw, MeansLaw) pairs of independent variables.

    ``roundings``, if a list, gets the two kernels' ``KernelRounding`` records appended."""
    (pa, ma), (pb, mb) = a, b
    out, o0, err = _kernels.average_points(pa.p, pa.k0, pb.p, pb.k0, w, h)
    if roundings is not None:
        roundings.append(_points_record("average_points", o0, h, out, err))
    points = prune_points(PointsLaw(o0, _raised(out, err), w * pa.remove_excess + (1 - w) * pb.remove_excess,
                                    pa.add_excess + pb.add_excess, rounding.combine(pa.rel_error, pb.rel_error, 0.0)),
                          h)
    result = _kernels.average_means(ma.m, ma.lv, ma.k0, mb.m, mb.lv, mb.k0, w, h)
    if roundings is not None:
        roundings.append(_means_record("average_means", result[2], h, result))
    return points, _kept_means(result, ma, mb, h)


def multiply_laws(a, b, h: float, roundings: list | None = None):
    """Law of X Y for two (PointsLaw, MeansLaw) pairs of independent variables (``roundings``:
    as for ``average_laws``)."""
    (pa, ma), (pb, mb) = a, b
    out, o0, err = _kernels.multiply_points(pa.p, pa.k0, pb.p, pb.k0)
    if roundings is not None:
        roundings.append(_points_record("multiply_points", o0, h, out, err))
    mean_a, mean_b = pa.mean(h), pb.mean(h)
    da, db = pa.remove_excess, pb.remove_excess
    points = prune_points(PointsLaw(o0, _raised(out, err), (da * mean_b + mean_a * db + da * db) * (1 + 4 * _kernels.U),
                                    pa.add_excess + pb.add_excess, rounding.combine(pa.rel_error, pb.rel_error, 0.0)),
                          h)
    result = _kernels.multiply_means(ma.m, ma.lv, ma.k0, mb.m, mb.lv, mb.k0, h)
    if roundings is not None:
        roundings.append(_means_record("multiply_means", result[2], h, result))
    return points, _kept_means(result, ma, mb, h)


def _raised(out: np.ndarray, err: np.ndarray) -> np.ndarray:
    """An upper law's entries raised by their proven rounding bounds: at least the exact ones
    (``rounding``: an upper law may only gain mass)."""
    if not np.all(np.isfinite(err)):
        raise FloatingPointError("a kernel's rounding bound is not finite")
    return np.maximum(out, 0.0) + err


def _kept_means(result, ma: MeansLaw, mb: MeansLaw, h: float) -> MeansLaw:
    """The lower law of a kernel's (mass, lv, o0, moment, mass_err, moment_err): atoms whose mass
    or moment is not known to LOWER_THRESHOLD of it are dropped (free for a lower law); the kept
    carry the largest relative bound (``rounding``)."""
    mass, lv, o0, moment, mass_err, moment_err = result
    keep = (mass >= TINY) & (moment >= TINY) & (mass_err <= LOWER_THRESHOLD * mass) & (
        moment_err <= LOWER_THRESHOLD * moment)
    if not np.any(keep):  # the empty lower law (its deltas are 0, a valid lower bound)
        return MeansLaw(o0, np.zeros(1), np.zeros(1), rounding.combine(ma.rel_error, mb.rel_error, 0.0))
    ratio = max(float(np.max(mass_err[keep] / mass[keep])), float(np.max(moment_err[keep] / moment[keep])))
    # PROOF Lemma 9: stored as logs
    stored = rounding.tilt_rounding(746.0 + h * max(abs(o0), abs(o0 + mass.size)))  # lv = log(moment / mass)
    # PROOF Lemma 6: kept atoms of a lower product
    rel = rounding.combine(ma.rel_error, mb.rel_error, ratio / (1.0 - ratio) + stored)
    return prune_means(MeansLaw(o0, np.where(keep, mass, 0.0), lv, rel), h)


# Relative error of NumPy's exp and log (its SIMD routines: at most 4 ulp, numpy PR 19478), in u.
NUMPY_ULPS = 8.0


def _refine_record(m, lv, cells, k0, h_fine, mass, moment) -> KernelRounding:
    """Rounding bounds of ``refine``'s regrouping (the model of ``_kernels``' docstring, with
    NumPy's exp and log within relative NUMPY_ULPS u): fine cell k receives c_k atoms by a running
    sum in order, so mass_err = 1.01 (c_k - 1) u mass^ (exact inputs); each moment term is
    exp(y^), y^ = fl(fl(fl(log m) + lv) - fl((k0 + k) h)) within a <= u (1.001 NUMPY_ULPS |log^ m|
    + |fl(log m + lv)| + |fl((k0 + k) h)| + |y^|) + eta of y = log m + lv - (k0 + k) h, so as in
    ``multiply_means``: moment_err = 1.02 (c_k u + NUMPY_ULPS u + a) moment^ + 4 c_k eta
    (a: the cell's largest; inf where a > 2^-20)."""
    u, tiny = _kernels.U, _kernels.TINY
    n = mass.size
    count = np.bincount(cells, minlength=n)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_m = np.log(m)
        z = log_m + lv
        low = (k0 + cells) * h_fine
        y = z - low
        a = u * (1.001 * NUMPY_ULPS * np.abs(log_m) + np.abs(z) + np.abs(low) + np.abs(y)) + tiny
    a = np.where(m > 0, a, 0.0)  # an atom of mass 0 adds exactly 0
    a_max = np.zeros(n)
    np.maximum.at(a_max, cells, a)
    mass_err = (1.01 * np.maximum(count - 1, 0) * u * mass + np.maximum(count - 1, 0) * tiny) * _kernels.SLACK
    moment_err = (1.02 * (count * u + NUMPY_ULPS * u + a_max) * moment + 4 * count * tiny) * _kernels.SLACK
    moment_err[a_max > 2.0**-20] = math.inf
    return KernelRounding("refine", k0, h_fine, mass, mass_err, _max_relative(mass, mass_err), moment,
                          moment_err, _max_relative(moment, moment_err))


def refine(pair, factor: int, h_fine: float, roundings: list | None = None):
    """The same two laws on the grid of step h_fine = h / factor (factor a power of 2).

    Points stay where they are (every coarse point is a fine point); each mean moves to the
    fine cell that holds it, the end cells staying open-ended. Nothing changes but the labels
    (and the rounding of the regrouped means: ``roundings``, if a list, gets its
    ``KernelRounding`` record, moment relative to each fine cell's lower end; none for factor 1)."""
    points, means = pair
    if factor == 1:
        return pair
    p = np.zeros((points.p.size - 1) * factor + 1)
    p[::factor] = points.p
    fine_points = PointsLaw(points.k0 * factor, p, points.remove_excess, points.add_excess, points.rel_error)
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
    record = _refine_record(means.m, means.lv, cells, k0, h_fine, mass, moment)
    if roundings is not None:
        roundings.append(record)
    kept = mass > 0
    ratio = max(float(np.max(record.err[kept] / mass[kept])), float(np.max(record.moment_err[kept] / moment[kept])))
    # PROOF Lemma 9: stored as logs
    stored = rounding.tilt_rounding(746.0 + h_fine * max(abs(k0), abs(k0 + n)))
    return fine_points, prune_means(MeansLaw(k0, mass, lv, rounding.combine(means.rel_error, ratio, stored)), h_fine)


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
                  scale: float, roundings: list | None = None):
    """(PointsLaw, MeansLaw) of prod_{k<epochs} A_k, A_k the average of ``steps`` copies of Y.

    The average is built by binary splitting A_n = (a A_a + b A_b) / n, a = n // 2 (at most
    two sizes per level, so at most 2 log2(steps) averages), each on the grid of
    ``level_steps``; the product by squaring on the grid h_top. Returns the pair and the
    largest array length used; ``roundings``, if a list, gets every kernel call's
    ``KernelRounding`` record, in the order of the calls."""
    steps_of = level_steps(sigma, steps, h_top, coarsest, scale)
    h1 = steps_of[1]
    base = y_laws(sigma, h1, tail_scale=float(steps) * float(epochs))
    memo = {1: (prune_points(base[0], h1), prune_means(base[1], h1))}
    largest = [memo[1][0].p.size]

    def average_of(n):
        if n not in memo:
            a = n // 2
            h = steps_of[n]
            left = refine(average_of(a), round(steps_of[a] / h), h, roundings)
            right = refine(average_of(n - a), round(steps_of[n - a] / h), h, roundings)
            memo[n] = average_laws(left, right, a / n, h, roundings)
            largest.append(max(left[0].p.size, right[0].p.size, memo[n][0].p.size))
        return memo[n]

    factor = average_of(steps)
    result = None
    k = epochs
    while k:
        if k & 1:
            result = factor if result is None else multiply_laws(result, factor, h_top, roundings)
            largest.append(result[0].p.size)
        k >>= 1
        if k:
            factor = multiply_laws(factor, factor, h_top, roundings)
            largest.append(factor[0].p.size)
    return result, max(largest)
