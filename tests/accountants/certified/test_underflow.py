"""Subnormal underflow inside the hockey-stick evaluations (docs/PROOF.md M4, R3; Lemma 13).

Masses near 2^-1074 make every exp and product of ``hockey.upper_delta`` / ``lower_delta`` round to a
subnormal, where round to nearest loses up to half of 2^-1074 absolutely, not a fraction of the
value. The exact sums are enclosed by mpmath interval arithmetic (300 bits) and compared as exact
rationals with the doubles returned: upper >= the enclosure's top, lower <= its bottom. The same
evaluation without the underflow charge (the code before it, mirrored here in Python: the same libm
exp and log) falls short on constructed inputs, so the test can tell a charged bound from one that
is not."""

from __future__ import annotations

import contextlib
import math
from fractions import Fraction

import mpmath
import numpy as np

from dpsampling.accountants.certified import hockey

U = 2.0**-53
TINY = 2.0**-1074
IV = mpmath.iv


@contextlib.contextmanager
def _workprec(bits: int):
    """mpmath's working precision AND its interval context's (``mpmath.workprec`` sets the former
    only: intervals computed under it alone are at 53 bits, rigorous but loose)."""
    old = IV.prec
    with mpmath.workprec(bits):
        IV.prec = bits
        try:
            yield
        finally:
            IV.prec = old


def _fraction(x) -> Fraction:
    man, exp = mpmath.mpf(x).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _points_exact(p, k0, h, eps, remove):
    """Enclosure [lo, hi] (Fractions) of sum_k p_k (g_k - e^eps)_+ or p_k (1 - e^eps g_k)_+, g_k = e^(k h)."""
    with _workprec(300):
        c = IV.exp(IV.mpf(eps))
        total = IV.mpf(0)
        for i, m in enumerate(p):
            g = IV.exp(IV.mpf(h) * (k0 + i))
            w = g - c if remove else 1 - c * g
            w = IV.mpf([max(w.a, 0), max(w.b, 0)])
            total += IV.mpf(float(m)) * w
        return _fraction(total.a), _fraction(total.b)


def _means_exact(mass, lv, eps, remove):
    """Enclosure of sum (M - c m)_+ or (m - c M)_+, M = m e^lv, c = e^eps."""
    with _workprec(300):
        c = IV.exp(IV.mpf(eps))
        total = IV.mpf(0)
        for m, v in zip(mass, lv):
            ev = IV.exp(IV.mpf(float(v)))
            w = ev - c if remove else 1 - c * ev
            w = IV.mpf([max(w.a, 0), max(w.b, 0)])
            total += IV.mpf(float(m)) * w
        return _fraction(total.a), _fraction(total.b)


def _gamma(n):
    return n * U / (1.0 - n * U)


def _upper_uncharged(p, k0, h, epsilon, remove, rel_error):
    """hockey.upper_delta as it was before the underflow charge (F6's count + 5, no TINY term)."""
    total, count = 0.0, 0
    for i, m in enumerate(p):
        if m <= 0.0:
            continue
        x = (k0 + i) * h
        lm = math.log(m)
        side = 4.0 * U * (abs(x) + abs(epsilon) + 1.0)
        slack = 4.0 * U * (abs(lm) + abs(x) + abs(epsilon) + 2.0)
        if remove:
            if x <= epsilon - side:
                continue
            big, small = math.exp(lm + x), math.exp(lm + epsilon)
            total += max(big - small, 0.0) + slack * (big + small)
        else:
            if x + epsilon >= side:
                continue
            small = math.exp(lm + epsilon + x)
            total += max(m - small, 0.0) + slack * (m + small)
        count += 1
    return total * (1.0 + _gamma(count + 5)) / (1.0 - rel_error)


def _lower_uncharged(mass, log_value, epsilon, remove, rel_error):
    """hockey.lower_delta as it was before the underflow charge."""
    total, count = 0.0, 0
    up, down = 1.0 / (1.0 + rel_error), 1.0 / (1.0 - rel_error)
    for m, lv in zip(mass, log_value):
        if m <= 0.0:
            continue
        lm = math.log(m)
        slack = 4.0 * U * (abs(lm) + abs(lv) + abs(epsilon) + 2.0)
        if remove:
            if lv <= epsilon:
                continue
            first, scaled = math.exp(lm + lv), math.exp(lm + epsilon)
            term = first * up - scaled * down - slack * (first + scaled)
        else:
            if lv + epsilon >= 0.0:
                continue
            scaled = math.exp(lm + epsilon + lv)
            term = m * up - scaled * down - slack * (m + scaled)
        if term > 0.0:
            total += term
            count += 1
    return total * (1.0 - _gamma(count + 1))


