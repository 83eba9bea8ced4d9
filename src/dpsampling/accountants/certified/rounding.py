"""The floating-point error of the certified engine: the bounds its code charges.

The model, the assumptions (A: the FFT, B: ndtr and one step's quadratures, C: exp / log / expm1 /
log1p), the numbered lemmas, the theorem and the margins are in ``docs/PROOF.md``; every line here
that charges an error cites its lemma (``# PROOF Lemma n``), and
``tests/accountants/certified/test_proof.py`` keeps the two in step and verifies assumptions A and C
at the lengths and ranges the engine uses (B: ``test_rounding.py``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

U = 2.0**-53
FFT_CONSTANT = 8.0
COMPLEX_PRODUCT = 4.0 * U
STEP_LAW_ACCURACY = 1e-10
"""Assumption B: one step's cell masses and first moments (``steps``, ``ballsbins.y_laws``: ndtr,
log_ndtr, Gauss-Legendre on narrow cells) are within this relative error of the exact integrals."""
REL_THRESHOLD = 1e-10
"""An upper law's convolution entry whose proven error is above this fraction of it is recomputed by
direct summation where the budget allows (``convolution.sharpen``)."""


def gamma(n: float) -> float:
    """n U / (1 - n U): a sum or product of n non-negative terms (Higham Lemma 3.1)."""
    # PROOF Lemma 1: sums of non-negative terms (gamma)
    nu = n * U
    if nu >= 0.5:
        raise FloatingPointError(f"gamma({n:g}) is not defined in double precision")
    return nu / (1.0 - nu)


def fft_eta(size: int) -> float:
    """eta(N): assumption A's normwise relative error of one real FFT of length N (a power of 2)."""
    return FFT_CONSTANT * U * max(1.0, math.log2(size))


def fft_size(n: int) -> int:
    """The power of two used for a linear convolution of length n (assumption A is for those)."""
    return 1 << max(1, (n - 1).bit_length())


@njit(cache=True, nogil=True)
def _sums_of_squares(rows):
    """sum_j x_ij^2 for each row i, a running sum in one thread (BLAS's threaded dot stalls for
    milliseconds where the cores are busy, e.g. beside another job)."""
    out = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        squares = 0.0
        for v in rows[i]:
            squares += v * v
        out[i] = squares
    return out


def norms(x: np.ndarray) -> tuple:
    """Upper bounds on |x|_1 and |x|_2 of a non-negative array (floats), or of each row of a stack of
    them (the last axis; arrays), their own rounding included: a sum of n non-negative terms (any
    order) is within gamma(n - 1) of its value, of n squares within gamma(n) plus 2^-1074 per square
    for underflow (Higham Sec. 3.1); the square root and the inflation round once each."""
    # PROOF Lemma 1: |x|_1 and |x|_2 with their own rounding
    length = x.shape[-1]
    inflate = 1.0 + gamma(length + 2)
    rows = np.ascontiguousarray(x, dtype=np.float64).reshape(-1, length)
    squares = _sums_of_squares(rows) + length * 2.0**-1074
    one, two = np.sum(x, axis=-1) * inflate, np.sqrt(squares) * inflate
    return (float(one), float(two[0])) if x.ndim == 1 else (one, two)


def convolution_bound(x: np.ndarray, y: np.ndarray | None, size: int):
    """docs/PROOF.md Lemma 2: a bound on |c^ - c|_inf for the FFT convolution of x >= 0 and y >= 0 (y None: x * x)
    at FFT length ``size``; a float, or one per row for stacks of rows (the last axis)."""
    # PROOF Lemma 2: an FFT convolution's bound
    eta = fft_eta(size)
    x1, x2 = norms(x)
    y1, y2 = (x1, x2) if y is None else norms(y)
    s1, s2 = x1 * y2, x2 * y1
    m = np.minimum(s1, s2)
    d = eta * (s1 + s2) + eta * eta * math.sqrt(size) * x2 * y2
    d = d + COMPLEX_PRODUCT * (m + d)
    # PROOF Lemma 2: underflow (M4 R3): entries of x, y computed by an exp with a subnormal result
    # (2^-1074 each, times the other array's 1-norm) and the complex products' (2^-1074 per entry)
    d = d + 2.0**-1073 * (x1 + y1 + 1.0)
    bound = ((1.0 + eta) * d + eta * m) * (1.0 + 4 * U)
    return float(bound) if x.ndim == 1 else bound


def tilt_rounding(largest_log: float) -> float:
    """Relative error of exp(y) for y a sum of three logs of magnitude <= largest_log, each
    rounded (the tilt and untilt of an array entry)."""
    # PROOF Lemma 3: the exponent's error and exp's (assumption C)
    e = 4.0 * U * (largest_log + 1.0)
    return e + 2.0 * U + e * e


