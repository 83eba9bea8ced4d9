"""Random numbers and normal-distribution special functions usable inside Numba kernels.

Generator: xoshiro256** (Blackman and Vigna), 256 bits of state held in a ``uint64[4]`` array
that the kernels mutate in place. Every chunk of work gets its own state, drawn from a
``numpy.random.SeedSequence`` (see ``sampling._chunk_states``), so what a chunk produces does
not depend on which thread runs it.

Derived variates:
- uniform on (0, 1): (top 53 bits + 1/2) * 2^-53, never 0 or 1;
- standard normal pairs by Box-Muller;
- Gamma(a), a >= 1, by Marsaglia and Tsang (2000);
- log of Beta(a, b) for integer a, b >= 1: log(U)/a when b = 1, otherwise
  log(G_a / (G_a + G_b)) = -log1p(G_b / G_a), which keeps full precision when the Beta
  variable is close to 1 (the case for upper order statistics).

Normal CDF and quantiles come from ``scipy.special.cython_special`` (ndtri, ndtri_exp,
log_ndtr) called through their C addresses, so they are the same functions SciPy uses.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
from numba import njit
from numba.extending import get_cython_function_address

_double = ctypes.c_double
_unary = ctypes.CFUNCTYPE(_double, _double)
_ndtri = _unary(get_cython_function_address("scipy.special.cython_special", "ndtri"))
_ndtri_exp = _unary(get_cython_function_address("scipy.special.cython_special", "ndtri_exp"))
_log_ndtr = _unary(get_cython_function_address("scipy.special.cython_special", "__pyx_fuse_1log_ndtr"))

_SHIFT_11 = np.uint64(11)
_SHIFT_17 = np.uint64(17)
_MULT_5 = np.uint64(5)
_MULT_9 = np.uint64(9)
_TWO_POW_MINUS_53 = 2.0 ** -53
_TWO_PI = 2.0 * math.pi
_LOG_HALF = math.log(0.5)


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


@njit(inline="always")
def normal_pair(state):
    """Two independent standard normals (Box-Muller)."""
    radius = math.sqrt(-2.0 * math.log(uniform_open(state)))
    angle = _TWO_PI * uniform_open(state)
    return radius * math.cos(angle), radius * math.sin(angle)


@njit
def standard_gamma(state, shape):
    """Gamma(shape, 1) for shape >= 1 (Marsaglia-Tsang squeeze method)."""
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x, _ = normal_pair(state)
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


@njit
def log_beta_variate(state, a, b):
    """log of a Beta(a, b) draw for a, b >= 1 (integers in our use)."""
    if b == 1.0:
        return math.log(uniform_open(state)) / a
    if a == 1.0:
        # Beta(1, b) = 1 - U^(1/b)
        return math.log(-math.expm1(math.log(uniform_open(state)) / b))
    ga = standard_gamma(state, a)
    gb = standard_gamma(state, b)
    return -math.log1p(gb / ga)


@njit(inline="always")
def normal_quantile(p):
    """Phi^{-1}(p) for p in (0, 1)."""
    return _ndtri(p)


@njit(inline="always")
def normal_quantile_from_log_cdf(log_p):
    """Phi^{-1}(exp(log_p)), accurate both for tiny p and for p close to 1."""
    if log_p < _LOG_HALF:
        return _ndtri_exp(log_p)
    return -_ndtri(-math.expm1(log_p))


@njit(inline="always")
def log_normal_cdf(z):
    """log Phi(z)."""
    return _log_ndtr(z)
