"""The engine's floating-point bounds (``certified.rounding``) against exact arithmetic.

Each test computes the same quantity exactly (fractions of the doubles' exact values, or mpmath at
40+ digits, whose own error is far below 2^-53) and checks observed error <= proven bound, and that
the bound is not vacuous (within a stated factor of the observed error). Every case is seeded."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import fft as sfft

from dpsampling.accountants.certified import convolution, hockey, laws, rounding
from dpsampling.accountants.certified.laws import PointsLaw, multiply_points
from dpsampling.accountants.certified.steps import _cell_moments

mpmath.mp.dps = 60


def _exact_convolution(a: np.ndarray, b: np.ndarray) -> list[Fraction]:
    fa, fb = [Fraction(float(x)) for x in a], [Fraction(float(x)) for x in b]
    out = [Fraction(0)] * (a.size + b.size - 1)
    for i, x in enumerate(fa):
        if x:
            for j, y in enumerate(fb):
                out[i + j] += x * y
    return out


def _exact_dft(x: np.ndarray) -> list:
    n = x.size
    return [mpmath.fsum(mpmath.mpf(float(x[j])) * mpmath.expjpi(-2 * mpmath.mpf(j * k) / n) for j in range(n))
            for k in range(n)]


@pytest.mark.parametrize("size", [8, 32, 128])
def test_assumption_a_the_real_fft_within_eta(size):
    """Assumption A: scipy's rfft of length N = 2^m has normwise relative error <= eta(N) =
    8 u log2 N over the full spectrum (the Hermitian half counted twice, the ends once); observed
    errors are far below (ratio < 0.5 on these seeded random and one-sided inputs)."""
    rng = np.random.default_rng(size)
    for x in (rng.random(size), np.exp(-rng.random(size) * 30), np.r_[1.0, np.zeros(size - 1)] + 1e-9):
        computed = sfft.rfft(x)
        exact = _exact_dft(x)
        weights = np.full(computed.size, 2.0)
        weights[0] = 1.0
        if size % 2 == 0:
            weights[-1] = 1.0
        error = math.sqrt(sum(w * float(abs(mpmath.mpc(c) - e)) ** 2 for w, c, e in zip(weights, computed, exact)))
        norm = math.sqrt(sum(float(abs(e)) ** 2 for e in exact))
        assert error <= 0.5 * rounding.fft_eta(size) * norm


@pytest.mark.parametrize("seed", range(3))
def test_norms_bound_the_exact_norms_over_the_whole_range_of_the_doubles(seed):
    """``rounding.norms`` against exact rationals, on arrays whose entries span 1 down to
    subnormals (a tilted array: largest entry 1, squares that underflow): both bounds at least the
    exact |x|_1 and |x|_2, and within twice their stated inflation of them (not vacuous)."""
    rng = np.random.default_rng(seed)
    x = np.exp(-rng.uniform(0.0, 745.0, 5000))
    x[rng.integers(0, x.size, 50)] = 2.0**-1074 * rng.integers(1, 9, 50)  # subnormals
    x[0] = 1.0
    one, two = rounding.norms(x)
    exact_one = sum(Fraction(float(v)) for v in x)
    exact_squares = sum(Fraction(float(v)) ** 2 for v in x)
    assert Fraction(one) >= exact_one and Fraction(two) ** 2 >= exact_squares
    slack = 2.0 * rounding.gamma(x.size + 2)  # the stated inflation, and as much for the sums' own rounding
    assert one <= float(exact_one) * (1 + slack) and two <= math.sqrt(float(exact_squares)) * (1 + slack)


@pytest.mark.parametrize("seed", range(4))
def test_lemma_2_bounds_every_entry_of_an_fft_convolution(seed):
    """Lemma 1: |c^ - c|_inf <= convolution_bound for non-negative arrays over 1e-40..1; the bound
    is at most 1e5 times the observed error (it is a normwise bound used entrywise)."""
    rng = np.random.default_rng(seed)
    n, m = 40 + 17 * seed, 25 + 9 * seed
    a = np.exp(-rng.random(n) * (20 + 20 * seed))
    b = rng.random(m) ** 3
    size = rounding.fft_size(n + m - 1)
    computed = convolution._convolve(a, b, size)
    exact = _exact_convolution(a, b)
    observed = max(abs(Fraction(float(c)) - e) for c, e in zip(computed, exact))
    bound = rounding.convolution_bound(a, b, size)
    assert float(observed) <= bound
    assert bound <= 1e5 * max(float(observed), 1e-300)


@pytest.mark.parametrize("seed", range(3))
def test_tilted_convolution_bounds_each_entry_relative_in_the_tails(seed):
    """Each entry of the tilted convolution is within its own bound of the exact one, entries
    spanning 1e-120..1 (a Gaussian-like law in logs), and the bound is relative where the mass is
    tiny: every entry above 1e-100 is known to 1e-9 of itself (the old rule, 1e-16 of the largest
    entry, would leave the tail unresolved)."""
    rng = np.random.default_rng(10 + seed)
    h = 0.05
    x = np.arange(120) * h
    a = np.exp(-((x - 3.0) ** 2) * (25 + 5 * seed)) * (1 + 0.01 * rng.random(x.size))
    out, bound, _ = convolution.tilted_convolve(a, None, h)
    exact = _exact_convolution(a, a)
    for c, e, b in zip(out, exact, bound):
        assert abs(Fraction(float(c)) - e) <= Fraction(float(b))
    big = out > 1e-100
    assert np.all(bound[big] <= 1e-9 * out[big])


@pytest.mark.parametrize("seed", range(2))
def test_head_split_convolution_bounds_each_entry_beside_a_spike(seed):
    """``convolution.head_split_convolve`` on a spike of a few large entries beside a long power-law
    tail (a small rate's step law): every entry within its own bound of the exact convolution
    (a * a and a * b), and the tail entries known to 1e-10 of themselves, where the tilted FFTs
    alone leave some of them at more than 1e-8 (the case it is for)."""
    rng = np.random.default_rng(20 + seed)
    h = 0.01
    n = np.arange(400)
    a = np.where(n < 5, 0.5 ** (5 - n), 1e-3 / (1.0 + n) ** 2.5) * (1 + 0.01 * rng.random(n.size))
    b = a * (1 + 0.01 * rng.random(n.size))
    for other in (None, b):
        out, bound = convolution.head_split_convolve(a, other, h)
        exact = _exact_convolution(a, a if other is None else other)
        for c, e, d in zip(out, exact, bound):
            assert abs(Fraction(float(c)) - e) <= Fraction(float(d))
        assert np.all(bound <= 1e-10 * out)
    tilted, tilted_bound, _ = convolution.tilted_convolve(a, None, h)
    assert np.max(tilted_bound / tilted) > 1e-8


def _longdouble_convolution(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a * b by direct summation in the platform's long double (x87 extended, u = 2^-64 on
    x86-64), and the bound gamma_ld(m) c on its own error (m products per entry, Higham Lemma 3.1)."""
    u = float(np.finfo(np.longdouble).eps) / 2.0
    exact = np.convolve(a.astype(np.longdouble), b.astype(np.longdouble))
    m = min(a.size, b.size) + 1
    return exact, exact * (m * u / (1.0 - m * u))


@pytest.mark.skipif(np.finfo(np.longdouble).eps > 2.0**-60, reason="long double is plain double here")
@pytest.mark.parametrize("kind", ["tilted", "head split"])
def test_mid_size_convolutions_within_their_bounds_of_a_long_double_reference(kind):
    """Mid-size arrays (4,096 entries; exact fractions would take hours): the tilted convolution of
    a law-like array spanning 1e-200..1 and the head-split one of a spike beside a power-law tail,
    each entry within its bound of a long-double direct sum (whose own error, 2^-64 per term, is
    added to the bound), and the bounds not vacuous: every entry above 1e-100 known to 1e-9 of
    itself (tilted), or to 1e-7 where the tilted FFTs alone leave some at 1e-3 (head split: the
    far tail's rest * rest entries, which the engine sums directly or drops)."""
    rng = np.random.default_rng(31)
    h = 0.01
    n = np.arange(4096)
    if kind == "tilted":
        a = np.exp(-((n - 1500) * h) ** 2 * 0.35) * (1 + 0.01 * rng.random(n.size))
        out, bound, _ = convolution.tilted_convolve(a, None, h)
    else:
        a = np.where(n < 6, 0.4 ** np.clip(6 - n, 0, None), 1e-3 / (1.0 + n) ** 2.2) * (1 + 0.01 * rng.random(n.size))
        out, bound = convolution.head_split_convolve(a, None, h)
        tilted, tilted_bound, _ = convolution.tilted_convolve(a, None, h)
        assert np.max(tilted_bound / tilted) > 1e-3
    reference, reference_error = _longdouble_convolution(a, a)
    observed = np.abs(out.astype(np.longdouble) - reference)
    assert np.all(observed <= bound.astype(np.longdouble) + reference_error)
    big = out > 1e-100
    assert np.all(bound[big] <= (1e-9 if kind == "tilted" else 1e-7) * out[big])


def test_the_raised_product_is_an_upper_law_and_its_cuts_are_charged():
    """``multiply_points``: every kept entry but the two ends (which also take the folded tails) is
    at least the exact convolution of the inputs and at most (1 + 1e-9) of it; the exact mass
    below the kept range is at most the charged add_excess, and the exact first moment lost by
    moving the mass above it down to the last kept point at most the charged remove_excess."""
    rng = np.random.default_rng(3)
    h = 0.02
    p = np.exp(-((np.arange(200) - 60) * h) ** 2 * 40) * (1 + 0.1 * rng.random(200))
    law = PointsLaw(-60, p / p.sum(), 0.0, 0.0)
    product = multiply_points(law, None, h)
    exact = _exact_convolution(law.p, law.p)
    offset = product.k0 - 2 * law.k0
    for c, e in zip(product.p[1:-1], exact[offset + 1:offset + product.p.size - 1]):
        assert Fraction(float(c)) >= e
        assert float(c) <= float(e) * (1 + 1e-9)
    assert float(sum(exact[:offset])) <= product.add_excess
    top = product.k0 + product.p.size - 1
    lost = sum(float(e) * (math.exp((2 * law.k0 + i) * h) - math.exp(top * h))
               for i, e in enumerate(exact) if 2 * law.k0 + i > top)
    assert lost <= product.remove_excess


def test_entries_past_the_doubles_keep_their_first_moment_charged():
    """``multiply_points`` where the product's top lies past log g ~ 745: those entries' masses
    (about e^-800) underflow while their first moments do not; E[L] + remove_excess of the
    product is at least the exact E[X]^2 (mpmath, from the doubles given) and within 1% of it,
    and the mass + add_excess at least the exact mass."""
    h = 0.05
    x = np.arange(-100, 8101) * h
    p = 0.04 * np.exp(-(x**2) * 2.0) + 0.3 * np.exp(-x - ((x - 400.0) / 0.5) ** 2)  # a bulk at 0, a first moment at 400
    law = PointsLaw(-100, p, 0.0, 0.0)
    product = multiply_points(law, None, h)
    g = [mpmath.exp(mpmath.mpf(int(k)) * mpmath.mpf(h)) for k in range(-100, 8101)]
    mean = mpmath.fsum(mpmath.mpf(float(m)) * gk for m, gk in zip(p, g))
    mass = mpmath.fsum(mpmath.mpf(float(m)) for m in p)
    top_moment = mpmath.fsum(mpmath.mpf(float(m)) * gk for m, gk in zip(p, g) if gk > mpmath.exp(300))
    assert top_moment**2 > mean**2 / 4  # the test's point: most of E[X]^2 sits past the doubles
    charged = mpmath.mpf(product.mean(h)) + mpmath.mpf(product.remove_excess)
    assert mean**2 <= charged <= mean**2 * mpmath.mpf(1.01)
    assert mass**2 <= mpmath.mpf(product.exact_mass_bound()) + mpmath.mpf(product.add_excess)


def _interval(t_lo, t_hi, mu, s):
    """P(t_lo <= N(mu, s^2) < t_hi) in mpmath from the tail nearer the interval (no cancellation)."""
    a, b = (t_lo - mu) / s, (t_hi - mu) / s
    return mpmath.ncdf(-a) - mpmath.ncdf(-b) if a > 0 else mpmath.ncdf(b) - mpmath.ncdf(a)


def test_assumption_b_ndtr_within_its_stated_accuracy():
    """Assumption B, first part: scipy's ndtr within 2e-14 (relative) of mpmath's for z >= -11 and
    within NDTR_ACCURACY below, down to z = -37 (values down to 1e-300)."""
    from scipy.special import ndtr

    for z in np.r_[np.linspace(-37.0, 8.0, 400), -np.geomspace(1e-6, 5.0, 50)]:
        exact = mpmath.ncdf(mpmath.mpf(float(z)))
        allowed = 2e-14 if z >= -11 else rounding.NDTR_ACCURACY
        assert abs(float(ndtr(z)) - exact) <= allowed * exact


@pytest.mark.parametrize(("sigma", "q", "h"), [(0.6, 1e-5, 1e-3), (1.0, 1e-2, 0.01), (2.0, 0.5, 0.05)])
def test_assumption_b_step_cells_within_the_charged_bounds(sigma, q, h):
    """One step's cell masses and first moments above the cell's lower end (``steps._cell_moments``)
    within the errors the engine charges for them (``rounding.cell_errors``) of their closed forms
    in mpmath (40 digits), over cells from the bulk to the far tail."""
    mu, s = mpmath.mpf(-0.5) / sigma**2, mpmath.mpf(1) / sigma
    ks = np.unique(np.r_[np.arange(1, 40), np.geomspace(40, 20 / h, 25).astype(int)]).astype(float)
    mass, excess = _cell_moments(q, sigma, ks, h)
    g = np.exp(ks * h)
    mass_err, up_err = rounding.cell_errors(q, sigma, ks, h, mass, excess, False)
    for k, m, e, me, ue, gk in zip(ks, mass, excess, mass_err, up_err, g):
        t_lo = mpmath.log(mpmath.expm1(mpmath.mpf(k) * h) + q) - mpmath.log(q)
        t_hi = mpmath.log(mpmath.expm1(mpmath.mpf(k + 1) * h) + q) - mpmath.log(q)
        exact_mass = _interval(t_lo, t_hi, mu, s)
        first = _interval(t_lo, t_hi, mu + s * s, s)  # E[Y; cell]
        exact_excess = q * (first - mpmath.exp(t_lo) * exact_mass)
        if exact_mass < mpmath.mpf("1e-300"):
            continue
        assert abs(m - exact_mass) <= me
        assert abs(e - exact_excess) <= ue * gk * math.expm1(h)


@pytest.mark.parametrize(("sigma", "q", "h"), [(0.6, 1e-5, 4.855e-6), (0.6, 1e-5, 1e-3), (1.0, 1e-2, 1e-4), (2.0, 0.5, 0.05)])
def test_lower_law_cells_within_their_partition_bounds(sigma, q, h):
    """The lower law's cells are the cells at their computed ends (``rounding.partition_mass_errors``):
    each computed mass within its bound of the exact probability of [t^_lo, t^_hi) in mpmath (40
    digits), the ends taken as the doubles the engine computed; and tight enough to keep: at most
    1e-10 of the cell's mass for |z| <= 8 (further out the cells are tiny and the engine may drop
    them, ``laws.kept_entries``)."""
    mu, s = mpmath.mpf(-0.5) / sigma**2, mpmath.mpf(1) / sigma
    ks = np.unique(np.r_[np.arange(1, 40), np.geomspace(40, 30 / h, 30).astype(int)]).astype(float)
    mass, _ = _cell_moments(q, sigma, ks, h)
    err = rounding.partition_mass_errors(q, sigma, ks, h, mass)
    t_lo = np.log(np.expm1(ks * h) + q) - math.log(q)
    t_hi = np.log(np.expm1((ks + 1) * h) + q) - math.log(q)
    checked = 0
    for m, e, a, b in zip(mass, err, t_lo, t_hi):
        exact = _interval(mpmath.mpf(float(a)), mpmath.mpf(float(b)), mu, s)
        if exact < mpmath.mpf("1e-200"):
            continue
        observed = abs(mpmath.mpf(float(m)) - exact)
        assert observed <= e, (a, b, m, exact, e)
        if abs(float(a) - float(mu)) <= 8 * float(s) and abs(float(b) - float(mu)) <= 8 * float(s):
            assert e <= 1e-10 * m, (a, b, m, e)
            checked += 1
    assert checked >= 20


def test_hockey_sticks_bound_the_exact_sums():
    """``hockey.upper_delta`` is at least, ``lower_delta`` at most, the exact sums (mpmath, 40
    digits) of the same law, both directions, thresholds on and between grid points; within 1e-12
    of the sum of the terms' magnitudes (sum p (g + c), or p (1 + c g)) of them."""
    rng = np.random.default_rng(7)
    h = 0.01
    k0 = -300
    p = rng.random(700) ** 4 * 1e-3
    lv = (k0 + np.arange(p.size)) * h + rng.random(p.size) * h
    for eps in (0.0, 0.5, 1.0, 1.234567, 3.0 - 1e-17):
        for remove in (True, False):
            c = mpmath.exp(eps)
            points = mpmath.fsum(mpmath.mpf(float(m)) * (max(mpmath.exp((k0 + i) * mpmath.mpf(h)) - c, 0) if remove else
                                 max(1 - c * mpmath.exp((k0 + i) * mpmath.mpf(h)), 0)) for i, m in enumerate(p))
            upper = hockey.upper_delta(p, k0, h, eps, remove, 0.0)
            g = np.exp((k0 + np.arange(p.size)) * h)
            scale = float(np.sum(p * (g + float(c)))) if remove else float(np.sum(p * (1 + float(c) * g)))
            assert upper >= points and upper <= points + 1e-12 * scale
            means = mpmath.fsum(mpmath.mpf(float(m)) * (max(mpmath.exp(mpmath.mpf(float(v))) - c, 0) if remove else
                                max(1 - c * mpmath.exp(mpmath.mpf(float(v))), 0)) for m, v in zip(p, lv))
            lower = hockey.lower_delta(p, lv, eps, remove, 0.0)
            values = np.exp(lv)
            scale = float(np.sum(p * (values + float(c)))) if remove else float(np.sum(p * (1 + float(c) * values)))
            assert lower <= means and lower >= means - 1e-12 * scale


def test_a_lower_law_keeps_the_entries_whose_error_outweighs_the_mass_left_out():
    """``laws.kept_entries``: the smallest r in [floor, cap] with the mass of the entries above r
    at most r (a step's cells: floor 0, cap STEP_KEEP; a product's entries: its keep threshold
    and LOWER_CAP)."""
    from dpsampling.accountants.certified.laws import kept_entries
    from dpsampling.accountants.certified.steps import STEP_KEEP

    relative = np.array([1e-14, 1e-12, 1e-11, 5e-11, 1.0])
    mass = np.array([0.9, 0.1 - 3e-12, 2e-12, 1e-12, 0.0])
    # keeping up to 1e-14 leaves 0.1 out, up to 1e-12 leaves 3e-12 out (> 1e-12), up to 1e-11 leaves 1e-12
    assert kept_entries(relative, mass, 0.0, STEP_KEEP).tolist() == [True, True, True, False, False]
    # nothing qualifies below the cap: the cap
    assert kept_entries(np.array([1e-12, 1e-9]), np.array([0.5, 0.5]), 0.0, STEP_KEEP).tolist() == [True, False]
    assert not kept_entries(np.array([2 * STEP_KEEP]), np.array([1.0]), 0.0, STEP_KEEP).any()
    # a floor keeps everything known to it, whatever the mass above
    assert kept_entries(relative, mass, 1e-12, 1e-12).tolist() == [True, True, False, False, False]
    # mass spread over errors 1e-9 .. 1e-6: r is the first error with less mass above it
    relative = np.array([1e-13, 1e-9, 1e-8, 1e-7, 1e-6, np.inf])
    mass = np.array([1.0, 1e-6, 1e-7, 5e-9, 1e-9, 1e-30])
    assert kept_entries(relative, mass, 1e-10, 1e-6).tolist() == [True, True, True, False, False, False]


def test_products_of_many_steps_keep_lower_entries_by_their_share_of_the_run():
    """``laws.lower_keep``: a product of n of T steps keeps entries known to max(LOWER_THRESHOLD,
    LOWER_BUDGET n / T), and the default comes back after it."""
    assert laws._LOWER_KEEP.get() == laws.LOWER_THRESHOLD
    with laws.lower_keep(0.5):
        assert laws._LOWER_KEEP.get() == laws.LOWER_BUDGET * 0.5
        with laws.lower_keep(1e-9):
            assert laws._LOWER_KEEP.get() == laws.LOWER_THRESHOLD
    assert laws._LOWER_KEEP.get() == laws.LOWER_THRESHOLD


def test_assumption_b_ndtr_below_the_normal_range():
    """Assumption B below NDTR_NORMAL (docs/PROOF.md M4, Lemmas 10, 11): ndtr(z) for z in [-40, -37]
    (values from 5.7e-300 down through the subnormals, flushed to 0 from z ~ -37.7 although
    Phi(-38) = 2.9e-316) is within NDTR_ACCURACY Phi(z) + NDTR_SUBNORMAL of Phi(z) (mpmath, 200
    bits), and normal at z >= NDTR_NORMAL; the absolute term is needed (2^-1074 would not do)."""
    from scipy.special import ndtr

    zs = np.r_[np.linspace(-40.0, rounding.NDTR_NORMAL, 4001), np.nextafter(rounding.NDTR_NORMAL, 0.0)]
    worst, worst_abs = 0.0, 0.0
    with mpmath.workprec(200):
        for z in zs:
            exact = mpmath.ncdf(mpmath.mpf(float(z)))
            err = abs(mpmath.mpf(float(ndtr(z))) - exact)
            allowed = rounding.NDTR_ACCURACY * exact + rounding.NDTR_SUBNORMAL
            worst = max(worst, float(err / allowed))
            worst_abs = max(worst_abs, float(err))
    assert worst <= 1.0, worst
    assert worst_abs > 2.0**-1060, "the absolute term is needed"
    assert ndtr(rounding.NDTR_NORMAL) >= 2.0**-1022