def _log_for(target: float, mass: float) -> float:
    """A double x with mass e^x close to target (both subnormal-scale)."""
    return math.log(target / (mass / TINY))


def test_constructed_subnormal_terms_defeat_the_uncharged_bounds():
    """One atom of mass 3 * 2^-1074 (remove) or 200 * 2^-1074 (add), its exp landing 0.45 of 2^-1074
    below (upper) or above (lower) a representable subnormal: the uncharged evaluation is on the wrong
    side of the exact sum; the charged one is not."""
    m = 3.0 * TINY
    # upper, remove: m e^h = (100 + 0.45) 2^-1074 rounds down to 100 2^-1074, the exact excess keeps 0.45
    h = _log_for(100.45, m)
    p = np.array([m])
    lo, hi = _points_exact(p, 1, h, 0.0, True)
    assert Fraction(_upper_uncharged(p, 1, h, 0.0, True, 0.0)) < lo
    assert Fraction(hockey.upper_delta(p, 1, h, 0.0, True, 0.0)) >= hi
    # upper, add: m e^x = (150 + 0.55) 2^-1074 rounds up, so m - it is low
    m_add = 200.0 * TINY
    x = _log_for(150.55, m_add)
    p_add = np.array([m_add])
    lo, hi = _points_exact(p_add, -1, -x, 0.0, False)
    assert Fraction(_upper_uncharged(p_add, -1, -x, 0.0, False, 0.0)) < lo
    assert Fraction(hockey.upper_delta(p_add, -1, -x, 0.0, False, 0.0)) >= hi
    # lower, remove: m e^lv = (100 + 0.55) 2^-1074 rounds up, the term is high
    lv = np.array([_log_for(100.55, m)])
    lo, hi = _means_exact(p, lv, 0.0, True)
    assert Fraction(_lower_uncharged(p, lv, 0.0, True, 0.0)) > hi
    assert Fraction(hockey.lower_delta(p, lv, 0.0, True, 0.0)) <= lo


def test_subnormal_sums_are_bounded_both_ways():
    """Random laws of 1-30 atoms with masses from 2^-1074 to 1e-300 (mostly ~1e-310 and below),
    grid steps with long mantissas, thresholds 0 to 2, both directions, rel_error 0 or small: upper
    >= exact, lower <= exact (exact rational comparison with an interval enclosure)."""
    rng = np.random.default_rng(43)
    uncharged_short = 0
    for _ in range(600):
        n = int(rng.integers(1, 31))
        scale = float(rng.choice([TINY, 1e-320, 1e-315, 1e-310, 1e-305, 1e-300]))
        p = np.floor(rng.random(n) * 200.0) * TINY if scale == TINY else rng.random(n) * scale
        h = float(rng.random() * 0.7 + 0.01) * (1.0 + float(rng.random()) * 2.0**-20)
        k0 = int(rng.integers(-20, 5))
        eps = float(rng.choice([0.0, rng.random() * 2.0]))
        remove = bool(rng.random() < 0.5)
        rel = float(rng.choice([0.0, 0.0, rng.random() * 1e-6]))
        lo, hi = _points_exact(p, k0, h, eps, remove)
        upper = hockey.upper_delta(p, k0, h, eps, remove, rel)
        assert Fraction(upper) >= hi / (1 - Fraction(rel))  # the exact law may be p / (1 - rel)
        if Fraction(_upper_uncharged(p, k0, h, eps, remove, 0.0)) < lo:
            uncharged_short += 1
        lv = (k0 + np.arange(n)) * h + rng.random(n) * h
        lo, hi = _means_exact(p, lv, eps, remove)
        lower = hockey.lower_delta(p, lv, eps, remove, rel)
        # the computed law itself is one the lower law's rel admits: lower <= its exact sum
        assert Fraction(lower) <= lo
        if Fraction(_lower_uncharged(p, lv, eps, remove, 0.0)) > hi:
            uncharged_short += 1
    assert uncharged_short > 0  # measured: 196 of the 1200 uncharged evaluations on the wrong side


