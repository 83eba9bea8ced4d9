"""The certified engine's convolutions before issue 41's optimisations (``convolution``'s
``tilted_convolve``, ``head_split_convolve``, ``lower_convolve`` and their helpers, with
``rounding.norms`` and ``rounding.convolution_bound``), kept frozen as the reference that
``test_convolution_reference.py`` holds the library's to, bit for bit. Not to be edited: it is
the pre-optimisation implementation, copied verbatim but for the rounding helpers' module prefix
(its numba kernels compiled without a cache)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy import fft as sfft

from dpsampling.accountants.certified.rounding import COMPLEX_PRODUCT, U, fft_eta, fft_size, gamma, tilt_rounding


@njit
def _sum_of_squares(x):
    """sum x_i^2 as a running sum in one thread (BLAS's threaded dot stalls for milliseconds
    where the cores are busy, e.g. beside another job)."""
    squares = 0.0
    for v in x:
        squares += v * v
    return squares


def norms(x: np.ndarray) -> tuple[float, float]:
    """Upper bounds on |x|_1 and |x|_2 of a non-negative array, their own rounding included: a sum
    of n non-negative terms (any order) is within gamma(n - 1) of its value, of n squares within
    gamma(n) plus 2^-1074 per square for underflow (Higham Sec. 3.1); the square root and the
    inflation round once each."""
    # PROOF Lemma 1: |x|_1 and |x|_2 with their own rounding
    inflate = 1.0 + gamma(x.size + 2)
    squares = _sum_of_squares(np.ascontiguousarray(x, dtype=np.float64)) + x.size * 2.0**-1074
    return float(np.sum(x)) * inflate, math.sqrt(squares) * inflate


def convolution_bound(x: np.ndarray, y: np.ndarray | None, size: int) -> float:
    """docs/PROOF.md Lemma 2: a bound on |c^ - c|_inf for the FFT convolution of x >= 0 and y >= 0 (y None: x * x)
    at FFT length ``size``."""
    # PROOF Lemma 2: an FFT convolution's bound
    eta = fft_eta(size)
    x1, x2 = norms(x)
    y1, y2 = (x1, x2) if y is None else norms(y)
    s1, s2 = x1 * y2, x2 * y1
    m = min(s1, s2)
    d = eta * (s1 + s2) + eta * eta * math.sqrt(size) * x2 * y2
    d = d + COMPLEX_PRODUCT * (m + d)
    # PROOF Lemma 2: underflow (M4 R3): entries of x, y computed by an exp with a subnormal result
    # (2^-1074 each, times the other array's 1-norm) and the complex products' (2^-1074 per entry)
    d = d + 2.0**-1073 * (x1 + y1 + 1.0)
    return ((1.0 + eta) * d + eta * m) * (1.0 + 4 * U)



TINY = 1e-300  # a convolution entry below this is not kept (far from underflow: relative errors hold)
MAX_TILTS = 16  # tilts per convolution at most (``_tilts``)
DIRECT_BUDGET = 10**8  # products of direct summation per convolution at most (``sharpen``)
SHARPEN_FLOOR = 1e-30  # entries weighing less are not summed directly (``sharpen``)
TILT_SPACING = 4.0  # consecutive tilts' modes at most this many local sds apart
HEAD_ENTRIES = 32  # the lower law's convolutions sum these largest entries of each array directly
BATCH_ENTRIES = 2**22  # a convolution's tilted arrays are transformed together up to this many entries


def _convolve(a: np.ndarray, b: np.ndarray | None, size: int) -> np.ndarray:
    """Full linear convolution a * b (b None: a * a) by real FFT of length ``size`` (a power of 2
    >= the result's length: ``rounding``'s assumption A); a and b may be stacks of rows (the last
    axis), each row transformed on its own, as alone (the cores share the rows)."""
    n = a.shape[-1] + (a.shape[-1] if b is None else b.shape[-1]) - 1
    fa = sfft.rfft(a, size, axis=-1, workers=-1)
    fb = fa if b is None else sfft.rfft(b, size, axis=-1, workers=-1)
    return sfft.irfft(fa * fb, size, axis=-1, workers=-1)[..., :n]


@njit
def _keep_best(best, log_best, log_bound, tilted, log_shift, log_rounding, theta, h):
    """Entry i from ``tilted`` (the convolution of the normalised g^theta-tilted arrays; the
    untilted entry is tilted[i] exp(log_shift - theta offset_i)) where its rounding bound,
    log_rounding - theta offset_i in logs, is below the best so far; ``log_best`` keeps the
    entry's log (which survives where the entry underflows)."""
    n = best.size
    for i in range(n):
        offset = (i - (n - 1)) * h  # log of g_i / g_{n-1} <= 0
        candidate = log_rounding - theta * offset
        if candidate < log_bound[i]:
            log_bound[i] = candidate
            if tilted[i] > 0.0:
                log_best[i] = math.log(tilted[i]) + log_shift - theta * offset
                # no overflow, compiled or not (NUMBA_DISABLE_JIT: math.exp raises past 709.78)
                best[i] = math.exp(log_best[i]) if log_best[i] < 709.0 else math.inf
            else:
                log_best[i] = -math.inf
                best[i] = 0.0


