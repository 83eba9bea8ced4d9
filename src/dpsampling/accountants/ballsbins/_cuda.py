"""CUDA kernels (numba.cuda) for the balls-and-bins privacy-loss Monte Carlo; private.

Importing this module imports numba.cuda: only ``cuda.py`` imports it, inside functions.

The kernels are a line-by-line port of the CPU kernels (``_kernels``, ``_random``,
``_special``): the same loss (eqs. (2), (3)), the same pessimistic order-statistics bounds
(4)/(5) via exponential spacings, the same importance events (with the corrected
add-direction threshold of ``importance.py``), the same variate algorithms (ziggurat normals
on the same tables, Marsaglia-Tsang gammas, truncated normals, AS 241 quantiles) driven by
the same generator, xoshiro256**, with the same per-chunk states. One GPU thread runs one
chunk of ``samples_per_chunk`` samples from ``chunk_states[c]`` in the CPU's order, so a
thread draws the CPU kernel's stream for that chunk: the numbers equal the CPU's up to the
rounding of the device's exp/log and of contracted multiply-adds (a different rounding can,
very rarely, flip a rejection step and desynchronise the rest of that chunk; the law is
unchanged).

Both kernels compile to PTX for sm_90 with numba-cuda 0.30.4 and NVVM 13.5 (checked by
``tests/cuda/test_ballsbins_cuda.py`` when NVVM is installed); the order-statistics kernel
uses 2 x 8 x capacity bytes of local memory per thread (16 KiB for up to 1024 orders).

Nothing depends on the launch configuration: thread g of a launch handles global chunk
``first_chunk + g`` and writes only its own outputs (no atomics, no shared reductions).

Statistics mode (``epsilons`` non-empty): instead of writing losses, thread g accumulates,
for every eps_j, sum_i Z_ij and sum_i Z_ij^2 with Z_ij = [1 - e^{eps_j - L_i}]_+ over its
chunk (sequentially) into ``totals[j, g]`` and ``squares[j, g]`` (eps-major, so a warp's
stores are coalesced).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from numba import cuda, float64, int64, uint64

from dpsampling.accountants.ballsbins._random import _ZIGGURAT_F, _ZIGGURAT_X

_SHIFT_8 = np.uint64(8)
_SHIFT_11 = np.uint64(11)
_SHIFT_17 = np.uint64(17)
_SHIFT_7 = np.uint64(7)
_SHIFT_57 = np.uint64(57)
_SHIFT_45 = np.uint64(45)
_SHIFT_19 = np.uint64(19)
_MASK_8 = np.uint64(0xFF)
_ONE = np.uint64(1)
_MULT_5 = np.uint64(5)
_MULT_9 = np.uint64(9)
_TWO_POW_MINUS_53 = 2.0 ** -53
_LOG_QUARTER = math.log(0.25)
_LOG_HALF = math.log(0.5)
_LOG_TWO_PI = math.log(2.0 * math.pi)
_NEWTON_BELOW = -676.0
_INF = math.inf
_ZX = _ZIGGURAT_X
_ZF = _ZIGGURAT_F

THREADS_PER_BLOCK = 128


# ---------------------------------------------------------------- generator and variates

@cuda.jit(device=True)
def _next_uint64(state):
    """xoshiro256** (as ``_random.next_uint64``)."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    x = s1 * _MULT_5
    result = ((x << _SHIFT_7) | (x >> _SHIFT_57)) * _MULT_9
    t = s1 << _SHIFT_17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _SHIFT_45) | (s3 >> _SHIFT_19)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@cuda.jit(device=True)
def _uniform_open(state):
    return (float64(_next_uint64(state) >> _SHIFT_11) + 0.5) * _TWO_POW_MINUS_53


@cuda.jit(device=True)
def _normal_tail(state, r):
    while True:
        a = -math.log(_uniform_open(state)) / r
        b = -math.log(_uniform_open(state))
        if b + b > a * a:
            return r + a


@cuda.jit(device=True)
def _standard_normal(state):
    """Ziggurat on the CPU tables (``_random.standard_normal``)."""
    while True:
        bits = _next_uint64(state)
        layer = int64(bits & _MASK_8)
        negative = ((bits >> _SHIFT_8) & _ONE) == _ONE
        x = float64(bits >> _SHIFT_11) * _TWO_POW_MINUS_53 * _ZX[layer]
        if x < _ZX[layer + 1]:
            return -x if negative else x
        if layer == 0:
            x = _normal_tail(state, _ZX[1])
            return -x if negative else x
        bottom = _ZF[layer]
        height = bottom + _uniform_open(state) * (_ZF[layer + 1] - bottom)
        if height < math.exp(-0.5 * x * x):
            return -x if negative else x