def _exp_enclosure(log_terms, weights):
    """Enclosure of sum w e^x over (w, x) pairs given as exact doubles (x an mpmath interval expression)."""
    with _workprec(300):
        total = IV.mpf(0)
        for w, x in zip(weights, log_terms):
            total += IV.mpf(float(w)) * IV.exp(x)
        return _fraction(total.a), _fraction(total.b)


def test_the_laws_sums_charge_subnormal_terms():
    """PointsLaw.mean, exact_mass_bound, laws._tail_cost and laws._cut_charges (Lemmas 7, 13) on one
    subnormal term built to round down by 0.45 of 2^-1074: each bound is >= the exact value, and the
    same evaluation without the underflow charge (the former lines, spelled here) is below it."""
    from dpsampling.accountants.certified import laws, rounding

    m = 3.0 * TINY
    h = _log_for(100.45, m)  # m e^h = 100.45 2^-1074
    with _workprec(300):
        lo, hi = _exp_enclosure([IV.mpf(h)], [m])
    # the mean of mass m at e^h (k0 = 1)
    law = laws.PointsLaw(1, np.array([m]), 0.0, 0.0, 0.0)
    fresh = rounding.tilt_rounding(746.0 + h * 2) + rounding.gamma(2)
    former = float(laws._points_mean(law.p, 1, h)) * (1.0 + rounding.grow(0.0, fresh)) / 1.0
    assert Fraction(former) < lo
    assert Fraction(law.mean(h)) >= hi
    # the mass bound of 3 2^-1074 with rel = 1 - 3 / 3.4: exact 3.4 2^-1074 (up to rel's rounding)
    rel = 1.0 - 3.0 / 3.4
    heavy = laws.PointsLaw(0, np.array([m]), 0.0, 0.0, rel)
    exact_mass = Fraction(m) / (1 - Fraction(rel))
    former = float(np.sum(heavy.p)) * (1.0 + rounding.gamma(2)) / (1.0 - rel)
    assert Fraction(former) < exact_mass
    assert Fraction(heavy.exact_mass_bound()) >= exact_mass
    # the fold's cost sum_{k > hi} p_k (g_k - g_hi) at hi = 0, k0 = 0: m expm1(h') with expm1(h') = 100.45 / 3
    h_fold = math.log1p(100.45 / 3.0)
    p = np.array([0.5, m])
    with _workprec(300):
        fold = IV.mpf(m) * (IV.exp(IV.mpf(h_fold)) - 1)
        fold_lo, fold_hi = _fraction(fold.a), _fraction(fold.b)
    tail_terms = np.exp(np.log(p[1:]) + 0.0 + np.log(np.expm1(np.array([h_fold]))))
    former = float(np.sum(tail_terms)) * (1.0 + rounding.tilt_rounding(746.0 + 2 * h_fold) + rounding.gamma(2))
    assert Fraction(former) < fold_lo
    assert Fraction(laws._tail_cost(p, 0, 0, h_fold)) >= fold_hi
    # a cut's first moment: m at e^h (k0 = 1)
    moment, mass = laws._cut_charges(np.array([m]), 1, h)
    former = float(np.exp(np.log(m) + h)) * (1.0 + rounding.tilt_rounding(746.0 + 2 * h) + rounding.gamma(2))
    assert Fraction(former) < lo
    assert Fraction(moment) >= hi and Fraction(mass) >= Fraction(m)


def _normal_interval(a, b):
    """P(a <= Z < b) at the working precision, from the tail nearer the interval (no cancellation)."""
    return mpmath.ncdf(-a) - mpmath.ncdf(-b) if a > 0 else mpmath.ncdf(b) - mpmath.ncdf(a)


def _upper_tail_cells(sigma, q, h, z_lo, z_hi):
    """Cells k of one step's law of L (``steps``) whose log-y ends lie at z in [z_lo, z_hi]
    (the upper tail, where ndtr's values are subnormal or 0)."""
    mu, s = -0.5 / sigma**2, 1.0 / sigma
    k_lo = math.floor(math.log1p(q * math.expm1(mu + z_lo * s)) / h)
    k_hi = math.ceil(math.log1p(q * math.expm1(mu + z_hi * s)) / h)
    return np.arange(k_lo, k_hi, dtype=float), mu, s