def _log_entries(a: np.ndarray) -> np.ndarray:
    """log a (-inf at 0): computed once per array, shared by its tilts (``_normalised_tilt``)."""
    with np.errstate(divide="ignore"):
        return np.log(a)


def _normalised_tilt(log_a: np.ndarray, theta: float, h: float) -> tuple[np.ndarray, float]:
    """a_i exp(theta x_i) / M and log M, M its largest entry (x_i = (i - last) h <= 0), from log a:
    no underflow however long the range."""
    log_tilted = log_a + theta * (np.arange(log_a.size) - (log_a.size - 1)) * h
    top = float(np.max(log_tilted))
    return np.exp(log_tilted - top), top


def _slope_tilts(a: np.ndarray, h: float) -> list[float]:
    """Tilts theta = -d log a / dx at points of a's support, spaced so that the modes of
    consecutive tilted arrays are at most TILT_SPACING local sds apart (local sd 1 / sqrt(kappa),
    kappa = -d^2 log a / dx^2): every entry of a * a is near the mode of one tilted convolution."""
    support = np.nonzero(a > 0)[0]
    if support.size < 3:
        return []
    la = np.log(a[support])
    x = support * h
    slope = np.gradient(la, x)
    curvature = np.abs(np.gradient(slope, x))
    floor = 1.0 / max(x[-1] - x[0], h) ** 2
    return [float(t) for t in _spaced(-slope, np.sqrt(np.maximum(curvature, floor)) * TILT_SPACING)]


@njit
def _spaced(values, gaps):
    """values[i] (finite ones, in order) kept where more than gaps[i] from the last kept."""
    out = np.empty(values.size)
    n = 0
    for i in range(values.size):
        v = values[i]
        if not np.isfinite(v):
            continue
        if n == 0 or abs(v - out[n - 1]) > gaps[i]:
            out[n] = v
            n += 1
    return out[:n]


def _tilts(a: np.ndarray, b: np.ndarray | None, h: float) -> list[float]:
    """The tilts of a convolution: 0, 1 and the slope tilts of both arrays, at most MAX_TILTS
    (thinned evenly)."""
    slopes = sorted(set(_slope_tilts(a, h) + ([] if b is None else _slope_tilts(b, h))))
    if len(slopes) > MAX_TILTS - 2:
        slopes = [slopes[i] for i in np.linspace(0, len(slopes) - 1, MAX_TILTS - 2).round().astype(int)]
    return sorted({0.0, 1.0, *slopes})