@cuda.jit(device=True)
def _standard_gamma(state, shape):
    if shape == 1.0:
        return -math.log(_uniform_open(state))
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = _standard_normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = _uniform_open(state)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return d * v
        if math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
            return d * v


# ---------------------------------------------------------------- normal quantile (AS 241)

@cuda.jit(device=True)
def _central(q):
    r = 0.180625 - q * q
    num = (((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r
                + 6.7265770927008700853e+4) * r + 4.5921953931549871457e+4) * r
              + 1.3731693765509461125e+4) * r + 1.9715909503065514427e+3) * r
            + 1.3314166789178437745e+2) * r + 3.3871328727963666080e+0)
    den = (((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r
                + 3.9307895800092710610e+4) * r + 2.1213794301586595867e+4) * r
              + 5.3941960214247511077e+3) * r + 6.8718700749205790830e+2) * r
            + 4.2313330701600911252e+1) * r + 1.0)
    return q * num / den


@cuda.jit(device=True)
def _tail(s):
    if s <= 5.0:
        r = s - 1.6
        num = (((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r
                    + 2.41780725177450611770e-1) * r + 1.27045825245236838258e+0) * r
                  + 3.64784832476320460504e+0) * r + 5.76949722146069140550e+0) * r
                + 4.63033784615654529590e+0) * r + 1.42343711074968357734e+0)
        den = (((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r
                    + 1.51986665636164571966e-2) * r + 1.48103976427480074590e-1) * r
                  + 6.89767334985100004550e-1) * r + 1.67638483018380384940e+0) * r
                + 2.05319162663775882187e+0) * r + 1.0)
        return num / den
    r = s - 5.0
    num = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
                + 1.24266094738807843860e-3) * r + 2.65321895265761230930e-2) * r
              + 2.96560571828504891230e-1) * r + 1.78482653991729133580e+0) * r
            + 5.46378491116411436990e+0) * r + 6.65790464350110377720e+0)
    den = (((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r
                + 1.84631831751005468180e-5) * r + 7.86869131145613259100e-4) * r
              + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r
            + 5.99832206555887937690e-1) * r + 1.0)
    return num / den


@cuda.jit(device=True)
def _far_lower_quantile(log_p):
    """Newton on the asymptotic series of log Phi (``_special._far_lower_quantile``)."""
    if log_p == -_INF:
        return -_INF
    x = -math.sqrt(-2.0 * log_p - math.log(-4.0 * math.pi * log_p))
    for _ in range(6):
        z = 1.0 / (x * x)
        series = 1.0 + z * (-1.0 + z * (3.0 + z * (-15.0 + z * (105.0 + z * (
            -945.0 + z * (10395.0 - 135135.0 * z))))))
        slope = -1.0 + z * (6.0 + z * (-45.0 + z * (420.0 + z * (-4725.0 + z * (
            62370.0 - 945945.0 * z)))))
        value = -0.5 * x * x - math.log(-x) - 0.5 * _LOG_TWO_PI + math.log(series)
        derivative = -x - 1.0 / x + slope * (-2.0 * z / x) / series
        step = (value - log_p) / derivative
        x -= step
        if abs(step) <= 1e-15 * abs(x):
            break
    return x


@cuda.jit(device=True)
def _normal_quantile(p):
    q = p - 0.5
    if abs(q) <= 0.425:
        return _central(q)
    if q < 0.0:
        return -_tail(math.sqrt(-math.log(p)))
    return _tail(math.sqrt(-math.log1p(-p)))


@cuda.jit(device=True)
def _normal_quantile_from_log_cdf(log_p):
    if log_p < _LOG_HALF:
        p = math.exp(log_p)
        if p >= 0.075:
            return _central(p - 0.5)
        if log_p < _NEWTON_BELOW:
            return _far_lower_quantile(log_p)
        return -_tail(math.sqrt(-log_p))
    survival = -math.expm1(log_p)
    if survival >= 0.075:
        return _central(0.5 - survival)
    if survival == 0.0:
        return _INF
    log_survival = math.log(survival)
    if log_survival < _NEWTON_BELOW:
        return -_far_lower_quantile(log_survival)
    return _tail(math.sqrt(-log_survival))


@cuda.jit(device=True)
def _truncated_normal_below(state, threshold, log_cdf_threshold):
    if log_cdf_threshold >= _LOG_QUARTER:
        while True:
            w = _standard_normal(state)
            if w <= threshold:
                return w
    return _normal_quantile_from_log_cdf(log_cdf_threshold + math.log(_uniform_open(state)))


# ---------------------------------------------------------------- one loss (as _kernels)

@cuda.jit(device=True)
def _lse_add(running_max, running_sum, value):
    if value > running_max:
        running_sum = running_sum * math.exp(running_max - value) + 1.0
        running_max = value
    else:
        running_sum += math.exp(value - running_max)
    return running_max, running_sum