def grow(rho: float, fresh: float) -> float:
    """(1 + rho)(1 + fresh) - 1, rounded up: four roundings, each >= x / (1 + U) (docs/PROOF.md
    section 5), and (1 + 6 U) / (1 + U)^4 >= 1 (1 + 4 U fell short by 6 U^2; 1 + 5 U is not a double)."""
    # PROOF Lemma 5: relative errors compose
    return (rho + fresh + rho * fresh) * (1.0 + 6 * U)


def combine(rho_a: float, rho_b: float, fresh: float) -> float:
    """(1 + rho_a)(1 + rho_b)(1 + fresh) - 1, rounded up: the relative error of a product."""
    return grow(grow(rho_a, rho_b), fresh)


NDTR_ACCURACY = 1e-12
"""Assumption B (docs/PROOF.md section 2): scipy.special.ndtr's relative error below z = -11 (above:
2e-14, ``ndtr_accuracy``); observed <= 2.3e-13 (``test_rounding.py``, against mpmath)."""
GL_MASS_ACCURACY = 1e-13
"""A cell's mass is taken from 5-point Gauss-Legendre where its proven remainder is below this."""


def ndtr_accuracy(t_lo, t_hi, mu, s):
    """Assumption B per cell: ndtr's relative error at the cell's ends (2e-14 for z >= -11 on the
    tail side the difference uses, NDTR_ACCURACY below)."""
    a, b = (t_lo - mu) / s, (t_hi - mu) / s
    far = np.where(a > 0, -b, a)  # the more extreme of the two arguments ndtr sees
    return np.where(far >= -11.0, 2e-14, NDTR_ACCURACY)


def gl_mass_error(t_lo, t_hi, mu, s):
    """Relative remainder of 5-point Gauss-Legendre for P(t_lo <= T < t_hi), T ~ N(mu, s^2):
    w^11 (5!)^4 / (11 (10!)^3) max |f^(10)| over the mass >= w min f, with f^(10) = s^-10
    He_10(u) f(u) and |He_10(u)| <= (|u| + sqrt 10)^10 (He_n(u) = E (u + i Z)^n): at most
    3.95e-13 (w/s)^10 (U + sqrt 10)^10 exp(w U / s), U the largest |u| on the cell."""
    w = (t_hi - t_lo) / s
    top = np.maximum(np.abs(t_lo - mu), np.abs(t_hi - mu)) / s
    with np.errstate(over="ignore"):
        # PROOF Lemma 12: Gauss-Legendre remainder, margin 1.0001 (PROOF.md section 5)
        return 3.95e-13 * 1.0001 * (w * (top + math.sqrt(10.0))) ** 10 * np.exp(w * top)


NDTR_NORMAL = -37.0
"""ndtr(z) is normal (>= 5.7e-300) for z >= NDTR_NORMAL, where assumption B's relative bound is
verified; below, its value may be subnormal or flushed to 0 (ndtr(-38) = 0, Phi(-38) = 2.9e-316)."""
NDTR_SUBNORMAL = 2.0**-1022
"""Assumption B below NDTR_NORMAL: |ndtr(z) - Phi(z)| <= NDTR_ACCURACY Phi(z) + 2^-1022
(``test_rounding.py``, against mpmath)."""
SUBNORMAL_OPS = 16.0 * 2.0**-1074
"""docs/PROOF.md M4 R3: the absolute losses of one cell's products, quotients and exps whose
results are subnormal (2^-1075 per product or quotient, 2^-1074 per exp, scaled by what multiplies
them): <= 16 2^-1074 for a cell's mass, its excess, its share (Lemmas 10, 11)."""


def subnormal_ndtr(t_lo, t_hi, mu, s):
    """An absolute bound on the error of the two ndtr values a cell's mass (or first moment, mu
    shifted) takes from the tail side where either falls below NDTR_NORMAL (0 elsewhere)."""
    a, b = (t_lo - mu) / s, (t_hi - mu) / s
    far = np.where(a > 0, -b, a)
    # PROOF Lemma 10: ndtr's subnormal values, 2^-1022 each (assumption B)
    return np.where(far >= NDTR_NORMAL, 0.0, 2.0 * NDTR_SUBNORMAL)


NARROW_CELL = 0.05
"""steps.NARROW: cells this narrow in log y get their excess by Gauss-Legendre (``cell_errors``)."""


