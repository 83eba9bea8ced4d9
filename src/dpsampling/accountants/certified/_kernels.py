"""Numba kernels of the certified balls-and-bins PLD (private; arrays and scalars in, no checks).

Grid: g_k = exp(k h) for integer k; cell k = [g_k, g_{k+1}). Two representations of a law:

- points (upper bound): mass ``p[i]`` at exactly g_{k0+i};
- means (lower bound): mass ``m[i]`` at ``exp(lv[i])`` with exp(lv[i]) in cell k0+i, except that
  the first cell stands for [0, g_{k0+1}) and the last for [g_{k1}, inf) ("special" cells).

``certified.ballsbins``' docstring says why each operation gives a bound.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _cumulative(x):
    """prefix[j] = sum x[:j], suffix[j] = sum x[j:] (both length n + 1)."""
    n = x.size
    prefix = np.zeros(n + 1)
    suffix = np.zeros(n + 1)
    for j in range(n):
        prefix[j + 1] = prefix[j] + x[j]
    for j in range(n - 1, -1, -1):
        suffix[j] = suffix[j + 1] + x[j]
    return prefix, suffix


@njit(cache=True)
def _range_sum(prefix, suffix, lo, hi):
    """sum x[lo..hi] from whichever of prefix/suffix keeps the smaller magnitudes."""
    if prefix[hi + 1] <= suffix[lo]:
        return max(prefix[hi + 1] - prefix[lo], 0.0)
    return max(suffix[lo] - suffix[hi + 1], 0.0)


@njit(cache=True)
def _offset_tables(w, h):
    """Index offsets of w g_i + (1-w) g_j relative to i (valid for any i, j <= i on the grid).

    cell_of[d] = floor(log(w + (1-w) e^{-d h}) / h): the cell of the value for j = i - d
    (constant from the last entry on); first_j[m] = ceil(log((e^{-m h} - w) / (1-w)) / h):
    j - i of the first j whose value reaches g_{i-m}, for m < len(first_j) (beyond: every j)."""
    v = 1.0 - w
    limit = math.log(1.0 / w) / h
    size = int(limit) + 2
    first_j = np.empty(size, dtype=np.int64)
    count = 0
    for m in range(size):
        r = math.exp(-m * h) - w
        if r <= 0.0:
            break
        first_j[m] = math.ceil(math.log(r / v) / h)
        count += 1
    d_max = 1
    while v * math.exp(-d_max * h) > 1e-17 * w:
        d_max += 1
    cell_of = np.empty(d_max + 1, dtype=np.int64)
    for d in range(d_max + 1):
        cell_of[d] = math.floor(math.log(w + v * math.exp(-d * h)) / h)
    return cell_of, first_j[:count]


@njit(cache=True)
def _points_half(a, b, w, h, target, strict):
    """Pairs (i from a, j from b) with global j <= i (j < i if strict) of w g_i + (1-w) g_j,
    each spread onto the two ends of its cell with the mean kept.

    On the common grid the cell of the value and the j-range of each cell depend on i - j
    only, so both come from ``_offset_tables``; the spread itself uses the exact sums."""
    pa, a0 = a
    pb, b0 = b
    out, o0, grid = target
    nb = pb.size
    gb = np.exp((b0 + np.arange(nb)) * h)
    pre_q, suf_q = _cumulative(pb)
    pre_g, suf_g = _cumulative(pb * gb)
    v = 1.0 - w
    step = math.expm1(h)
    cell_of, first_j = _offset_tables(w, h)
    d_last = cell_of.size - 1
    for ia in range(pa.size):
        p = pa[ia]
        if p == 0.0:
            continue
        gi_index = a0 + ia
        jhi = min(nb - 1, gi_index - strict - b0)
        if jhi < 0:
            continue
        gi = math.exp(gi_index * h)
        while jhi >= 0:
            k = gi_index + cell_of[min(gi_index - b0 - jhi, d_last)]
            m = gi_index - k
            if m < first_j.size:
                jlo = min(max(gi_index + first_j[m] - b0, 0), jhi)
            else:
                jlo = 0
            gk = grid[k - o0]
            q = _range_sum(pre_q, suf_q, jlo, jhi)
            if q > 0.0:
                g = _range_sum(pre_g, suf_g, jlo, jhi)
                mass = p * q
                up = p * ((w * gi - gk) * q + v * g) / (gk * step)
                up = min(max(up, 0.0), mass)
                out[k - o0] += mass - up
                out[k + 1 - o0] += up
            jhi = jlo - 1


@njit(cache=True)
def average_points(pa, a0, pb, b0, w, h):
    """Law of w X + (1 - w) Y (X ~ pa, Y ~ pb independent) spread onto the grid.

    Returns (out, o0)."""
    ga0 = math.exp(a0 * h)
    gb0 = math.exp(b0 * h)
    o0 = math.floor(math.log(w * ga0 + (1.0 - w) * gb0) / h) - 1
    o1 = max(a0 + pa.size - 1, b0 + pb.size - 1) + 2
    out = np.zeros(o1 - o0 + 1)
    grid = np.exp((o0 + np.arange(out.size)) * h)
    _points_half((pa, a0), (pb, b0), w, h, (out, o0, grid), 0)
    _points_half((pb, b0), (pa, a0), 1.0 - w, h, (out, o0, grid), 1)
    return out, o0


@njit(cache=True)
def _first_at_least(values, t, hi):
    """Smallest j <= hi with values[j] >= t (values increasing), by galloping down from hi
    then bisection: O(log(hi - j)). Returns hi if values[hi] < t (rounding at a cell edge)."""
    if values[hi] < t:
        return hi
    good = hi
    bad = -1
    step = 1
    while True:
        j = good - step
        if j < 0:
            break
        if values[j] >= t:
            good = j
            step *= 2
        else:
            bad = j
            break
    while good - bad > 1:
        mid = (good + bad) // 2
        if values[mid] >= t:
            good = mid
        else:
            bad = mid
    return good


@njit(cache=True)
def _means_half(a, b, w, h, target, strict):
    """As _points_half for the means representation: each pair's mass and first moment go to
    the cell of w v_i + (1-w) v_j (values va, vb, not logs)."""
    ma, va, a0 = a
    mb, vb, b0 = b
    mass, moment, o0, o1, grid = target
    nb = mb.size
    pre_q, suf_q = _cumulative(mb)
    pre_g, suf_g = _cumulative(mb * vb)
    v = 1.0 - w
    for ia in range(ma.size):
        p = ma[ia]
        if p == 0.0:
            continue
        gi_index = a0 + ia
        jhi = min(nb - 1, gi_index - strict - b0)
        if jhi < 0:
            continue
        vi = va[ia]
        k = o1 + 1
        while jhi >= 0:
            u = w * vi + v * vb[jhi]
            if k > o1:
                k = math.floor(math.log(u) / h)
            else:  # u decreased: walk down from the previous cell (no log)
                k -= 1
                while k > o0 and grid[k - o0] > u:
                    k -= 1
            if k <= o0:
                k = o0
                jlo = 0
            else:
                k = min(k, o1)
                t = (grid[k - o0] - w * vi) / v
                if t <= 0.0:
                    jlo = 0
                else:
                    jlo = _first_at_least(vb, t, jhi)
            q = _range_sum(pre_q, suf_q, jlo, jhi)
            if q > 0.0:
                g = _range_sum(pre_g, suf_g, jlo, jhi)
                mass[k - o0] += p * q
                moment[k - o0] += p * (w * vi * q + v * g)
            jhi = jlo - 1


@njit(cache=True)
def average_means(ma, lva, a0, mb, lvb, b0, w, h):
    """Law of w X + (1 - w) Y, each cell replaced by its conditional mean.

    Returns (mass, log_value, o0)."""
    va = np.exp(lva)
    vb = np.exp(lvb)
    o0 = math.floor(math.log(w * va[0] + (1.0 - w) * vb[0]) / h)
    o1 = max(a0 + ma.size - 1, b0 + mb.size - 1)
    mass = np.zeros(o1 - o0 + 1)
    moment = np.zeros(o1 - o0 + 1)
    grid = np.exp((o0 + np.arange(mass.size)) * h)
    target = (mass, moment, o0, o1, grid)
    _means_half((ma, va, a0), (mb, vb, b0), w, h, target, 0)
    _means_half((mb, vb, b0), (ma, va, a0), 1.0 - w, h, target, 1)
    return mass, _log_values(mass, moment, o0, h), o0


@njit(cache=True)
def _log_values(mass, moment, o0, h):
    """log(moment / mass) per cell, kept inside its cell (the two end cells are open-ended)."""
    n = mass.size
    lv = np.empty(n)
    for i in range(n):
        low = (o0 + i) * h
        if mass[i] > 0.0 and moment[i] > 0.0:
            x = math.log(moment[i] / mass[i])
        else:
            x = low
        if i > 0:
            x = max(x, low)
        if i < n - 1:
            x = min(x, low + h * (1.0 - 1e-12))
        lv[i] = x
    return lv


@njit(cache=True)
def multiply_points(pa, a0, pb, b0):
    """Law of X Y on the grid: an exact index sum. Returns (out, o0)."""
    out = np.zeros(pa.size + pb.size - 1)
    for i in range(pa.size):
        p = pa[i]
        if p == 0.0:
            continue
        for j in range(pb.size):
            out[i + j] += p * pb[j]
    return out, a0 + b0


@njit(cache=True)
def multiply_means(ma, lva, a0, mb, lvb, b0, h):
    """Law of X Y, each cell replaced by its conditional mean. Returns (mass, log_value, o0).

    Moments are kept relative to the cell's lower end (exp(lv - k h)) so that no value
    overflows."""
    o0 = a0 + b0
    n = ma.size + mb.size
    mass = np.zeros(n)
    moment = np.zeros(n)
    for i in range(ma.size):
        p = ma[i]
        if p == 0.0:
            continue
        for j in range(mb.size):
            q = mb[j]
            if q == 0.0:
                continue
            x = lva[i] + lvb[j]
            k = math.floor(x / h) - o0
            k = min(max(k, 0), n - 1)
            mass[k] += p * q
            moment[k] += p * q * math.exp(x - (o0 + k) * h)
    lv = np.empty(n)
    for k in range(n):
        low = (o0 + k) * h
        x = low + math.log(moment[k] / mass[k]) if mass[k] > 0.0 else low
        if k > 0:
            x = max(x, low)
        if k < n - 1:
            x = min(x, low + h * (1.0 - 1e-12))
        lv[k] = x
    return mass, lv, o0


@njit(cache=True)
def hockey_stick(mass, log_value, epsilon, remove):
    """sum_i mass_i (v_i - e^eps)_+ (remove) or sum_i mass_i (1 - e^eps v_i)_+ (add), v = exp(lv),
    term by term in logs so that no value overflows."""
    total = 0.0
    for i in range(mass.size):
        m = mass[i]
        if m == 0.0:
            continue
        if remove:
            if log_value[i] > epsilon:
                total += math.exp(math.log(m) + log_value[i]) - math.exp(math.log(m) + epsilon)
        elif log_value[i] + epsilon < 0.0:
            total += m - math.exp(math.log(m) + epsilon + log_value[i])
    return total


@njit(cache=True)
def epsilon_for_delta(mass, log_value, excess, delta, remove, upper_end):
    """Smallest eps >= 0 with hockey_stick(...) + excess <= delta, by bisection to ~1e-13.

    Returns the upper end of the final bracket (a value where the condition holds) when
    ``upper_end``, else the lower end (a value where it fails, or 0); inf if excess >= delta."""
    if hockey_stick(mass, log_value, 0.0, remove) + excess <= delta:
        return 0.0
    if excess >= delta:
        return math.inf
    hi = 0.0
    for i in range(mass.size):
        if mass[i] > 0.0:
            hi = max(hi, log_value[i] if remove else -log_value[i])
    lo = 0.0
    for _ in range(200):
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
        mid = 0.5 * (lo + hi)
        if hockey_stick(mass, log_value, mid, remove) + excess <= delta:
            hi = mid
        else:
            lo = mid
    return hi if upper_end else lo
