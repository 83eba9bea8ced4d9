"""Convolutions of non-negative arrays with a proven bound on every entry's error (``rounding``).

The FFT's bound (docs/PROOF.md Lemma 2) is uniform across the entries, so in the far tails it
would swamp entries that matter once weighted by g_n (remove) or 1 (add). Each convolution is
therefore done on the arrays tilted by g^theta for tilts matching their log-slopes (``_tilts``: the
mode of some tilted array near every entry), every entry taken from the tilt whose bound, untilted,
is smallest there (``tilted_convolve``). Where one large entry times a small one makes a tail
entry (heavy tails), no tilt helps: entries whose bound is above a threshold of them are
recomputed by direct summation (relative error gamma(m), ``sharpen``). The lower law's
convolutions split off each array's largest entries and sum them directly (``head_split_convolve``):
a spike of a few large entries beside a long tail (a small rate's step law) would make the FFT's
bound, proportional to |a| |b|, swamp the tail. What the laws do with the entries and their
bounds (raise, cut, charge, drop) is in ``laws``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange
from scipy import fft as sfft

from . import rounding

TINY = 1e-300  # a convolution entry below this is not kept (far from underflow: relative errors hold)
MAX_TILTS = 16  # tilts per convolution at most (``_tilts``)
DIRECT_BUDGET = 10**8  # products of direct summation per convolution at most (``sharpen``)
SHARPEN_FLOOR = 1e-30  # entries weighing less are not summed directly (``sharpen``)
TILT_SPACING = 4.0  # consecutive tilts' modes at most this many local sds apart
HEAD_ENTRIES = 32  # the lower law's convolutions sum these largest entries of each array directly
BATCH_ENTRIES = 2**20  # a convolution's tilted arrays are transformed together up to this many entries (8 MB a stack; up to three convolutions run at once, threads.beside)


def _convolve(a: np.ndarray, b: np.ndarray | None, size: int) -> np.ndarray:
    """Full linear convolution a * b (b None: a * a) by real FFT of length ``size`` (a power of 2
    >= the result's length: ``rounding``'s assumption A); a and b may be stacks of rows (the last
    axis), each row transformed on its own, as alone (the cores share the rows)."""
    n = a.shape[-1] + (a.shape[-1] if b is None else b.shape[-1]) - 1
    fa = sfft.rfft(a, size, axis=-1, workers=-1)
    fb = fa if b is None else sfft.rfft(b, size, axis=-1, workers=-1)
    return sfft.irfft(fa * fb, size, axis=-1, workers=-1)[..., :n]


@njit(cache=True, nogil=True)
def _keep_best(winners, log_bound, tilted, log_shift, log_rounding, theta, h):
    """Entry i's winning tilt so far: the one whose rounding bound, log_rounding - theta offset_i in
    logs (offset_i = log g_i / g_last <= 0), is below the best so far (the first of equals);
    ``winners`` keeps its tilted entry (of the convolution of the normalised g^theta-tilted
    arrays), log_shift and theta, untilted once at the end (``_untilt``)."""
    n = log_bound.size
    for i in range(n):
        offset = (i - (n - 1)) * h  # log of g_i / g_{n-1} <= 0
        candidate = log_rounding - theta * offset
        if candidate < log_bound[i]:
            log_bound[i] = candidate
            winners[0, i] = tilted[i]
            winners[1, i] = log_shift
            winners[2, i] = theta


@njit(cache=True, nogil=True)
def _untilt(winners, h):
    """The entries and their logs from their winning tilts (``_keep_best``): tilted_i exp(log_shift
    - theta offset_i); the log survives where the entry underflows (0 and -inf where none won)."""
    n = winners.shape[1]
    best = np.zeros(n)
    log_best = np.full(n, -math.inf)
    for i in range(n):
        if winners[0, i] > 0.0:
            offset = (i - (n - 1)) * h
            log_best[i] = math.log(winners[0, i]) + winners[1, i] - winners[2, i] * offset
            # no overflow, compiled or not (NUMBA_DISABLE_JIT: math.exp raises past 709.78)
            best[i] = math.exp(log_best[i]) if log_best[i] < 709.0 else math.inf
    return best, log_best


def _log_entries(a: np.ndarray) -> np.ndarray:
    """log a (-inf at 0): computed once per array, shared by its tilts (``_normalised_tilts``)."""
    with np.errstate(divide="ignore"):
        return np.log(a)


def _normalised_tilts(log_a: np.ndarray, thetas: np.ndarray, h: float) -> tuple[np.ndarray, list[float]]:
    """Rows a_i exp(theta x_i) / M and their log M, M the row's largest entry (x_i = (i - last) h
    <= 0), one per theta, from log a: no underflow however long the range."""
    log_tilted, tops = _log_tilts(log_a, thetas, h)
    return np.exp(log_tilted, out=log_tilted), tops.tolist()


@njit(cache=True, nogil=True)
def _log_tilts(log_a, thetas, h):
    """Rows log a_i + (theta (i - last)) h - top, top the row's largest (before the subtraction), and the tops."""
    last = log_a.size - 1
    rows = np.empty((thetas.size, log_a.size))
    tops = np.empty(thetas.size)
    for k in range(thetas.size):
        top = -math.inf
        for i in range(log_a.size):
            rows[k, i] = log_a[i] + (thetas[k] * float(i - last)) * h
            top = max(top, rows[k, i])
        rows[k] -= top
        tops[k] = top
    return rows, tops