def partition_mass_errors(q: float, sigma: float, ks: np.ndarray, h: float, mass: np.ndarray) -> np.ndarray:
    """Bounds on the errors of one step's cell masses (``steps._cell_moments``, cells ``ks``) as masses
    of the cells at their *computed* ends t^_k = fl(log(expm1(k h) + q) - log q) (the lower law's
    partition: any partition gives a valid lower law, so the ends' own rounding is not charged
    there, unlike ``cell_errors``' for the upper law). A Gauss-Legendre cell integrates over
    [t^_lo, t^_lo + fl(t^_hi - t^_lo)] = [t^_lo, t^_hi] (Sterbenz: the ends are within a factor 2,
    checked) with nodes off by U (|t^_lo| + |t^_hi|) (the density moves by |u| / s that, relatively);
    an ndtr cell's ends are z^ = fl(fl(t^ - mu) / s), consistent with its neighbours' but at most
    2 U (|t^ - mu| + 1) from t^ in t where the neighbour is a Gauss-Legendre cell (charged there as
    density x that width); the law's parameters mu, s are rounded (relative U each: the mass moves
    by at most (u^2 + 1 + |u mu| / s) 2 U of it, u the largest |z| on the cell)."""
    mu, s = -0.5 / sigma**2, 1.0 / sigma
    t_lo = np.log(np.expm1(ks * h) + q) - math.log(q)
    t_hi = np.log(np.expm1((ks + 1) * h) + q) - math.log(q)
    by_gl = gl_mass_error(t_lo, t_hi, mu, s) <= GL_MASS_ACCURACY
    sterbenz = (t_hi - t_lo <= np.abs(t_lo)) | (np.abs(t_lo) <= 1e-300)
    if t_lo.size and not np.all(np.diff(np.r_[t_lo, t_hi[-1]]) >= 0.0):
        raise FloatingPointError("the computed cell ends do not increase: no partition")
    u_lo, u_hi = (t_lo - mu) / s, (t_hi - mu) / s
    top = np.maximum(np.abs(u_lo), np.abs(u_hi))
    a, b = (t_lo - mu) / s, (t_hi - mu) / s
    from scipy.special import ndtr

    ends = np.where(a > 0, ndtr(-a) + ndtr(-b), ndtr(a) + ndtr(b))
    nodes = top / s * U * (np.abs(t_lo) + np.abs(t_hi)) * 1.01
    gl = np.where(sterbenz, GL_MASS_ACCURACY + 16.0 * U + nodes, np.inf)
    # PROOF Lemma 11: the lower law's cells at their computed ends
    err = np.where(by_gl, gl * mass, ndtr_accuracy(t_lo, t_hi, mu, s) * ends)
    err = err + (4.0 * U + 2.0 * U * (top**2 + 1.0 + top * abs(mu) / s)) * mass
    # PROOF Lemma 11: underflow (M4 R3): ndtr's subnormal values and the cell's subnormal operations
    err = err + subnormal_ndtr(t_lo, t_hi, mu, s) + SUBNORMAL_OPS
    # an end shared by a Gauss-Legendre cell and an ndtr cell: the two paths place it up to dw apart
    density_lo = np.exp(-0.5 * u_lo**2) / (s * math.sqrt(2.0 * math.pi))
    density_hi = np.exp(-0.5 * u_hi**2) / (s * math.sqrt(2.0 * math.pi))
    switch_lo = np.r_[True, by_gl[1:] != by_gl[:-1]] if by_gl.size else by_gl
    switch_hi = np.r_[by_gl[1:] != by_gl[:-1], True] if by_gl.size else by_gl
    dw_lo = 2.0 * U * (np.abs(t_lo - mu) + 1.0) * 1.01
    dw_hi = 2.0 * U * (np.abs(t_hi - mu) + 1.0) * 1.01
    # the margin 1.01 on nodes, dw_lo and dw_hi covers e^x - 1 for x <= 0.0199 (docs/PROOF.md section 5)
    moved = top / s * np.maximum(U * (np.abs(t_lo) + np.abs(t_hi)), np.maximum(dw_lo, dw_hi))
    if np.any((mass > 0) & (moved > 0.0199)):
        raise FloatingPointError("a cell's computed end moves the density by more than its margin covers")
    return err + np.where(switch_lo, density_lo * dw_lo, 0.0) + np.where(switch_hi, density_hi * dw_hi, 0.0)