@cuda.jit(device=True)
def _conditioned_maximum(state, steps, mass):
    return math.log1p(-_uniform_open(state) * mass) / steps


@cuda.jit(device=True)
def _naive_one(state, inv_sigma, inv_variance, steps, remove):
    running_max = -_INF
    running_sum = 0.0
    for t in range(steps):
        value = _standard_normal(state) * inv_sigma
        if remove and t == 0:
            value += inv_variance
        running_max, running_sum = _lse_add(running_max, running_sum, value)
    return running_max + math.log(running_sum)


@cuda.jit(device=True)
def _importance_add_one(state, inv_sigma, steps, threshold, log_cdf_threshold):
    running_max = -_INF
    running_sum = 0.0
    for _ in range(steps):
        w = _truncated_normal_below(state, threshold, log_cdf_threshold)
        running_max, running_sum = _lse_add(running_max, running_sum, w * inv_sigma)
    return running_max + math.log(running_sum)


@cuda.jit(device=True)
def _importance_remove_one(state, inv_sigma, inv_variance, steps, mass):
    log_u_star = _conditioned_maximum(state, steps, mass)
    w_star = _normal_quantile_from_log_cdf(log_u_star)
    star = 0
    if steps > 1 and _uniform_open(state) >= 1.0 / steps:
        star = 1
    running_max = -_INF
    running_sum = 0.0
    for t in range(steps):
        if t == star:
            w = w_star
        else:
            w = _truncated_normal_below(state, w_star, log_u_star)
        value = w * inv_sigma
        if t == 0:
            value += inv_variance
        running_max, running_sum = _lse_add(running_max, running_sum, value)
    return running_max + math.log(running_sum)


@cuda.jit(device=True)
def _accumulate_orders(state, orders, n_orders, draws, log_weights, log_cdf_bound, inv_sigma,
                       gaps, rest, running_max, running_sum):
    """As ``_kernels._accumulate_orders`` (exponential spacings; see its docstring)."""
    previous = 0
    for i in range(n_orders):
        k = orders[i]
        gaps[i] = _standard_gamma(state, float64(k - previous))
        previous = k
    suffix = _standard_gamma(state, float64(draws + 1 - previous))
    for i in range(n_orders - 1, -1, -1):
        rest[i] = suffix
        suffix += gaps[i]
    total = suffix
    inv_total = 1.0 / total
    log_total = math.log(total)
    u0 = math.exp(log_cdf_bound)
    s0 = -math.expm1(log_cdf_bound)
    prefix = 0.0
    for i in range(n_orders):
        prefix += gaps[i]
        survival = s0 + u0 * (prefix * inv_total)
        if survival <= 0.5:
            y = -_normal_quantile(survival)
        else:
            y = _normal_quantile_from_log_cdf(log_cdf_bound + math.log(rest[i]) - log_total)
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            log_weights[i] + y * inv_sigma)
    return running_max, running_sum


@cuda.jit(device=True)
def _order_statistics_one(state, inv_sigma, inv_variance, steps, remove, importance,
                          threshold_parameter, orders, log_lower, log_upper_1, log_upper_2,
                          gaps, rest):
    """Bound (4) (remove) or (5) (add) on log S(x), as ``_kernels._order_statistics_one``."""
    running_max = -_INF
    running_sum = 0.0
    if not remove:
        log_cdf = threshold_parameter if importance else 0.0
        running_max, running_sum = _accumulate_orders(
            state, orders, log_lower.shape[0], steps, log_lower, log_cdf, inv_sigma, gaps, rest,
            running_max, running_sum)
        return running_max + math.log(running_sum)
    if not importance:
        value = inv_variance + _standard_normal(state) * inv_sigma
        running_max, running_sum = _lse_add(running_max, running_sum, value)
        running_max, running_sum = _accumulate_orders(
            state, orders, log_upper_1.shape[0], steps - 1, log_upper_1, 0.0, inv_sigma, gaps,
            rest, running_max, running_sum)
        return running_max + math.log(running_sum)
    log_u_star = _conditioned_maximum(state, steps, threshold_parameter)
    w_star = _normal_quantile_from_log_cdf(log_u_star)
    if _uniform_open(state) < 1.0 / steps:
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            inv_variance + w_star * inv_sigma)
        running_max, running_sum = _accumulate_orders(
            state, orders, log_upper_1.shape[0], steps - 1, log_upper_1, log_u_star, inv_sigma,
            gaps, rest, running_max, running_sum)
    else:
        running_max, running_sum = _lse_add(running_max, running_sum, w_star * inv_sigma)
        w_first = _truncated_normal_below(state, w_star, log_u_star)
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            inv_variance + w_first * inv_sigma)
        running_max, running_sum = _accumulate_orders(
            state, orders, log_upper_2.shape[0], steps - 2, log_upper_2, log_u_star, inv_sigma,
            gaps, rest, running_max, running_sum)
    return running_max + math.log(running_sum)