def test_step_cells_with_subnormal_masses_are_bounded():
    """Lemmas 10, 11 (M4 R3): cells of one step's law whose masses are subnormal or flushed to 0 by
    ndtr (z from 37 to 39, where Phi(-38) = 2.9e-316 but ndtr(-38) = 0): the computed masses and
    upper shares, within ``rounding.cell_errors``' bounds of the exact ones (mpmath at 300 bits,
    the cell ends in exact arithmetic), and the masses at the computed ends within
    ``partition_mass_errors``'. Without the subnormal charges the bounds fall short (a cell's
    error exceeds 16 2^-1074, the cell's operations' charge alone)."""
    from dpsampling.accountants.certified import rounding, steps

    sigma, q, h = 1.0, 0.3, 0.02
    ks, mu, s = _upper_tail_cells(sigma, q, h, 36.5, 39.0)
    mass, excess = steps._cell_moments(q, sigma, ks, h)
    mass_err, up_err = rounding.cell_errors(q, sigma, ks, h, mass, excess, lowest=False)
    part_err = rounding.partition_mass_errors(q, sigma, ks, h, mass)
    g = np.exp(ks * h)
    up = np.clip(np.where(mass > 0, excess / (g * math.expm1(h)), 0.0), 0.0, mass)
    t_lo_hat = np.log(np.expm1(ks * h) + q) - math.log(q)
    t_hi_hat = np.log(np.expm1((ks + 1) * h) + q) - math.log(q)
    assert np.any(mass < 2.0**-1022) and np.any(mass > 2.0**-1022), "the cells span the subnormal range"
    worst_gap = 0.0
    with _workprec(300):
        mq, mh, mmu, ms = mpmath.mpf(q), mpmath.mpf(h), mpmath.mpf(mu), 1 / mpmath.mpf(sigma)
        for i, k in enumerate(ks):
            y_lo = mpmath.expm1(mpmath.mpf(k) * mh) + mq
            y_hi = mpmath.expm1(mpmath.mpf(k + 1) * mh) + mq
            a, b = (mpmath.log(y_lo / mq) - mmu) / ms, (mpmath.log(y_hi / mq) - mmu) / ms
            exact = _normal_interval(a, b)
            first = _normal_interval(a - ms, b - ms)  # E[Y; cell] (E Y = 1)
            exact_up = (mq * first - y_lo * exact) / (mpmath.exp(mpmath.mpf(k) * mh) * mpmath.expm1(mh))
            gap = abs(_fraction(mass[i]) - _fraction(exact))
            worst_gap = max(worst_gap, float(gap))
            assert gap <= _fraction(mass_err[i]), f"cell {k}: mass error {float(gap):.3g} > {mass_err[i]:.3g}"
            assert abs(_fraction(up[i]) - _fraction(exact_up)) <= _fraction(up_err[i]), f"cell {k}: share"
            # the lower law: the cell at its computed ends
            a_hat = (mpmath.mpf(t_lo_hat[i]) - mmu) / ms
            b_hat = (mpmath.mpf(t_hi_hat[i]) - mmu) / ms
            at_ends = _normal_interval(a_hat, b_hat)
            assert abs(_fraction(mass[i]) - _fraction(at_ends)) <= _fraction(part_err[i]), f"cell {k}: lower"
    assert worst_gap > 16 * TINY, "the constructed cells need the ndtr charge"


def test_tilted_convolution_of_subnormal_tails_is_bounded():
    """Lemmas 2, 3 (M4 R3): a convolution whose tilted arrays and untilted entries underflow (a
    spike beside a tail down to 1e-320): every computed entry within its bound of the exact
    convolution of the inputs (rational arithmetic)."""
    from dpsampling.accountants.certified import convolution

    h = 0.05
    a = np.exp(-np.linspace(0.0, 736.0, 160)) * (1.0 + 0.3 * np.sin(np.arange(160)))
    a[40] = 0.7
    b = np.exp(-np.linspace(0.0, 690.0, 120))[::-1].copy()
    assert np.any((a > 0) & (a < 2.0**-1022)), "subnormal inputs"
    out, bound, _ = convolution.tilted_convolve(a, b, h)
    fa, fb = [_fraction(x) for x in a], [_fraction(x) for x in b]
    exact = [Fraction(0)] * out.size
    for i, x in enumerate(fa):
        for j, y in enumerate(fb):
            exact[i + j] += x * y
    assert np.any((out > 0) & (out < 2.0**-1022)), "subnormal entries"
    for n in range(out.size):
        assert abs(_fraction(out[n]) - exact[n]) <= _fraction(bound[n]), f"entry {n}"