def cell_errors(q: float, sigma: float, ks: np.ndarray, h: float, mass: np.ndarray, excess: np.ndarray,
                lowest: bool) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the errors of one step's cell masses and upper shares up = excess / (g expm1(h))
    (``steps._cells_laws``; ``lowest``: entry 0 is the cell reaching down to Y = 0, ``ks`` the
    others). The mass: a difference of two ndtr values (each within NDTR_ACCURACY). The excess:
    narrow cells by 5-point Gauss-Legendre, within STEP_LAW_ACCURACY (assumption B); wide cells
    q (E[Y; cell] - y_lo mass) with E[Y; cell] another such difference: its error is
    q NDTR_ACCURACY (N'_lo + N'_hi) + (g - 1 + q) mass_err, plus 8 U of its terms. The lowest
    cell: one ndtr each. Returns (mass errors, share errors), both >= 0."""
    from scipy.special import ndtr

    mu, s = -0.5 / sigma**2, 1.0 / sigma
    t_lo = np.log(np.expm1(ks * h) + q) - math.log(q)
    t_hi = np.log(np.expm1((ks + 1) * h) + q) - math.log(q)

    def ends(shift):
        a, b = (t_lo - mu - shift) / s, (t_hi - mu - shift) / s
        return np.where(a > 0, ndtr(-a) + ndtr(-b), ndtr(a) + ndtr(b))

    cells, moments = mass[int(lowest):], excess[int(lowest):]
    y_lo = np.expm1(ks * h) + q  # q y(g_k) = g_k - 1 + q
    narrow = (t_hi - t_lo) <= NARROW_CELL
    by_gl = gl_mass_error(t_lo, t_hi, mu, s) <= GL_MASS_ACCURACY
    # the cell's ends in log y are computed: each within dt = 4 U (|log(expm1(k h) + q)| + |log q| + 2);
    # moving an end by dt moves the mass by at most the density there times dt (a margin e^(|u| dt / s))
    dt = 4.0 * U * (np.abs(t_lo + math.log(q)) + np.abs(t_hi + math.log(q)) + 2.0 * abs(math.log(q)) + 4.0)
    u_lo, u_hi = (t_lo - mu) / s, (t_hi - mu) / s
    density = (np.exp(-0.5 * u_lo**2) + np.exp(-0.5 * u_hi**2)) / (s * math.sqrt(2.0 * math.pi)) * np.exp(
        (np.abs(u_lo) + np.abs(u_hi) + 1.0) * dt / s)
    # PROOF Lemma 10: the upper law's cell masses and excesses
    mass_err = np.where(by_gl, (GL_MASS_ACCURACY + 16.0 * U) * cells, ndtr_accuracy(t_lo, t_hi, mu, s) * ends(0.0)) + \
        4.0 * U * cells + density * dt
    # PROOF Lemma 10: underflow (M4 R3): ndtr's subnormal values and the cell's subnormal operations
    mass_err = mass_err + subnormal_ndtr(t_lo, t_hi, mu, s) + SUBNORMAL_OPS
    excess_err = np.where(narrow, STEP_LAW_ACCURACY * moments,
                          q * ndtr_accuracy(t_lo, t_hi, mu + s * s, s) * ends(s * s) + y_lo * mass_err + 8.0 * U * (moments + y_lo * cells)
                          + q * subnormal_ndtr(t_lo, t_hi, mu + s * s, s)) + SUBNORMAL_OPS
    # the ends' error dt: the integrand q (e^t - e^t_lo) phi at the top end, and y_lo's own move
    excess_err = excess_err + q * np.exp(t_hi) * density * dt + y_lo * cells * 2.0 * dt
    if lowest:
        k_lo = ks[0] - 1 if ks.size else 0.0
        y0 = math.expm1(k_lo * h) + q
        m0_err = (NDTR_ACCURACY + 4.0 * U) * mass[0] + NDTR_SUBNORMAL + SUBNORMAL_OPS
        e0_err = (NDTR_ACCURACY + 8.0 * U) * (abs(excess[0]) + 2.0 * abs(y0) * mass[0]) + abs(y0) * m0_err + q * NDTR_ACCURACY \
            + q * NDTR_SUBNORMAL + SUBNORMAL_OPS
        mass_err = np.concatenate([[m0_err], mass_err])
        excess_err = np.concatenate([[e0_err], excess_err])
        ks = np.concatenate([[k_lo], ks])
    g = np.exp(ks * h)
    # PROOF Lemma 10: g = exp(fl(k h)) carries the product's rounding, u |k h| absolutely in the argument,
    # besides exp's 2 u: 2 u (|k h| + 1) more relatively on the share and on its error's division (F8)
    g_arg = 2.0 * U * (np.abs(ks * h) + 1.0)
    up = excess / (g * math.expm1(h))
    # PROOF Lemma 10: the share's and its error's subnormal quotients and products (M4 R3), before the factor
    up_err = (excess_err / (g * math.expm1(h)) + SUBNORMAL_OPS) * (1.0 + 8.0 * U + g_arg) + (4.0 * U + g_arg) * up
    # a share above its computed mass is clipped to it (``steps``): the exact share lies in
    # [up - up_err, mass + mass_err], so the clipped one is within max(up_err, mass_err) of it
    up_err = np.where(up > mass, np.maximum(up_err, mass_err), up_err)
    return mass_err, np.minimum(up_err, mass + mass_err) + 4.0 * U * up
