"""Numba kernels of the certified balls-and-bins PLD (private; arrays and scalars in, no checks).

Grid: g_k = exp(k h) for integer k; cell k = [g_k, g_{k+1}). Two representations of a law:

- points (upper bound): mass ``p[i]`` at exactly g_{k0+i};
- means (lower bound): mass ``m[i]`` at ``exp(lv[i])`` with exp(lv[i]) in cell k0+i, except that
  the first cell stands for [0, g_{k0+1}) and the last for [g_{k1}, inf) ("special" cells).

``certified.ballsbins``' docstring says why each operation gives a bound.

**Rounding theorem.** The points kernels return ``err``, the means kernels ``mass_err`` and
``moment_err``, with |computed[k] - exact[k]| <= err[k] for every entry. exact[k] is what the same
algorithm gives in exact real arithmetic (exp exact too) on the same double inputs (arrays, w, h)
with the same discrete decisions (the cell and j-range of each pair, the branch of each range sum,
the pairs skipped because a computed mass is 0). ``moment`` is the first moment as accumulated
(before ``_log_values``): sum p (w v_i q + (1-w) g) for ``average_means``; sum p q
exp(x - (o0+k) h), relative to the cell's lower end, for ``multiply_means``.

Model: IEEE double, round to nearest, gradual underflow, no overflow, no FMA contraction (Numba
without fast-math): |fl(a op b) - a op b| <= u |fl(a op b)| + e, u = 2^-53, e = 0 for + and -
(exact when subnormal), e = 2^-1075 for * and / (Higham, Accuracy and Stability, 2nd ed., (2.5) and
s. 2.1). libm's exp and expm1 (glibc's: < 1 ulp) are within relative 2u of exact, plus 2^-1074
absolute for a subnormal result. Every computed x^ carries e_x >= |x^ - x| (running error analysis,
Higham s. 3.3), built from the kernel's own values, with eta = TINY = 2^-1022 >= 2^-1075 charged at
every operation:
  a^ +- b^ -> r^:  e_a + e_b + u |r^| + eta;
  a^ * b^ -> r^:   |a^| e_b + |b^| e_a + e_a e_b + u |r^| + eta;
  a^ / b^ -> r^, e_b <= rho |b^|, rho <= 2^-20:  1.001 (e_a / |b^| + rho |r^|) + u |r^| + eta
    (|a/b - a^/b^| <= (e_a + |a^/b^| e_b) / (|b^| - e_b));
  exp(y^) -> r^, |y^ - y| <= a <= 2^-20:  1.001 (2u + a) r^ + eta  (exp(y) = exp(y^) e^t, |t| <= a);
    expm1(h): a = 0; a grid value exp(fl(n h)): a = u |fl(n h)|;
  range sum prefix[hi+1] - prefix[lo] (or suffix[lo] - suffix[hi+1]): the two running sums' bounds
    plus u |r^| + eta, the running sums' bounds propagated entry by entry by the + rule (so the
    cancellation is charged at the size of the sums, not of the difference); the clip max(r^, 0)
    adds nothing (the exact sum of non-negative terms is >= 0);
  clip min(max(up^, 0), mass^): max(e_up, e_mass), min and max being 1-Lipschitz in each argument;
  out[k] += t^: err[k] += e_t + u |out^[k]| + eta, out^[k] taken after the addition.
``multiply_points`` bounds each entry at once: out[k] is a running sum of c_k products of exact
inputs (c_k = pairs with pa[i] != 0), so (Higham (4.4); additions exact under underflow)
|out^ - out| <= gamma_{c_k} T + 2 c_k 2^-1075 with T = sum of the rounded products
<= out^ / (1 - gamma_{c_k}), gamma_n = n u / (1 - n u): err = 1.01 c_k u out^[k] + c_k eta.
``multiply_means``' mass likewise. Its moment in cell k sums c_k terms m^ = fl(fl(p q) exp(y^)),
y^ = fl(fl(lva + lvb) - fl((o0 + k) h)) within a <= u (2 |fl((o0 + k) h)| + 2.01 Y) + eta of y
(Y: the cell's largest |y^|), so |m^ - m| <= rho m + zeta, rho <= 1.001 a + 4.003 u (two products
and exp), zeta <= 2^-1074 (1.01 e^{Y+} + t_max + 1) (underflow; Y+: the cell's largest y^, t_max =
max pa max pb): err = 1.02 (c_k u + 4u + a) moment^[k] + 2 c_k eta (1.01 e^{Y+} + t_max + 1).
The bounds are evaluated in double by +, * and / of non-negative numbers, each formula ending in
+ eta, so each operation lowers them by a relative factor >= 1 - 2u (an underflow loses <= 2^-1075
= u eta); along chains of <= 2^30 operations (arrays shorter than 2^28) the final factor
SLACK = 1 + 2^-20 restores them. A bound that would need a or rho above 2^-20 is inf.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

U = 2.0**-53  # unit roundoff of IEEE double, round to nearest
TINY = 2.0**-1022  # charged after every operation (covers underflow, see the module docstring)
LIBM = 2.0  # relative error of libm's exp / expm1, in units of u (1 ulp)
SLACK = 1.0 + 2.0**-20  # restores the bounds from their own rounding (module docstring)
_SMALL = 2.0**-20  # largest relative error an exp argument or a divisor may carry


@njit(cache=True)
def _exp_err(value, arg_err):
    """Bound on |value - exp(y)| for value = libm exp(y^), |y^ - y| <= arg_err."""
    if arg_err > _SMALL:
        return math.inf
    # PROOF Lemma 14: exp of a perturbed argument (margin 1.001)
    return 1.001 * (LIBM * U + arg_err) * value + TINY


@njit(cache=True)
def _grid_err(values, k0, h):
    """Bounds for values[i] = exp(fl((k0 + i) h)) against exp((k0 + i) h)."""
    err = np.empty(values.size)
    for i in range(values.size):
        err[i] = _exp_err(values[i], U * abs((k0 + i) * h))
    return err


@njit(cache=True)
def _mul_err(a, ea, b, eb, r):
    """Bound on |r - a b| for r = fl(a^ b^) (module docstring)."""
    # PROOF Lemma 14: a product's running error
    return abs(a) * eb + abs(b) * ea + ea * eb + U * abs(r) + TINY


@njit(cache=True)
def _cumulative(x, x_err):
    """prefix[j] = sum x[:j], suffix[j] = sum x[j:] (both length n + 1), and their bounds."""
    n = x.size
    prefix = np.zeros(n + 1)
    suffix = np.zeros(n + 1)
    pre_err = np.zeros(n + 1)
    suf_err = np.zeros(n + 1)
    for j in range(n):
        prefix[j + 1] = prefix[j] + x[j]
        pre_err[j + 1] = pre_err[j] + x_err[j] + U * prefix[j + 1] + TINY
    for j in range(n - 1, -1, -1):
        suffix[j] = suffix[j + 1] + x[j]
        suf_err[j] = suf_err[j + 1] + x_err[j] + U * suffix[j] + TINY
    return prefix, suffix, pre_err, suf_err


@njit(cache=True)
def _range_sum(sums, lo, hi):
    """sum x[lo..hi] from whichever of prefix/suffix keeps the smaller magnitudes, and its bound
    (``sums`` = ``_cumulative``'s output; x >= 0, so the clip at 0 does not add error)."""
    prefix, suffix, pre_err, suf_err = sums
    if prefix[hi + 1] <= suffix[lo]:
        d = prefix[hi + 1] - prefix[lo]
        return max(d, 0.0), pre_err[hi + 1] + pre_err[lo] + U * abs(d) + TINY
    d = suffix[lo] - suffix[hi + 1]
    return max(d, 0.0), suf_err[lo] + suf_err[hi + 1] + U * abs(d) + TINY


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
def _spread_up(p, wgi, q, g, gk, weights, den):
    """up = p ((w gi - gk) q + v g) / (gk step) (the mass sent to g_{k+1}) and its bound, from
    (value, bound) pairs (wgi = w gi, weights = (v, e_v), den = ``_denominators``' entries)."""
    v, ev = weights
    a2 = wgi[0] - gk[0]
    e2 = wgi[1] + gk[1] + U * abs(a2) + TINY
    a3 = a2 * q[0]
    a4 = v * g[0]
    a5 = a3 + a4
    # the two products' bounds (_mul_err, terms regrouped), then the sum's
    e5 = ((abs(a2) + e2) * q[1] + q[0] * e2 + U * abs(a3) + (v + ev) * g[1] + g[0] * ev + U * a4
          + U * abs(a5) + 3.0 * TINY)
    a6 = p * a5
    e6 = p * e5 + U * abs(a6) + TINY
    up = a6 / den[0]
    return up, 1.001 * (e6 * den[1] + den[2] * abs(up)) + U * abs(up) + TINY


@njit(cache=True)
def _denominators(grid, grid_err, step):
    """gk step per cell, its inverse (bounds only; inf where rho > 2^-20 or den > 2^1000), rho."""
    den = grid * step
    inverse = np.empty(grid.size)
    rho = np.empty(grid.size)
    step_err = _exp_err(step, 0.0)
    for k in range(grid.size):
        inverse[k] = 1.0 / den[k]
        rho[k] = _mul_err(grid[k], grid_err[k], step, step_err, den[k]) * inverse[k]
        if rho[k] > _SMALL or den[k] > 2.0**1000:
            inverse[k] = math.inf
    return den, inverse, rho


@njit(cache=True)
def _points_half(a, b, weights, h, target, strict):
    """Pairs (i from a, j from b) with global j <= i (j < i if strict) of w g_i + (1-w) g_j,
    each spread onto the two ends of its cell with the mean kept; adds their rounding bounds to
    ``err`` (weights = (w, e_w): w may carry a rounding error).

    On the common grid the cell of the value and the j-range of each cell depend on i - j
    only, so both come from ``_offset_tables``; the spread itself uses the exact sums."""
    pa, a0 = a
    pb, b0 = b
    w, ew = weights
    out, err, o0, grid, grid_err = target
    nb = pb.size
    gb = np.exp((b0 + np.arange(nb)) * h)
    gpb = pb * gb
    sums_q = _cumulative(pb, np.zeros(nb))
    sums_g = _cumulative(gpb, pb * _grid_err(gb, b0, h) + U * gpb + TINY)
    v = 1.0 - w
    v_pair = (v, ew + U * v + TINY)
    den, inverse, rho = _denominators(grid, grid_err, math.expm1(h))
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
        wgi = w * gi
        wgi_pair = (wgi, _mul_err(w, ew, gi, _exp_err(gi, U * abs(gi_index * h)), wgi))
        while jhi >= 0:
            k = gi_index + cell_of[min(gi_index - b0 - jhi, d_last)]
            m = gi_index - k
            if m < first_j.size:
                jlo = min(max(gi_index + first_j[m] - b0, 0), jhi)
            else:
                jlo = 0
            q = _range_sum(sums_q, jlo, jhi)
            if q[0] > 0.0:
                g = _range_sum(sums_g, jlo, jhi)
                mass = p * q[0]
                mass_err = p * q[1] + U * mass + TINY
                c = k - o0
                up, up_err = _spread_up(p, wgi_pair, q, g, (grid[c], grid_err[c]), v_pair,
                                        (den[c], inverse[c], rho[c]))
                up = min(max(up, 0.0), mass)
                up_err = max(up_err, mass_err)
                low = mass - up
                out[c] += low
                err[c] += mass_err + up_err + U * abs(low) + TINY + U * abs(out[c]) + TINY
                out[c + 1] += up
                err[c + 1] += up_err + U * abs(out[c + 1]) + TINY
            elif q[1] > 0.0:  # skipped: its exact mass p q <= p e_q may sit at either end of the cell
                c = k - o0
                skipped = p * q[1] * (1.0 + 4.0 * U) + TINY
                err[c] += skipped
                err[c + 1] += skipped
            jhi = jlo - 1


@njit(cache=True)
def average_points(pa, a0, pb, b0, w, h):
    """Law of w X + (1 - w) Y (X ~ pa, Y ~ pb independent) spread onto the grid.

    Returns (out, o0, err), err the rounding bound of out (module docstring)."""
    ga0 = math.exp(a0 * h)
    gb0 = math.exp(b0 * h)
    o0 = math.floor(math.log(w * ga0 + (1.0 - w) * gb0) / h) - 1
    o1 = max(a0 + pa.size - 1, b0 + pb.size - 1) + 2
    out = np.zeros(o1 - o0 + 1)
    err = np.zeros(out.size)
    grid = np.exp((o0 + np.arange(out.size)) * h)
    target = (out, err, o0, grid, _grid_err(grid, o0, h))
    _points_half((pa, a0), (pb, b0), (w, 0.0), h, target, 0)
    w2 = 1.0 - w
    _points_half((pb, b0), (pa, a0), (w2, U * w2 + TINY), h, target, 1)
    return out, o0, err * SLACK


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
def _means_half(a, b, weights, h, target, strict):
    """As _points_half for the means representation: each pair's mass and first moment go to
    the cell of w v_i + (1-w) v_j (values va, vb, not logs; va_err, vb_err their bounds)."""
    ma, va, va_err, a0 = a
    mb, vb, vb_err, b0 = b
    w, ew = weights
    mass, moment, mass_err, moment_err, o0, o1, grid = target
    nb = mb.size
    gmb = mb * vb
    sums_q = _cumulative(mb, np.zeros(nb))
    sums_g = _cumulative(gmb, mb * vb_err + U * gmb + TINY)
    v = 1.0 - w
    ev = ew + U * v + TINY
    ve = v + ev
    for ia in range(ma.size):
        p = ma[ia]
        if p == 0.0:
            continue
        gi_index = a0 + ia
        jhi = min(nb - 1, gi_index - strict - b0)
        if jhi < 0:
            continue
        vi = va[ia]
        a1 = w * vi
        e1 = _mul_err(w, ew, vi, va_err[ia], a1)
        a1e = a1 + e1
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
            q, eq = _range_sum(sums_q, jlo, jhi)
            if q > 0.0:
                g, eg = _range_sum(sums_g, jlo, jhi)
                c = k - o0
                t0 = p * q
                mass[c] += t0
                mass_err[c] += p * eq + U * t0 + TINY + U * mass[c] + TINY
                a2 = a1 * q
                a3 = v * g
                a4 = a2 + a3
                t1 = p * a4
                moment[c] += t1
                # the two products' bounds (_mul_err, terms regrouped; all >= 0), the sum's
                e4 = a1e * eq + q * e1 + U * a2 + ve * eg + g * ev + U * a3 + U * a4 + 3.0 * TINY
                moment_err[c] += p * e4 + U * t1 + TINY + U * moment[c] + TINY
            jhi = jlo - 1


@njit(cache=True)
def average_means(ma, lva, a0, mb, lvb, b0, w, h):
    """Law of w X + (1 - w) Y, each cell replaced by its conditional mean.

    Returns (mass, log_value, o0, moment, mass_err, moment_err): moment[k] the first moment
    accumulated in cell o0 + k, the last two the rounding bounds (module docstring)."""
    va = np.exp(lva)
    vb = np.exp(lvb)
    o0 = math.floor(math.log(w * va[0] + (1.0 - w) * vb[0]) / h)
    o1 = max(a0 + ma.size - 1, b0 + mb.size - 1)
    mass = np.zeros(o1 - o0 + 1)
    moment = np.zeros(o1 - o0 + 1)
    mass_err = np.zeros(mass.size)
    moment_err = np.zeros(mass.size)
    grid = np.exp((o0 + np.arange(mass.size)) * h)
    target = (mass, moment, mass_err, moment_err, o0, o1, grid)
    va_err = 1.001 * LIBM * U * va + TINY  # exp of an exact argument (_exp_err)
    vb_err = 1.001 * LIBM * U * vb + TINY
    _means_half((ma, va, va_err, a0), (mb, vb, vb_err, b0), (w, 0.0), h, target, 0)
    w2 = 1.0 - w
    _means_half((mb, vb, vb_err, b0), (ma, va, va_err, a0), (w2, U * w2 + TINY), h, target, 1)
    return mass, _log_values(mass, moment, o0, h), o0, moment, mass_err * SLACK, moment_err * SLACK


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
    """Law of X Y on the grid: an exact index sum. Returns (out, o0, err), err the rounding
    bound of out (module docstring: entry k is a running sum of c_k products)."""
    out = np.zeros(pa.size + pb.size - 1)
    for i in range(pa.size):
        p = pa[i]
        if p == 0.0:
            continue
        for j in range(pb.size):
            out[i + j] += p * pb[j]
    nonzero = np.zeros(pa.size + 1, dtype=np.int64)  # nonzero[i] = #{i' < i: pa[i'] != 0}
    for i in range(pa.size):
        nonzero[i + 1] = nonzero[i] + (pa[i] != 0.0)
    err = np.empty(out.size)
    for k in range(out.size):
        count = nonzero[min(k, pa.size - 1) + 1] - nonzero[max(0, k - pb.size + 1)]
        # PROOF Lemma 14: a running sum of products (margin 1.01)
        err[k] = 1.01 * count * U * out[k] + count * TINY
    return out, a0 + b0, err * SLACK


@njit(cache=True)
def multiply_means(ma, lva, a0, mb, lvb, b0, h):
    """Law of X Y, each cell replaced by its conditional mean.

    Returns (mass, log_value, o0, moment, mass_err, moment_err): moment[k] = sum of p q
    exp(x - (o0 + k) h) over the pairs in cell o0 + k (relative to the cell's lower end, so
    that no value overflows), the last two the rounding bounds (module docstring: from the
    count of pairs and the largest exp argument per cell)."""
    o0 = a0 + b0
    n = ma.size + mb.size
    mass = np.zeros(n)
    moment = np.zeros(n)
    count = np.zeros(n, dtype=np.int64)  # pairs added to the cell
    y_max = np.zeros(n)  # their largest |y|, y = x - (o0 + k) h the exp argument
    y_top = np.zeros(n)  # max(0, their largest y)
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
            t = p * q
            mass[k] += t
            y = x - (o0 + k) * h
            moment[k] += t * math.exp(y)
            count[k] += 1
            y_max[k] = max(y_max[k], abs(y))
            y_top[k] = max(y_top[k], y)
    mass_err = np.empty(n)
    moment_err = np.empty(n)
    t_max = np.max(ma) * np.max(mb)
    for k in range(n):
        c = count[k]
        # PROOF Lemma 14: a running sum of products (margin 1.01)
        mass_err[k] = 1.01 * c * U * mass[k] + c * TINY
        arg_err = U * (2.0 * abs((o0 + k) * h) + 2.01 * y_max[k]) + TINY
        if arg_err > _SMALL:
            moment_err[k] = math.inf
        else:
            moment_err[k] = (1.02 * (c * U + 4.0 * U + arg_err) * moment[k]
                             + 2.0 * c * TINY * (1.01 * math.exp(y_top[k]) + t_max + 1.0))
    lv = np.empty(n)
    for k in range(n):
        low = (o0 + k) * h
        x = low + math.log(moment[k] / mass[k]) if mass[k] > 0.0 else low
        if k > 0:
            x = max(x, low)
        if k < n - 1:
            x = min(x, low + h * (1.0 - 1e-12))
        lv[k] = x
    return mass, lv, o0, moment, mass_err * SLACK, moment_err * SLACK
