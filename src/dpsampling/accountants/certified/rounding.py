"""The floating-point error of the certified engine: the model, the FFT bound and the theorem.

**Model.** IEEE 754 binary64, round to nearest: fl(a op b) = (a op b)(1 + d), |d| <= U = 2^-53,
for + - * / and sqrt (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Sec. 2.2);
gamma(n) = n U / (1 - n U) bounds the relative error of a product or a running sum of n
non-negative terms (Higham Lemma 3.1, Sec. 4.2). exp, log, log1p, expm1 of the C library: relative
error <= 2 U (glibc: < 1 ulp); an argument y of exp carrying an absolute error e gives a relative
error <= e + 2 U + e^2 (|e| <= 1/2). A complex product: relative error <= 4 U in modulus (Brent,
Percival and Zimmermann 2007: sqrt(5) U for the naive formula, FMA or not).

**FFT (assumption A).** scipy.fft (pocketfft, SciPy >= 1.13) computes a real DFT of length N = 2^m
and its inverse (scaling included) with normwise relative error at most
    eta(N) = FFT_CONSTANT * U * log2(N),   FFT_CONSTANT = 8,
over the full Hermitian spectrum. Higham Thm 24.2 proves log2(N) (mu + gamma(4) (sqrt 2 + mu)) ~
6.7 U log2(N) for radix-2 Cooley-Tukey with twiddles of error mu <= U; pocketfft's radix-4 passes
count as two radix-2 stages. A is an assumption about a library, not a theorem:
``tests/accountants/certified/test_rounding.py`` measures the normwise error of rfft/irfft against
exact DFTs (mpmath, 40 digits) on random and structured inputs of N <= 2^12 and checks it against
eta(N) (observed / eta is reported there, ~0.05-0.1).

**Step laws (assumption B).** One step's cell masses and first moments (``steps``: ndtr
differences, closed forms and 5-point Gauss-Legendre on narrow cells; ``ballsbins.y_laws``:
8-point Gauss-Legendre) are within STEP_LAW_ACCURACY = 1e-12 of the exact integrals, relatively;
``test_rounding.py`` checks it against mpmath quadrature. The spread onto the grid adds
8 U (mass + both shares) per entry (``spread_relative_error``).

**Lemma 1 (a convolution).** x, y >= 0 of length <= N (zero-padded, linear convolution inside the
circular one), c = x * y, and c^ = irfft(rfft(x) rfft(y)) computed. With eta = eta(N), g = 4 U,
s1 = |x|_1 |y|_2 and s2 = |x|_2 |y|_1 (so |c|_2 <= m = min(s1, s2), Young):
    D = eta (s1 + s2) + eta^2 sqrt(N) |x|_2 |y|_2,      D' = D + g (m + D),
    |c^ - c|_inf <= |c^ - c|_2 <= (1 + eta) D' + eta m                          (``convolution_bound``)
Proof: rfft(x) = X + E_x with |E_x|_2 <= eta sqrt(N) |x|_2 and |X|_inf <= |x|_1 (same for y);
X^ Y^ - X Y = E_x Y + X E_y + E_x E_y has 2-norm <= sqrt(N) (D - ...) as written, the products'
rounding adds g |X^ Y^|_2; the inverse divides 2-norms by sqrt(N) and adds eta |its exact result|_2.
The norms are summed in floating point and inflated by (1 + gamma(n + 2)) (their own error).

**Tilts.** An entry of the convolution is only as good as the bound over its size. The engine
convolves the arrays tilted by exp(theta x) (theta in a set; ``laws._tilted_convolve``) and takes
each entry from the tilt whose bound, untilted, is smallest: a tail entry's error is then a
fraction of the tilted entry it is, not of the largest entry. The tilt exp(log a + theta x - top)
and the untilt exp(log c^ + shift - theta x) each carry a relative error <= tilt_rounding(L) with L
the largest magnitude of the logs involved; it is charged relatively.

**Theorem (the engine's rounding).** Fix every data-dependent decision the computation took (grids,
cut and fold points, which tilt each entry comes from, how atoms are grouped). The same algorithm
in exact arithmetic with those decisions gives valid bounds (``certified.ballsbins``' proofs hold for
any such decisions: cuts and folds are charged, any partition is a Jensen coarsening). Each law
the engine carries has a relative error rho (``PointsLaw.rel_error``, ``MeansLaw.rel_error``): every
kept entry (mass; first moment for the lower law) is within a factor [1 - rho, 1 + rho] of the
exact-arithmetic one, and an entry dropped by the computation is dropped by the exact one too:
- a convolution: entries whose Lemma 1 bound exceeds REL_THRESHOLD times their value are not kept:
  the upper law charges their exact mass (<= (c^ + bound)(1 + rho_a)(1 + rho_b)) to add_excess and
  their first moment to remove_excess (a cut; ``laws.multiply_points``), the lower law drops them
  (dropping mass lowers every delta). The kept ones: rho = (1 + rho_a)(1 + rho_b)(1 + t) - 1 with
  t = REL_THRESHOLD / (1 - REL_THRESHOLD) plus the tilt's rounding;
- a linear map with non-negative coefficients (a spread onto a coarser grid, a fold of a tail, a
  merge of atoms, a split into parts): rho grows by the coefficients' relative error and gamma of
  the longest sum (``grow``);
- the excess terms (tails moved or cut) are computed from the computed laws and inflated by
  (1 + rho) and their own rounding, so they are upper bounds on the exact ones;
- the hockey stick sum_k p_k w_k with w_k >= 0 (``engine.delta_rows``): the upper law's is divided
  by (1 - rho) and inflated by its own rounding; the lower law's (atoms (m, M), terms (M - c m)_+
  or (m - c M)_+) is lowered by rho times sum (M + c m) over the atoms that can reach the threshold.
So every reported bound is the exact-arithmetic bound, moved outward by what rounding can do.
"""

