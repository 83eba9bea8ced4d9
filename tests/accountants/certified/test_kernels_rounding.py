"""The balls-and-bins kernels' rounding bounds (``certified._kernels``' theorem) against exact arithmetic.

Each kernel is recomputed with the same decisions (which cell and j-range each pair goes to,
which ranges are skipped: traced by a Numba copy of the kernels' loop control) in exact rational
arithmetic (``Fraction`` of the double inputs) and, for exp, mpmath at 60 digits (its error,
~1e-60 relative, is far below the bounds); every entry must satisfy |computed - exact| <= err.
The bounds must also be useful: on the random cases the largest bound is within ``TIGHTNESS``
of the largest error observed (factors seen: 1.8 to 97, printed with ``-s``). Inputs are
seeded, so the outcome is fixed.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from numba import njit

from dpsampling.accountants.certified import _kernels
from dpsampling.accountants.certified import ballsbins as _laws

TIGHTNESS = 1e4
mpmath.mp.dps = 60


def _exp(x: Fraction) -> Fraction:
    """exp of an exact rational, to 60 digits, as an exact rational."""
    man, exp = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _prefix(values):
    out = [Fraction(0)]
    for x in values:
        out.append(out[-1] + x)
    return out


# ---------------------------------------------------------------- decision traces (loop control only)

@njit(cache=True)
def _points_trace(pa, a0, pb, b0, w, h, o0, strict):
    """(ia, k, jlo, jhi) of every range that ``_points_half`` spreads (q > 0)."""
    nb = pb.size
    sums_q = _kernels._cumulative(pb, np.zeros(nb))
    cell_of, first_j = _kernels._offset_tables(w, h)
    d_last = cell_of.size - 1
    rows = []
    for ia in range(pa.size):
        if pa[ia] == 0.0:
            continue
        gi_index = a0 + ia
        jhi = min(nb - 1, gi_index - strict - b0)
        while jhi >= 0:
            k = gi_index + cell_of[min(gi_index - b0 - jhi, d_last)]
            m = gi_index - k
            jlo = min(max(gi_index + first_j[m] - b0, 0), jhi) if m < first_j.size else 0
            if _kernels._range_sum(sums_q, jlo, jhi)[0] > 0.0:
                rows.append((ia, k, jlo, jhi))
            jhi = jlo - 1
    return rows


@njit(cache=True)
def _means_trace(ma, va, a0, mb, vb, b0, w, h, o0, o1, strict):
    """(ia, k, jlo, jhi) of every range that ``_means_half`` adds (q > 0)."""
    nb = mb.size
    grid = np.exp((o0 + np.arange(o1 - o0 + 1)) * h)
    sums_q = _kernels._cumulative(mb, np.zeros(nb))
    v = 1.0 - w
    rows = []
    for ia in range(ma.size):
        if ma[ia] == 0.0:
            continue
        gi_index = a0 + ia
        jhi = min(nb - 1, gi_index - strict - b0)
        vi = va[ia]
        k = o1 + 1
        while jhi >= 0:
            u = w * vi + v * vb[jhi]
            if k > o1:
                k = math.floor(math.log(u) / h)
            else:
                k -= 1
                while k > o0 and grid[k - o0] > u:
                    k -= 1
            if k <= o0:
                k = o0
                jlo = 0
            else:
                k = min(k, o1)
                t = (grid[k - o0] - w * vi) / v
                jlo = 0 if t <= 0.0 else _kernels._first_at_least(vb, t, jhi)
            if _kernels._range_sum(sums_q, jlo, jhi)[0] > 0.0:
                rows.append((ia, k, jlo, jhi))
            jhi = jlo - 1
    return rows


# ---------------------------------------------------------------- exact recomputations

def _exact_average_points(pa, a0, pb, b0, w, h, o0, size):
    out = [Fraction(0)] * size
    fh = Fraction(h)
    step = _exp(fh) - 1
    halves = ((pa, a0, pb, b0, w, Fraction(w), 0), (pb, b0, pa, a0, 1.0 - w, 1 - Fraction(w), 1))
    for xa, xa0, xb, xb0, w_float, fw, strict in halves:
        fv = 1 - fw
        q_sums = _prefix(Fraction(x) for x in xb)
        g_sums = _prefix(Fraction(x) * _exp((xb0 + j) * fh) for j, x in enumerate(xb))
        for ia, k, jlo, jhi in _points_trace(xa, xa0, xb, xb0, w_float, h, o0, strict):
            p = Fraction(xa[ia])
            gi, gk = _exp((xa0 + ia) * fh), _exp(k * fh)
            q = q_sums[jhi + 1] - q_sums[jlo]
            g = g_sums[jhi + 1] - g_sums[jlo]
            mass = p * q
            up = min(max(p * ((fw * gi - gk) * q + fv * g) / (gk * step), Fraction(0)), mass)
            out[k - o0] += mass - up
            out[k + 1 - o0] += up
    return out


def _exact_average_means(ma, lva, a0, mb, lvb, b0, w, h, o0, size):
    mass = [Fraction(0)] * size
    moment = [Fraction(0)] * size
    va, vb = np.exp(lva), np.exp(lvb)  # the decisions only (the kernel's values, libm exp)
    halves = ((ma, lva, va, a0, mb, lvb, vb, b0, w, Fraction(w), 0),
              (mb, lvb, vb, b0, ma, lva, va, a0, 1.0 - w, 1 - Fraction(w), 1))
    for xm, xlv, xv, xa0, ym, ylv, yv, yb0, w_float, fw, strict in halves:
        fv = 1 - fw
        q_sums = _prefix(Fraction(x) for x in ym)
        g_sums = _prefix(Fraction(x) * _exp(Fraction(lv)) for x, lv in zip(ym, ylv))
        rows = _means_trace(xm, xv, xa0, ym, yv, yb0, w_float, h, o0, o0 + size - 1, strict)
        for ia, k, jlo, jhi in rows:
            p = Fraction(xm[ia])
            q = q_sums[jhi + 1] - q_sums[jlo]
            g = g_sums[jhi + 1] - g_sums[jlo]
            mass[k - o0] += p * q
            moment[k - o0] += p * (fw * _exp(Fraction(xlv[ia])) * q + fv * g)
    return mass, moment


def _exact_multiply_points(pa, pb):
    out = [Fraction(0)] * (pa.size + pb.size - 1)
    for i, p in enumerate(pa):
        for j, q in enumerate(pb):
            out[i + j] += Fraction(p) * Fraction(q)
    return out


def _exact_multiply_means(ma, lva, a0, mb, lvb, b0, h):
    o0, n = a0 + b0, ma.size + mb.size
    mass = [Fraction(0)] * n
    moment = [Fraction(0)] * n
    for i in range(ma.size):
        for j in range(mb.size):
            if ma[i] == 0.0 or mb[j] == 0.0:
                continue
            x = lva[i] + lvb[j]  # the decision, in doubles as in the kernel
            k = min(max(math.floor(x / h) - o0, 0), n - 1)
            t = Fraction(ma[i]) * Fraction(mb[j])
            mass[k] += t
            moment[k] += t * _exp(Fraction(lva[i]) + Fraction(lvb[j]) - (o0 + k) * Fraction(h))
    return mass, moment


# ---------------------------------------------------------------- checks

def _check(computed, exact, err, label):
    """|computed - exact| <= err entrywise; returns (largest bound, largest error observed)."""
    assert len(computed) == len(exact) == len(err)
    gaps = []
    for k, (c, x, e) in enumerate(zip(computed, exact, err)):
        gap = abs(Fraction(float(c)) - x)
        assert gap <= Fraction(float(e)), (label, k, float(c), float(x), float(gap), float(e))
        gaps.append(float(gap))
    return float(np.max(err)), max(gaps)


def _factor(label, bound, observed, tight):
    """The largest bound is within TIGHTNESS of the largest error observed (where ``tight``)."""
    factor = bound / observed if observed > 0 else math.inf
    print(f"{label}: largest bound {bound:.3g}, largest error {observed:.3g}, factor {factor:.3g}")
    if tight:
        assert factor <= TIGHTNESS, (label, factor)


def _points(rng, n, wide, zeros):
    p = rng.random(n)
    if wide:  # every other entry spread over 1e-200..1
        p[::2] *= 10.0 ** rng.uniform(-200, 0, p[::2].size)
    if zeros:
        p[rng.random(n) < 0.3] = 0.0
        p[0] = p[-1] = 0.5
    return p


def _means(rng, n, k0, h, wide):
    m = rng.random(n)
    if wide:
        m[::2] *= 10.0 ** rng.uniform(-200, 0, m[::2].size)
    m /= m.sum()
    lv = (k0 + np.arange(n) + rng.random(n)) * h
    lv[0] -= 3 * h  # open-ended end cells
    lv[-1] += 2 * h
    return m, lv


CASES = [  # (seed, h, w, sizes, offsets, wide, zeros, tight)
    (1, 0.05, 3 / 7, (30, 22), (-10, 3), False, False, True),
    (2, 0.3, 0.5, (25, 25), (-40, -38), True, False, True),
    (3, 1e-3, 0.5, (40, 30), (5, 0), False, False, True),  # cancellation: tiny step, up ~ mass
    (4, 0.02, 0.999, (30, 30), (-20, -25), False, True, True),  # w gi ~ g_k, zeros skipped
    (5, 0.1, 0.01, (20, 35), (3000, 2990), True, False, True),  # large |k h|: exp arguments ~300
    (6, 0.07, 0.25, (1, 30), (-700, -705), False, False, False),  # a single atom, values ~1e-21
]


@pytest.mark.parametrize("case", CASES, ids=[str(c[0]) for c in CASES])
def test_average_points_bound_holds(case):
    seed, h, w, (na, nb), (a0, b0), wide, zeros, tight = case
    rng = np.random.default_rng(seed)
    pa, pb = _points(rng, na, wide, zeros), _points(rng, nb, wide, False)
    out, o0, err = _kernels.average_points(pa, a0, pb, b0, w, h)
    exact = _exact_average_points(pa, a0, pb, b0, w, h, o0, out.size)
    _factor(f"average_points {seed}", *_check(out, exact, err, "points"), tight)


@pytest.mark.parametrize("case", CASES, ids=[str(c[0]) for c in CASES])
def test_average_means_bound_holds(case):
    seed, h, w, (na, nb), (a0, b0), wide, _, tight = case
    rng = np.random.default_rng(100 + seed)
    (ma, lva), (mb, lvb) = _means(rng, na, a0, h, wide), _means(rng, nb, b0, h, wide)
    mass, lv, o0, moment, mass_err, moment_err = _kernels.average_means(ma, lva, a0, mb, lvb, b0, w, h)
    exact_mass, exact_moment = _exact_average_means(ma, lva, a0, mb, lvb, b0, w, h, o0, mass.size)
    _factor(f"average_means mass {seed}", *_check(mass, exact_mass, mass_err, "mass"), tight)
    _factor(f"average_means moment {seed}", *_check(moment, exact_moment, moment_err, "moment"), tight)
    # the log values are taken from these two arrays
    inner = (mass[1:-1] > 0) & (moment[1:-1] > 0)
    cells = (o0 + np.arange(1, mass.size - 1))[inner] * h
    assert np.allclose(lv[1:-1][inner], np.clip(np.log(moment[1:-1][inner] / mass[1:-1][inner]), cells,
                                                cells + h * (1 - 1e-12)), rtol=0, atol=1e-14 * (1 + abs(cells)))


@pytest.mark.parametrize("case", CASES, ids=[str(c[0]) for c in CASES])
def test_multiply_kernels_bounds_hold(case):
    seed, h, _, (na, nb), (a0, b0), wide, zeros, tight = case
    rng = np.random.default_rng(200 + seed)
    pa, pb = _points(rng, na, wide, zeros), _points(rng, nb, wide, zeros)
    out, o0, err = _kernels.multiply_points(pa, a0, pb, b0)
    assert o0 == a0 + b0
    _factor(f"multiply_points {seed}", *_check(out, _exact_multiply_points(pa, pb), err, "points"),
            tight and na > 1)
    (ma, lva), (mb, lvb) = _means(rng, na, a0, h, wide), _means(rng, nb, b0, h, wide)
    if zeros:
        ma[rng.random(na) < 0.3] = 0.0
    mass, _, o0, moment, mass_err, moment_err = _kernels.multiply_means(ma, lva, a0, mb, lvb, b0, h)
    exact_mass, exact_moment = _exact_multiply_means(ma, lva, a0, mb, lvb, b0, h)
    _factor(f"multiply_means mass {seed}", *_check(mass, exact_mass, mass_err, "mass"), tight and na > 1)
    _factor(f"multiply_means moment {seed}", *_check(moment, exact_moment, moment_err, "moment"), tight)


def test_bounds_on_the_engines_laws_and_their_records():
    """The laws the engine starts from (Y's two laws on a coarse grid): average and product
    bounds hold, and the ``KernelRounding`` records carry the kernels' arrays and their largest
    relative bound."""
    h = 0.25
    pair = _laws.y_laws(0.9, h, tail_scale=4.0)
    records = []
    two = _laws.average_laws(pair, pair, 0.5, h, records)
    _laws.multiply_laws(two, two, h, records)
    assert [r.kernel for r in records] == ["average_points", "average_means", "multiply_points",
                                           "multiply_means"]
    points, means = pair
    rec = records[0]
    exact = _exact_average_points(points.p, points.k0, points.p, points.k0, 0.5, h, rec.k0, rec.value.size)
    _check(rec.value, exact, rec.err, "engine points")
    positive = rec.value > 0
    assert rec.relative == pytest.approx(np.max(rec.err[positive] / rec.value[positive]), rel=0)
    assert 0 < rec.relative < 1e-10
    rec = records[1]
    exact_mass, exact_moment = _exact_average_means(means.m, means.lv, means.k0, means.m, means.lv, means.k0,
                                                    0.5, h, rec.k0, rec.value.size)
    _check(rec.value, exact_mass, rec.err, "engine mass")
    _check(rec.moment, exact_moment, rec.moment_err, "engine moment")
    assert 0 < rec.moment_relative < 1e-10
    for rec, kernel in zip(records[2:], ("multiply_points", "multiply_means")):
        assert rec.kernel == kernel and rec.h == h and np.all(rec.err >= 0) and rec.relative < 1e-10


@pytest.mark.parametrize("seed,k0,factor,wide", [(1, -7, 4, False), (2, 900, 8, True)])
def test_refine_bound_holds(seed, k0, factor, wide):
    """``refine``'s regrouped mass and moment (relative to each fine cell's lower end) against
    exact arithmetic, its cells taken from the same NumPy expression."""
    rng = np.random.default_rng(300 + seed)
    h = 0.2
    m, lv = _means(rng, 30, k0, h, wide)
    m[3] = 0.0
    pair = (_laws.PointsLaw(k0, np.full(30, 1 / 30), 0.0, 0.0), _laws.MeansLaw(k0, m, lv))
    records = []
    _laws.refine(pair, factor, h / factor, records)
    (rec,) = records
    h_fine = h / factor
    assert rec.kernel == "refine" and rec.k0 == k0 * factor and rec.h == h_fine
    n = rec.value.size
    cells = np.clip(np.floor(lv / h_fine).astype(np.int64) - rec.k0, 0, n - 1)
    exact_mass = [Fraction(0)] * n
    exact_moment = [Fraction(0)] * n
    for x, y, c in zip(m, lv, cells):
        if x > 0:
            exact_mass[c] += Fraction(x)
            exact_moment[c] += Fraction(x) * _exp(Fraction(y) - (rec.k0 + int(c)) * Fraction(h_fine))
    _factor(f"refine mass {seed}", *_check(rec.value, exact_mass, rec.err, "mass"), False)
    _factor(f"refine moment {seed}", *_check(rec.moment, exact_moment, rec.moment_err, "moment"), True)


def test_composed_laws_collect_every_record_and_keep_their_laws():
    """``composed_laws`` with a ``roundings`` list returns the same laws and one record per
    kernel call, in order: T = 16 is four averages (sizes 2, 4, 8, 16; sizes 1 and 2 on the grid
    0.01, the rest on 0.005: both halves of size 2 are refined before the average of size 4),
    K = 2 one product."""
    args = (0.9, 16, 2, 0.005, 1.0, 1.0)
    assert _laws.level_steps(*args[:2], *args[3:]) == {16: 0.005, 8: 0.005, 4: 0.005, 2: 0.01, 1: 0.01}
    records = []
    (points, means), largest = _laws.composed_laws(*args, roundings=records)
    (points0, means0), largest0 = _laws.composed_laws(*args)
    assert largest == largest0 and points.k0 == points0.k0 and np.array_equal(points.p, points0.p)
    assert np.array_equal(means.m, means0.m) and np.array_equal(means.lv, means0.lv)
    average = ["average_points", "average_means"]
    assert [r.kernel for r in records] == (average + ["refine"] * 2 + average * 3
                                           + ["multiply_points", "multiply_means"])
    for r in records:
        assert np.all(r.err >= 0) and r.err.shape == r.value.shape
        assert (r.moment is None) == r.kernel.endswith("points")
        assert 0 <= r.relative < math.inf