# ---------------------------------------------------------------- output of one sample

@cuda.jit(device=True)
def _clear(g, epsilons, totals, squares):
    for j in range(epsilons.shape[0]):
        totals[j, g] = 0.0
        squares[j, g] = 0.0


@cuda.jit(device=True)
def _record(loss, g, position, out, epsilons, totals, squares):
    """Store the loss (raw mode) or add its Z_j and Z_j^2 to the thread's column."""
    n_eps = epsilons.shape[0]
    if n_eps == 0:
        out[position] = loss
        return
    for j in range(n_eps):
        eps = epsilons[j]
        if loss > eps:
            z = -math.expm1(eps - loss)
            totals[j, g] += z
            squares[j, g] += z * z


# ---------------------------------------------------------------- kernels

@cuda.jit
def coordinate_kernel(params, steps, epochs, remove, importance, chunk_states, first_chunk,
                      samples, samples_per_chunk, out, epsilons, totals, squares):
    """Naive (Alg. 4, k epochs by Alg. 11) or importance (Alg. 5 + 10) samples.

    params = (inv_sigma, inv_variance, offset, threshold, threshold_parameter) with
    offset = log T + 1/(2 sigma^2); threshold and threshold_parameter as in
    ``_kernels.coordinate_kernel``. out[i - first_chunk * samples_per_chunk] = loss i.
    """
    g = cuda.grid(1)
    if g >= chunk_states.shape[0]:
        return
    state = cuda.local.array(4, uint64)
    for j in range(4):
        state[j] = chunk_states[g, j]
    inv_sigma = params[0]
    inv_variance = params[1]
    offset = params[2]
    threshold = params[3]
    threshold_parameter = params[4]
    _clear(g, epsilons, totals, squares)
    chunk = first_chunk + g
    start = chunk * samples_per_chunk
    stop = min(start + samples_per_chunk, samples)
    base = first_chunk * samples_per_chunk
    for i in range(start, stop):
        total = 0.0
        for _ in range(epochs):
            if importance:
                if remove:
                    log_sum = _importance_remove_one(state, inv_sigma, inv_variance, steps,
                                                     threshold_parameter)
                else:
                    log_sum = _importance_add_one(state, inv_sigma, steps, threshold,
                                                  threshold_parameter)
            else:
                log_sum = _naive_one(state, inv_sigma, inv_variance, steps, remove)
            if remove:
                total += log_sum - offset
            else:
                total += offset - log_sum
        _record(total, g, i - base, out, epsilons, totals, squares)


@cache
def order_statistics_kernel(capacity: int):
    """The order-statistics kernel with per-thread scratch for up to ``capacity`` orders
    (a compile-time size: one kernel per power of two)."""

    @cuda.jit
    def kernel(params, steps, epochs, remove, importance, orders, log_lower, log_upper_1,
               log_upper_2, chunk_states, first_chunk, samples, samples_per_chunk, out,
               epsilons, totals, squares):
        """Pessimistic loss samples (Alg. 6, bounds (4)/(5); Appendix B.3 with importance);
        params as in ``coordinate_kernel`` (threshold unused)."""
        g = cuda.grid(1)
        if g >= chunk_states.shape[0]:
            return
        state = cuda.local.array(4, uint64)
        for j in range(4):
            state[j] = chunk_states[g, j]
        gaps = cuda.local.array(capacity, float64)
        rest = cuda.local.array(capacity, float64)
        inv_sigma = params[0]
        inv_variance = params[1]
        offset = params[2]
        threshold_parameter = params[4]
        _clear(g, epsilons, totals, squares)
        chunk = first_chunk + g
        start = chunk * samples_per_chunk
        stop = min(start + samples_per_chunk, samples)
        base = first_chunk * samples_per_chunk
        for i in range(start, stop):
            total = 0.0
            for _ in range(epochs):
                log_sum = _order_statistics_one(
                    state, inv_sigma, inv_variance, steps, remove, importance,
                    threshold_parameter, orders, log_lower, log_upper_1, log_upper_2, gaps,
                    rest)
                if remove:
                    total += log_sum - offset
                else:
                    total += offset - log_sum
            _record(total, g, i - base, out, epsilons, totals, squares)

    return kernel


def scratch_capacity(n_orders: int) -> int:
    """Compile-time scratch length for ``n_orders`` orders: the next power of two >= 16."""
    return max(16, 1 << (int(n_orders) - 1).bit_length())