def _slope_tilts(a: np.ndarray, h: float) -> list[float]:
    """Tilts theta = -d log a / dx at points of a's support, spaced so that the modes of
    consecutive tilted arrays are at most TILT_SPACING local sds apart (local sd 1 / sqrt(kappa),
    kappa = -d^2 log a / dx^2): every entry of a * a is near the mode of one tilted convolution."""
    support = np.nonzero(a > 0)[0]
    if support.size < 3:
        return []
    la = np.log(a[support])
    x = support * h
    slope = _gradient(la, x)
    curvature = np.abs(_gradient(slope, x))
    floor = 1.0 / max(x[-1] - x[0], h) ** 2
    return [float(t) for t in _spaced(-slope, np.sqrt(np.maximum(curvature, floor)) * TILT_SPACING)]


@njit(cache=True, nogil=True)
def _gradient(f, x):
    """df/dx at the points x (increasing, at least 3), as np.gradient(f, x) (edge_order 1) computes it,
    bit for bit, without its overhead: one-sided differences at the ends; inside, with spacings
    d1 = x_i - x_(i-1), d2 = x_(i+1) - x_i, (f_(i+1) - f_(i-1)) / (2 d1) where every spacing
    equals the first, else -d2 / (d1 (d1 + d2)) f_(i-1) + (d2 - d1) / (d1 d2) f_i + d1 / (d2 (d1 + d2)) f_(i+1)."""
    n = f.size
    dx = x[1:] - x[:-1]
    uniform = True
    for i in range(1, n - 1):
        if dx[i] != dx[0]:
            uniform = False
            break
    out = np.empty(n)
    for i in range(1, n - 1):
        if uniform:
            out[i] = (f[i + 1] - f[i - 1]) / (2.0 * dx[0])
        else:
            d1, d2 = dx[i - 1], dx[i]
            before, here, after = -d2 / (d1 * (d1 + d2)), (d2 - d1) / (d1 * d2), d1 / (d2 * (d1 + d2))
            out[i] = before * f[i - 1] + here * f[i] + after * f[i + 1]
    out[0] = (f[1] - f[0]) / dx[0]
    out[n - 1] = (f[n - 1] - f[n - 2]) / dx[n - 2]
    return out