from __future__ import annotations

import math

import numpy as np

U = 2.0**-53
FFT_CONSTANT = 8.0
COMPLEX_PRODUCT = 4.0 * U
STEP_LAW_ACCURACY = 1e-12
"""Assumption B: one step's cell masses and first moments (``steps``, ``ballsbins.y_laws``: ndtr,
log_ndtr, Gauss-Legendre on narrow cells) are within this relative error of the exact integrals."""
REL_THRESHOLD = 1e-10
"""An upper law's convolution entry whose proven error is above this fraction of it is recomputed by
direct summation where the budget allows (``laws._sharpened``)."""


def gamma(n: float) -> float:
    """n U / (1 - n U): a sum or product of n non-negative terms (Higham Lemma 3.1)."""
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


def norms(x: np.ndarray) -> tuple[float, float]:
    """Upper bounds on |x|_1 and |x|_2 of a non-negative array, their own rounding included."""
    inflate = 1.0 + gamma(x.size + 2)
    return float(np.sum(x)) * inflate, math.sqrt(float(np.dot(x, x))) * inflate


def convolution_bound(x: np.ndarray, y: np.ndarray | None, size: int) -> float:
    """Lemma 1: a bound on |c^ - c|_inf for the FFT convolution of x >= 0 and y >= 0 (y None: x * x)
    at FFT length ``size``."""
    eta = fft_eta(size)
    x1, x2 = norms(x)
    y1, y2 = (x1, x2) if y is None else norms(y)
    s1, s2 = x1 * y2, x2 * y1
    m = min(s1, s2)
    d = eta * (s1 + s2) + eta * eta * math.sqrt(size) * x2 * y2
    d = d + COMPLEX_PRODUCT * (m + d)
    return ((1.0 + eta) * d + eta * m) * (1.0 + 4 * U)


def tilt_rounding(largest_log: float) -> float:
    """Relative error of exp(y) for y a sum of three logs of magnitude <= largest_log, each
    rounded (the tilt and untilt of an array entry)."""
    e = 4.0 * U * (largest_log + 1.0)
    return e + 2.0 * U + e * e


def grow(rho: float, fresh: float) -> float:
    """(1 + rho)(1 + fresh) - 1, rounded up."""
    return (rho + fresh + rho * fresh) * (1.0 + 4 * U)


def combine(rho_a: float, rho_b: float, fresh: float) -> float:
    """(1 + rho_a)(1 + rho_b)(1 + fresh) - 1, rounded up: the relative error of a product."""
    return grow(grow(rho_a, rho_b), fresh)


def spread_relative_error(mass: np.ndarray, up: np.ndarray, p: np.ndarray) -> float:
    """Relative error of the spread p[k] = (mass_k - up_k) + up_(k-1) whose cell masses and first
    moments carry the step laws' accuracy (``rounding``, assumption B): each entry's error is at
    most (B + 8 U)(mass_k + up_k + up_(k-1)) + U p_k, taken relative to p_k (the largest)."""
    accuracy = STEP_LAW_ACCURACY + 8.0 * U
    around = np.zeros(p.size)
    around[:up.size] += mass[:up.size] + up
    around[1:up.size + 1] += up
    around[up.size:mass.size] += mass[up.size:]  # the open top cell, moved onto the last point
    positive = p > 0
    if not np.any(positive):
        return 0.0
    return float(np.max(accuracy * around[positive] / p[positive])) + U