def _spread_exact(p, k0, h, step):
    """Enclosures [lo, hi] (Fractions), one per coarse index J, of the exact spread of the masses p
    at x = (k0 + i) h onto the grid of ``step``: the exact offset o = x - J step, J = floor(x / step),
    mass p expm1(o) / expm1(H) at J + 1 and p e^o expm1(H - o) / expm1(H) at J (H = step)."""
    fh, fstep = Fraction(h), Fraction(step)
    sums: dict[int, object] = {}
    with _workprec(300):
        scale = IV.exp(IV.mpf(step)) - 1
        for i, m in enumerate(p):
            if m == 0.0:
                continue
            x = (k0 + i) * fh
            coarse = math.floor(x / fstep)
            o = x - coarse * fstep
            o_iv = IV.mpf(o.numerator) / IV.mpf(o.denominator)  # dyadic: exact at 300 bits
            up = IV.mpf(float(m)) * (IV.exp(o_iv) - 1) / scale
            down = IV.mpf(float(m)) * IV.exp(o_iv) * (IV.exp(IV.mpf(step) - o_iv) - 1) / scale
            sums[coarse] = sums.get(coarse, IV.mpf(0)) + down
            sums[coarse + 1] = sums.get(coarse + 1, IV.mpf(0)) + up
        return {j: (_fraction(s.a), _fraction(s.b)) for j, s in sums.items()}


def _random_spread_case(rng):
    """Masses from 2^-1074 to 1 (mostly subnormal), a fine step h and a coarse step 2^j h or a
    non-multiple of h (two phases' grids)."""
    n = int(rng.integers(1, 13))
    kind = rng.random(n)
    p = np.where(kind < 0.6, np.floor(rng.random(n) * 2.0**30) * TINY,
                 np.where(kind < 0.8, rng.random(n) * 2.0**-1000, rng.random(n)))
    p[rng.random(n) < 0.1] = 0.0
    h = float(rng.random() * 0.3 + 0.001) * (1.0 + float(rng.random()) * 2.0**-20)
    if rng.random() < 0.75:
        step = h * 2.0 ** int(rng.integers(1, 5))
    else:
        step = h * float(rng.choice([1.37, 2.5, 3.7, 6.3])) * (1.0 + float(rng.random()) * 1e-3)
    return p, int(rng.integers(-60, 60)), h, step


def test_the_spread_charges_its_subnormal_products():
    """Lemma 8c (M4 R3): ``laws.spread_points`` (``coarsen_points`` before its fold) on random laws
    with subnormal masses: every coarse entry times (1 + rel) is >= the exact spread of the masses
    (the law's invariant, one-sided: PROOF.md Lemma 8c), in exact rational arithmetic against a
    300-bit interval enclosure. The same spread without the underflow charge (the former line:
    the bincounts of the products alone) is on the wrong side for some coarse entries."""
    from dpsampling.accountants.certified import laws

    rng = np.random.default_rng(4308)
    former_short = multiples = 0
    for _ in range(400):
        p, k0, h, step = _random_spread_case(rng)
        if not np.any(p > 0):
            continue
        law = laws.spread_points(laws.PointsLaw(k0, p, 0.0, 0.0, 0.0), h, step)
        grow = 1 + Fraction(law.rel_error)
        exact = _spread_exact(p, k0, h, step)
        for j, (_, hi) in exact.items():
            assert Fraction(law.p[j - law.k0]) * grow >= hi, f"coarse {j}: h {h!r} step {step!r} p {p!r}"
        coarse, offset, integer = laws._rebin_target(k0 + np.arange(p.size), h, step)
        if not integer:
            continue
        multiples += 1
        factor = round(step / h)
        up_frac, down_frac = laws._spread_fractions(offset * h, (factor - offset) * h, math.expm1(step))
        k = int(coarse[0]) - 1
        n = int(coarse[-1]) - k + 3
        former = np.bincount(coarse - k, weights=p * down_frac, minlength=n) + \
            np.bincount(coarse - k + 1, weights=p * up_frac, minlength=n)
        assert k == law.k0 and np.all(former <= law.p)
        if any(Fraction(former[j - k]) * grow < lo for j, (lo, _) in exact.items()):
            former_short += 1
    assert multiples > 200  # measured: 298 of the 397 cases with mass have step = 2^j h
    assert former_short > 0  # measured: 95 of those 298 former spreads short at some coarse entry