def tilted_convolve(a: np.ndarray, b: np.ndarray | None, h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a * b (non-negative arrays) with each entry from the convolution tilted by g^theta
    (``_tilts``) whose proven error bound (``convolution_bound``, untilted) is smallest
    there; returns the entries (negatives set to 0), a bound on each entry's error, the
    tilts' own rounding included (``rounding``), and log(entry + bound) per entry, finite where
    both underflow (an entry past log g ~ 745 whose first moment is still of order 1). Each tilted array is one exp per entry,
    normalised to its largest entry: exp(theta x) rounds once whatever theta, and nothing
    underflows over a range of hundreds in log g."""
    n = a.size + (a.size if b is None else b.size) - 1
    size = fft_size(n)
    best = np.zeros(n)
    log_best = np.full(n, -np.inf)
    log_bound = np.full(n, np.inf)
    largest_log = 0.0
    log_a, log_b = _log_entries(a), None if b is None else _log_entries(b)
    thetas = _tilts(a, b, h)
    rows = max(1, BATCH_ENTRIES // size)
    for start in range(0, len(thetas), rows):
        chunk = thetas[start:start + rows]
        tilted_a = [_normalised_tilt(log_a, theta, h) for theta in chunk]
        tilted_b = None if b is None else [_normalised_tilt(log_b, theta, h) for theta in chunk]
        products = _convolve(np.stack([t for t, _ in tilted_a]),
                             None if b is None else np.stack([t for t, _ in tilted_b]), size)
        for k, theta in enumerate(chunk):
            ta, top_a = tilted_a[k]
            tb, top_b = (None, top_a) if b is None else tilted_b[k]
            # PROOF Lemma 2: each tilted FFT product
            bound = convolution_bound(ta, tb, size)
            shift = top_a + top_b
            largest_log = max(largest_log, abs(top_a) + abs(top_b) + abs(theta) * (n - 1) * h)
            if 0.0 < bound < math.inf:
                _keep_best(best, log_best, log_bound, products[k], shift, math.log(bound) + shift, theta, h)
    with np.errstate(over="ignore"):
        bound = np.exp(np.minimum(log_bound, 700.0))
    best = np.maximum(best, 0.0)
    smallest = float(np.min(best[best > 0])) if np.any(best > 0) else 1.0
    largest_log += abs(math.log(smallest)) + 2.0 * abs(math.log(max(float(np.max(best)), 1e-300)))
    # PROOF Lemma 3: the tilts and the untilt
    relative = tilt_rounding(largest_log)
    logs = np.logaddexp(log_best, log_bound) + 4.0 * relative
    with np.errstate(over="ignore"):  # an infinite bound keeps its entry out (upper: cut and charged)
        # PROOF Lemma 3: the untilts' underflow (M4 R3): an entry's and its bound's exp, 2^-1074 each
        # where subnormal, and the two products', before the factor; an entry with entry + bound < TINY
        # is charged from its log by its users instead (``laws.multiply_points``' underflow charge,
        # ``head_split_convolve``), where 2^-1072 times a large g would swamp the charge
        absolute = np.where(best + bound < TINY, 0.0, 2.0**-1072)
        return best, (bound + absolute) * (1.0 + relative) + 3.0 * relative * best, logs


@njit
def _heads_times(heads, a, b, out, count):
    """out[i + j] += a_i b_j for i in ``heads`` and every j (a running sum of non-negative
    products per entry); count[n] += the products added to out[n]."""
    for i in heads:
        ai = a[i]
        for j in range(b.size):
            out[i + j] += ai * b[j]
            count[i + j] += 1


def head_split_convolve(a: np.ndarray, b: np.ndarray | None, h: float) -> tuple[np.ndarray, np.ndarray]:
    """a * b (non-negative arrays; b None: a * a) as heads times everything by direct summation
    plus the rests' convolution (``tilted_convolve``): with H the HEAD_ENTRIES largest entries of
    each array, a * b = a_H * b + a_R * b_H + a_R * b_R (R the rest, a split with no rounding).
    A spike of a few large entries beside a long tail of small ones (the step law of a small
    rate) makes the FFT's bound, proportional to |a| |b|, swamp the tail entries; the rests'
    norms do not. Returns the entries and a bound on each entry's error: the direct part D^, a
    running sum of m non-negative products, is within gamma(m + 1) of its exact value D (plus
    2^-1074 per product for underflow), the rests' part F^ within its bound f (entries < 0 set to
    0, which only moves them toward F >= 0), and their sum rounds once (U): |D^ + F^ - (D + F)| <=
    f + gamma(m + 2) (D^ + F^ + f) / (1 - gamma(m + 2)) + m 2^-1074."""
    other = a if b is None else b
    heads_a = np.sort(np.argsort(-a, kind="stable")[:HEAD_ENTRIES])
    heads_b = heads_a if b is None else np.sort(np.argsort(-other, kind="stable")[:HEAD_ENTRIES])
    rest_a = a.copy()
    rest_a[heads_a] = 0.0
    rest_b = rest_a if b is None else other.copy()
    if b is not None:
        rest_b[heads_b] = 0.0
    direct = np.zeros(a.size + other.size - 1)
    count = np.zeros(direct.size, dtype=np.int64)
    _heads_times(heads_a, a, other, direct, count)  # a_H * b
    _heads_times(heads_b, other, rest_a, direct, count)  # b_H * a_R (= a_R * b_H)
    if np.any(rest_a > 0) and np.any(rest_b > 0):
        rest, rest_bound, _ = tilted_convolve(rest_a, None if b is None else rest_b, h)
        # PROOF Lemma 3: the rests' untilts where tilted_convolve left their underflow to the caller
        # (entry + bound < TINY): 2^-1072 (M4 R3), one more rounding on f's path (F5)
        rest_bound = rest_bound + 2.0**-1072
    else:
        rest, rest_bound = np.zeros(direct.size), np.zeros(direct.size)
    total = direct + rest
    g = (count + 2) * U
    g = g / (1.0 - g)
    with np.errstate(over="ignore", invalid="ignore"):
        # PROOF Lemma 4: the head split's direct sums (factors: PROOF.md section 5, F5)
        bound = (rest_bound + g * (total + rest_bound) / (1.0 - g)) * (1.0 + 10.0 * U) + count * 2.0**-1073
    return total, bound


def lower_convolve(a: np.ndarray, b: np.ndarray | None, h: float) -> tuple[np.ndarray, np.ndarray]:
    """The lower law's convolutions: heads split off (``head_split_convolve``) once the arrays
    are longer than a few heads, else tilted FFTs alone."""
    if min(a.size, a.size if b is None else b.size) > 4 * HEAD_ENTRIES:
        return head_split_convolve(a, b, h)
    out, bound, _ = tilted_convolve(a, b, h)
    return out, bound