@njit(cache=True, nogil=True)
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
    (``_tilts``) whose proven error bound (``rounding.convolution_bound``, untilted) is smallest
    there; returns the entries (negatives set to 0), a bound on each entry's error, the
    tilts' own rounding included (``rounding``), and log(entry + bound) per entry, finite where
    both underflow (an entry past log g ~ 745 whose first moment is still of order 1). Each tilted array is one exp per entry,
    normalised to its largest entry: exp(theta x) rounds once whatever theta, and nothing
    underflows over a range of hundreds in log g."""
    n = a.size + (a.size if b is None else b.size) - 1
    size = rounding.fft_size(n)
    winners = np.zeros((3, n))  # per entry: the winning tilt's entry, log_shift, theta (``_keep_best``)
    log_bound = np.full(n, np.inf)
    largest_log = 0.0
    log_a, log_b = _log_entries(a), None if b is None else _log_entries(b)
    thetas = _tilts(a, b, h)
    rows = max(1, BATCH_ENTRIES // size)
    for start in range(0, len(thetas), rows):
        chunk = np.array(thetas[start:start + rows])
        tilted_a, tops_a = _normalised_tilts(log_a, chunk, h)
        tilted_b, tops_b = (None, tops_a) if b is None else _normalised_tilts(log_b, chunk, h)
        products = _convolve(tilted_a, tilted_b, size)
        # PROOF Lemma 2: each tilted FFT product
        bounds = rounding.convolution_bound(tilted_a, tilted_b, size).tolist()
        for k, theta in enumerate(chunk.tolist()):
            top_a, top_b, bound = tops_a[k], tops_b[k], bounds[k]
            shift = top_a + top_b
            largest_log = max(largest_log, abs(top_a) + abs(top_b) + abs(theta) * (n - 1) * h)
            if 0.0 < bound < math.inf:
                _keep_best(winners, log_bound, products[k], shift, math.log(bound) + shift, theta, h)
    best, log_best = _untilt(winners, h)
    with np.errstate(over="ignore"):
        bound = np.exp(np.minimum(log_bound, 700.0))
    best = np.maximum(best, 0.0)
    smallest = float(np.min(best[best > 0])) if np.any(best > 0) else 1.0
    largest_log += abs(math.log(smallest)) + 2.0 * abs(math.log(max(float(np.max(best)), 1e-300)))
    # PROOF Lemma 3: the tilts and the untilt
    relative = rounding.tilt_rounding(largest_log)
    logs = np.logaddexp(log_best, log_bound) + 4.0 * relative
    with np.errstate(over="ignore"):  # an infinite bound keeps its entry out (upper: cut and charged)
        # PROOF Lemma 3: the untilts' underflow (M4 R3): an entry's and its bound's exp, 2^-1074 each
        # where subnormal, and the two products', before the factor; an entry with entry + bound < TINY
        # is charged from its log by its users instead (``laws.multiply_points``' underflow charge,
        # ``head_split_convolve``), where 2^-1072 times a large g would swamp the charge
        absolute = np.where(best + bound < TINY, 0.0, 2.0**-1072)
        return best, (bound + absolute) * (1.0 + relative) + 3.0 * relative * best, logs


@njit(cache=True, nogil=True)
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
    g = (count + 2) * rounding.U
    g = g / (1.0 - g)
    with np.errstate(over="ignore", invalid="ignore"):
        # PROOF Lemma 4: the head split's direct sums (factors: PROOF.md section 5, F5)
        bound = (rest_bound + g * (total + rest_bound) / (1.0 - g)) * (1.0 + 10.0 * rounding.U) + count * 2.0**-1073
    return total, bound


PARALLEL_PRODUCTS = 10**7
"""Direct sums of fewer products run in one thread: starting the threads costs more than they save
(milliseconds per call, where a small call's work is a fraction of one)."""


def _direct_entries(a, b, indices, out, bound):
    """out[n] = sum_i a_i b_(n - i) by direct summation for n in ``indices``, and bound[n] its
    error (``_direct_entry``); on every core when there are PARALLEL_PRODUCTS products or more."""
    last = b.size - 1
    products = int(np.sum(np.minimum(indices, a.size - 1) - np.maximum(0, indices - last) + 1)) if indices.size else 0
    kernel = _direct_parallel if products >= PARALLEL_PRODUCTS else _direct_serial
    kernel(a, b[::-1].copy(), indices, out, bound)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _dot(x, y):
    """sum_k x_k y_k in whatever order the compiler vectorizes it (reassociation and fused
    multiply-adds allowed, no other fast-math flag): PROOF.md Lemma 4 holds for every order."""
    total = 0.0
    for k in range(x.size):
        total += x[k] * y[k]
    return total


@njit(cache=True, nogil=True)
def _direct_entry(a, reversed_b, n):
    """(sum_i a_i b_(n - i), its error bound) for non-negative a, b (b given reversed): gamma(m + 1)
    times the sum for m products (relative: no FFT), plus 2^-1074 per product for underflow
    (Higham Sec. 2.3), for any order of the additions (PROOF.md Lemma 4): every binary summation
    tree of m terms has at most m - 1 additions on a path, an addition of the starting 0 is exact and
    a fused multiply-add rounds its product with its sum, so no product passes through more than
    m roundings, and for non-negative terms a tree of depth d is within gamma(d) of the exact sum
    (Higham Lemma 3.1, Sec. 4.2). ``_dot`` sums on contiguous slices, which the compiler vectorizes."""
    unit = 2.0**-53
    last = reversed_b.size - 1
    lo = max(0, n - last)
    hi = min(n, a.size - 1)
    shift = last - n  # b[n - i] = reversed_b[i + shift]
    total = _dot(a[lo:hi + 1], reversed_b[lo + shift:hi + 1 + shift])
    m = hi - lo + 1
    g = (m + 1) * unit / (1.0 - (m + 1) * unit)
    # PROOF Lemma 4: a direct sum and its underflow
    return total, g * total * (1.0 + 4.0 * unit) + m * 2.0**-1074


@njit(cache=True, nogil=True)
def _direct_serial(a, reversed_b, indices, out, bound):
    for t in range(indices.size):
        out[indices[t]], bound[indices[t]] = _direct_entry(a, reversed_b, indices[t])


@njit(cache=True, nogil=True, parallel=True)
def _direct_parallel(a, reversed_b, indices, out, bound):
    for t in prange(indices.size):
        out[indices[t]], bound[indices[t]] = _direct_entry(a, reversed_b, indices[t])


def sharpen(a: np.ndarray, b: np.ndarray | None, out: np.ndarray, bound: np.ndarray, threshold: float,
               log_g: np.ndarray) -> None:
    """Entries of an FFT convolution whose proven error is above ``threshold`` of them recomputed
    by direct summation (relative error gamma(m)), the largest bounds first, within DIRECT_BUDGET
    products: where one large entry times a small one makes a tail entry (heavy tails), no tilt
    makes the FFT's error relative, a direct sum is. Entries weighing at most SHARPEN_FLOOR
    (max(entry, bound) max(1, g)) keep their bound: any answer is valid, these change none
    that the engine reports above its floor. Entries with entry + bound below TINY are left too:
    their exact value is below it, so a direct sum could not make them kept, and its underflow
    bound (2^-1074 per product) weighs far more than their logs charge (``multiply_points``)."""
    other = a if b is None else b
    weight = np.log(np.maximum(np.maximum(out, bound), 1e-300)) + np.maximum(log_g, 0.0)
    uncertain = np.nonzero(~certain(out, bound, threshold) & (weight > math.log(SHARPEN_FLOOR))
                           & (out + bound >= TINY))[0]
    if uncertain.size == 0:
        return
    uncertain = uncertain[np.argsort(-bound[uncertain], kind="stable")]
    terms = np.minimum(uncertain, a.size - 1) - np.maximum(0, uncertain - other.size + 1) + 1
    chosen = uncertain[np.cumsum(terms) <= DIRECT_BUDGET]
    _direct_entries(a, other, np.sort(chosen), out, bound)


def certain(out: np.ndarray, bound: np.ndarray, threshold: float) -> np.ndarray:
    """Entries of a convolution known to ``threshold`` of their value (and far from underflow)."""
    return (out >= TINY) & (bound <= threshold * out)


def lower_convolve(a: np.ndarray, b: np.ndarray | None, h: float) -> tuple[np.ndarray, np.ndarray]:
    """The lower law's convolutions: heads split off (``head_split_convolve``) once the arrays
    are longer than a few heads, else tilted FFTs alone."""
    if min(a.size, a.size if b is None else b.size) > 4 * HEAD_ENTRIES:
        return head_split_convolve(a, b, h)
    out, bound, _ = tilted_convolve(a, b, h)
    return out, bound
