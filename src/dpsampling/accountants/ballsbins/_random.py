"""Random variates inside Numba kernels, all driven by xoshiro256**.

Generator: xoshiro256** (Blackman and Vigna), 256 bits of state held in a ``uint64[4]`` array
that the kernels mutate in place. Every chunk of work gets its own state, drawn from a
``numpy.random.SeedSequence`` (see ``sampling._chunk_states``), so what a chunk produces does
not depend on which thread runs it.

Variates (each exact: its law is the stated one up to floating-point rounding):
- uniform on (0, 1): (top 53 bits + 1/2) * 2^-53, never 0 or 1;
- standard normal by the ziggurat method (Marsaglia and Tsang 2000) with 256 layers of equal
  area v under f(x) = exp(-x^2/2), x >= 0 (tables in ``_ziggurat``). Layer i >= 1 is the
  rectangle [0, X_i] x [f(X_i), f(X_{i+1})], the base layer the strip [0, r] x [0, f(r)]
  plus the tail x > r, drawn as a rectangle of width X_0 = v / f(r). A draw picks a layer
  (8 bits), a sign (1 bit) and x = U X_i (53 bits) from one 64-bit word and accepts at once
  when x < X_{i+1} (98.5% of draws); otherwise the base layer returns a tail variate
  (Marsaglia 1964: r + a with a = -log(U1)/r, accepted when -2 log(U2) > a^2) and the other
  layers accept x when a uniform height in [f(X_i), f(X_{i+1})] lies below f(x), else retry;
- Exp(1) = -log U; Gamma(a), a >= 1, by Marsaglia and Tsang (2000) with ziggurat normals
  (Gamma(1) = Exp(1));
- a standard normal conditioned on w <= c (``truncated_normal_below``): rejection from plain
  normals when Phi(c) >= 1/4 (at most 4 draws expected), otherwise the inverse CDF
  Phi^{-1}(U Phi(c)) of Fact B.3 in log space.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dpsampling.accountants.ballsbins._special import normal_quantile_from_log_cdf

_SHIFT_8 = np.uint64(8)
_SHIFT_11 = np.uint64(11)
_SHIFT_17 = np.uint64(17)
_MASK_8 = np.uint64(0xFF)
_ONE = np.uint64(1)
_MULT_5 = np.uint64(5)
_MULT_9 = np.uint64(9)
_TWO_POW_MINUS_53 = 2.0 ** -53
_LOG_QUARTER = math.log(0.25)


def _ziggurat(layers: int = 256):
    """Boundaries X[0..layers] and heights F[0..layers] of equal-area layers under
    f(x) = exp(-x^2/2); returns (X, F, r, v). r is found by bisection so that the top layer
    [0, X_{n-1}] x [f(X_{n-1}), 1] has the same area v = r f(r) + int_r^inf f."""

    def build(r):
        f_r = math.exp(-0.5 * r * r)
        v = r * f_r + math.sqrt(math.pi / 2.0) * math.erfc(r / math.sqrt(2.0))
        xs = [v / f_r, r]
        fs = [0.0, f_r]
        for _ in range(layers - 2):
            height = fs[-1] + v / xs[-1]
            if height >= 1.0:  # layers too thick: r too small
                return None
            fs.append(height)
            xs.append(math.sqrt(-2.0 * math.log(height)))
        return xs, fs, v

    low, high = 3.0, 4.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        built = build(middle)
        if built is None or built[0][-1] * (1.0 - built[1][-1]) < built[2]:
            low = middle  # top layer smaller than v (or overshoot): increase r
        else:
            high = middle
        if high - low <= 4e-16 * high:
            break
    xs, fs, v = build(high)
    return np.array(xs + [0.0]), np.array(fs + [1.0]), high, v


_ZIGGURAT_X, _ZIGGURAT_F, ZIGGURAT_R, ZIGGURAT_V = _ziggurat()


@njit(inline="always")
def _rotate_left(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(inline="always")
def next_uint64(state):
    """Advance xoshiro256** once and return 64 random bits."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = _rotate_left(s1 * _MULT_5, 7) * _MULT_9
    t = s1 << _SHIFT_17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotate_left(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@njit(inline="always")
def uniform_open(state):
    """Uniform on the open interval (0, 1)."""
    return (float(next_uint64(state) >> _SHIFT_11) + 0.5) * _TWO_POW_MINUS_53


@njit(error_model="numpy")
def _normal_tail(state, r):
    """|Z| conditioned on |Z| > r (Marsaglia 1964)."""
    while True:
        a = -math.log(uniform_open(state)) / r
        b = -math.log(uniform_open(state))
        if b + b > a * a:
            return r + a


@njit(inline="always", error_model="numpy")
def standard_normal(state):
    """One N(0, 1) variate (ziggurat, see module docstring)."""
    while True:
        bits = next_uint64(state)
        layer = np.intp(bits & _MASK_8)
        negative = ((bits >> _SHIFT_8) & _ONE) == _ONE
        x = float(bits >> _SHIFT_11) * _TWO_POW_MINUS_53 * _ZIGGURAT_X[layer]
        if x < _ZIGGURAT_X[layer + 1]:
            return -x if negative else x
        if layer == 0:
            x = _normal_tail(state, _ZIGGURAT_X[1])
            return -x if negative else x
        bottom = _ZIGGURAT_F[layer]
        height = bottom + uniform_open(state) * (_ZIGGURAT_F[layer + 1] - bottom)
        if height < math.exp(-0.5 * x * x):
            return -x if negative else x


@njit(inline="always")
def standard_exponential(state):
    """Exp(1) = -log U."""
    return -math.log(uniform_open(state))


@njit(error_model="numpy")
def standard_gamma(state, shape):
    """Gamma(shape, 1) for shape >= 1 (Marsaglia-Tsang squeeze method; Exp(1) at shape 1)."""
    if shape == 1.0:
        return standard_exponential(state)
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = standard_normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform_open(state)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return d * v
        if math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
            return d * v


@njit(inline="always", error_model="numpy")
def truncated_normal_below(state, threshold, log_cdf_threshold):
    """N(0, 1) conditioned on w <= threshold; log_cdf_threshold = log Phi(threshold)."""
    if log_cdf_threshold >= _LOG_QUARTER:
        while True:
            w = standard_normal(state)
            if w <= threshold:
                return w
    return normal_quantile_from_log_cdf(log_cdf_threshold + math.log(uniform_open(state)))
