"""Numba kernels: one privacy-loss sample per row, O(T) (or O(r)) work and O(1) memory each.

Coordinates are standardised: w_t = x_t / sigma for the noise part, so x_t / sigma^2 =
w_t / sigma (+ 1/sigma^2 on the coordinate that carries the differing example). The sum
S(x) = sum_t exp(x_t / sigma^2) is accumulated as a running log-sum-exp (one pass, no
array of coordinates is ever held), and

    L_{P||Q}(x) = log S(x) - log T - 1/(2 sigma^2)          (eq. (2), remove)
    L_{Q||P}(x) = log T + 1/(2 sigma^2) - log S(x)          (eq. (3), add).

Order statistics (Alg. 6) are drawn through the exponential spacings (Renyi) representation
of uniform order statistics, the same joint law as Alg. 6's Beta products: with E_1, E_2, ...
i.i.d. Exp(1) and S_j = E_1 + ... + E_j, the survival probabilities 1 - Phi(y(k)) of the
k-th largest of R standard normals are jointly (S_k / S_{R+1})_k. So the increments
S_{k_i} - S_{k_{i-1}} ~ Gamma(k_i - k_{i-1}) and S_{R+1} - S_{k_r} ~ Gamma(R + 1 - k_r) are
independent, and Alg. 6's z_i = (S_{R+1} - S_{k_i}) / (S_{R+1} - S_{k_{i-1}}) ~
Beta(R - k_i + 1, k_i - k_{i-1}). Conditioning every coordinate on Phi(w) <= u0
(importance sampling) maps U to u0 U: 1 - Phi(y(k)) = (1 - u0) + u0 S_k / S_{R+1}. Small
survival probabilities come from S_k, small CDF values from S_{R+1} - S_k (summed from the
right), so neither loses precision to cancellation.

Work is cut into fixed-size chunks; chunk c fills out[c*chunk:(c+1)*chunk] from its own
xoshiro256** state ``chunk_states[c]``, so the output does not depend on the thread count
(``prange`` only decides which thread runs which chunk). For k epochs each row is the sum of
k independent losses (Alg. 11). Private: the public wrappers in ``sampling`` validate inputs.

One kernel body for both devices: ``coordinate_loss`` and ``order_statistics_loss`` draw one
sample; the parallel CPU entry points below and the CUDA entry points (``_cuda``) only loop
over chunks and call them, numba-cuda compiling them (and ``_random``, ``_special``) for the
device from their source. So they carry no explicit signature and allocate nothing (the
caller passes the scratch), and kernel scalars travel as two arrays (``kernel_scalars``).

The kernels are cached on disk (``cache=True``). Numba checks only the kernel's own file for
changes, so the kernels are closures over ``DEPENDENCY_STAMP``, a hash of the modules they
call (``_random``, ``_special``): Numba's cache key includes closure values, so editing those
modules recompiles the kernels instead of loading stale machine code.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
from numba import njit, prange

from dpsampling.accountants.ballsbins import _random, _special
from dpsampling.accountants.ballsbins._random import (
    standard_gamma,
    standard_normal,
    truncated_normal_below,
    uniform_open,
)
from dpsampling.accountants.ballsbins._special import normal_quantile, normal_quantile_from_log_cdf


def source_stamp(*modules) -> int:
    """A non-negative 60-bit hash of the source files of ``modules``."""
    digest = hashlib.sha256()
    for module in modules:
        digest.update(Path(module.__file__).read_bytes())
    return int.from_bytes(digest.digest()[:8], "little") >> 4


DEPENDENCY_STAMP = source_stamp(_random, _special)


@njit(inline="always")
def _lse_add(running_max, running_sum, value):
    """Add exp(value) to the log-sum-exp accumulator (running_max, running_sum)."""
    if value > running_max:
        running_sum = running_sum * math.exp(running_max - value) + 1.0
        running_max = value
    else:
        running_sum += math.exp(value - running_max)
    return running_max, running_sum


@njit(error_model="numpy")
def _conditioned_maximum(state, steps, mass):
    """log Phi(w*) for the maximum w* of T standard normals conditioned on w* >= C.

    ``mass`` = 1 - Phi(C)^T. Phi(w*)^T is uniform on [Phi(C)^T, 1], i.e.
    Phi(w*)^T = 1 - V * mass with V uniform (Alg. 10, first line).
    """
    return math.log1p(-uniform_open(state) * mass) / steps


# Kernel scalars, bundled so that no function takes more than 8 parameters (``kernel_scalars``):
# ``params`` (float64) holds 1/sigma, 1/sigma^2, the offset log T + 1/(2 sigma^2) and the two
# importance constants; ``settings`` (int64) holds T, k (epochs), the direction and method flags
# and the chunking (samples, samples per chunk, first chunk of this launch).
INV_SIGMA, INV_VARIANCE, OFFSET, THRESHOLD, THRESHOLD_PARAMETER = range(5)
STEPS, EPOCHS, REMOVE, IMPORTANCE, SAMPLES, SAMPLES_PER_CHUNK, FIRST_CHUNK = range(7)
# Rows of the order-statistics log weights (``order_log_weights``).
LOWER, UPPER_1, UPPER_2 = range(3)


def kernel_scalars(sigma, steps, epochs, flags, threshold, threshold_parameter):
    """(params, settings) for the kernels; flags = (remove, importance).

    threshold / threshold_parameter: add -> C / sigma and log Phi(C / sigma); remove ->
    unused and 1 - Phi(C / sigma)^T (zeros without importance sampling). The chunking entries
    of ``settings`` are zero: ``chunking`` fills them in.
    """
    inv_sigma = 1.0 / sigma
    inv_variance = inv_sigma * inv_sigma
    params = np.array([inv_sigma, inv_variance, math.log(steps) + 0.5 * inv_variance,
                       threshold, threshold_parameter], dtype=np.float64)
    remove, importance = flags
    settings = np.array([steps, epochs, int(remove), int(importance), 0, 0, 0], dtype=np.int64)
    return params, settings


def chunking(settings, samples, samples_per_chunk, first_chunk=0):
    """A copy of ``settings`` for ``samples`` samples cut into chunks of ``samples_per_chunk``,
    of which this launch runs chunks first_chunk, first_chunk + 1, ..."""
    settings = settings.copy()
    settings[SAMPLES:] = samples, samples_per_chunk, first_chunk
    return settings


@njit(error_model="numpy")
def _naive_one(state, params, steps, remove):
    """log S(x) for x ~ P_1 (remove) or x ~ Q_B (add)."""
    inv_sigma = params[INV_SIGMA]
    running_max = -np.inf
    running_sum = 0.0
    for t in range(steps):
        value = standard_normal(state) * inv_sigma
        if remove and t == 0:
            value += params[INV_VARIANCE]
        running_max, running_sum = _lse_add(running_max, running_sum, value)
    return running_max + math.log(running_sum)


@njit(error_model="numpy")
def _importance_add_one(state, params, steps):
    """log S(x) for x ~ Q_B conditioned on max_t x_t <= C (coordinates i.i.d. truncated);
    params[THRESHOLD] = C / sigma, params[THRESHOLD_PARAMETER] = log Phi(C / sigma)."""
    inv_sigma = params[INV_SIGMA]
    threshold = params[THRESHOLD]
    log_cdf_threshold = params[THRESHOLD_PARAMETER]
    running_max = -np.inf
    running_sum = 0.0
    for _ in range(steps):
        w = truncated_normal_below(state, threshold, log_cdf_threshold)
        running_max, running_sum = _lse_add(running_max, running_sum, w * inv_sigma)
    return running_max + math.log(running_sum)


@njit(error_model="numpy")
def _importance_remove_one(state, params, steps):
    """log S(x) for x ~ P_1 conditioned on max_t (x - e_1)_t >= C (Alg. 10 on x - e_1);
    params[THRESHOLD_PARAMETER] = 1 - Phi(C / sigma)^T."""
    inv_sigma = params[INV_SIGMA]
    log_u_star = _conditioned_maximum(state, steps, params[THRESHOLD_PARAMETER])
    w_star = normal_quantile_from_log_cdf(log_u_star)
    star = 0
    if steps > 1 and uniform_open(state) >= 1.0 / steps:
        star = 1  # by symmetry any t* != 1 may be taken to be the second coordinate
    running_max = -np.inf
    running_sum = 0.0
    for t in range(steps):
        if t == star:
            w = w_star
        else:
            w = truncated_normal_below(state, w_star, log_u_star)
        value = w * inv_sigma
        if t == 0:
            value += params[INV_VARIANCE]
        running_max, running_sum = _lse_add(running_max, running_sum, value)
    return running_max + math.log(running_sum)


@njit(error_model="numpy")
def _accumulate_orders(state, orders, log_weights, draws, log_cdf_bound, inv_sigma, scratch,
                       accumulator):
    """Add sum_i exp(log_weights[i] + y(k_i) / sigma) to the log-sum-exp ``accumulator``
    (running_max, running_sum), y(k) the k-th largest of ``draws`` i.i.d. N(0, 1) conditioned
    on Phi(w) <= u0 = exp(log_cdf_bound) (log_cdf_bound = 0: no conditioning), for the first
    log_weights.shape[0] orders; spacings as in the module docstring. ``scratch``: float64
    (2, >= that many) for the gaps S_{k_i} - S_{k_{i-1}} and the rests S_{R+1} - S_{k_i}."""
    n_orders = log_weights.shape[0]
    previous = 0
    for i in range(n_orders):
        k = orders[i]
        scratch[0, i] = standard_gamma(state, float(k - previous))
        previous = k
    suffix = standard_gamma(state, float(draws + 1 - previous))  # S_{R+1} - S_{k_r}
    for i in range(n_orders - 1, -1, -1):
        scratch[1, i] = suffix  # S_{R+1} - S_{k_i}
        suffix += scratch[0, i]
    total = suffix  # S_{R+1}
    inv_total = 1.0 / total
    log_total = math.log(total)
    u0 = math.exp(log_cdf_bound)
    s0 = -math.expm1(log_cdf_bound)
    running_max, running_sum = accumulator
    prefix = 0.0
    for i in range(n_orders):
        prefix += scratch[0, i]  # S_{k_i}
        survival = s0 + u0 * (prefix * inv_total)
        if survival <= 0.5:
            y = -normal_quantile(survival)
        else:
            y = normal_quantile_from_log_cdf(log_cdf_bound + math.log(scratch[1, i]) - log_total)
        running_max, running_sum = _lse_add(running_max, running_sum,
                                            log_weights[i] + y * inv_sigma)
    return running_max, running_sum


@njit(inline="always")
def _weights(orders, log_weights, row, bound):
    """Row ``row`` of ``log_weights`` for the orders k_i <= bound (orders ascend)."""
    count = orders.shape[0]
    while count > 0 and orders[count - 1] > bound:
        count -= 1
    return log_weights[row, :count]


@njit(error_model="numpy")
def _order_statistics_one(state, params, settings, orders, log_weights, scratch):
    """Bound on log S(x): upper (4) for remove (R = T - 1 plus x_1), lower (5) for add (R = T).

    Weights (rows of ``log_weights``, see ``order_log_weights``): upper (4): k_{i+1} - k_i with
    k_{r+1} := R + 1 (so that rank R itself is covered), for R = T - 1 (UPPER_1) and R = T - 2
    (UPPER_2, orders <= T - 2); lower (5): k_i - k_{i-1} with k_0 := 0 (LOWER).
    """
    inv_sigma = params[INV_SIGMA]
    inv_variance = params[INV_VARIANCE]
    threshold_parameter = params[THRESHOLD_PARAMETER]
    steps = settings[STEPS]
    importance = settings[IMPORTANCE] != 0
    accumulator = (-np.inf, 0.0)
    if settings[REMOVE] == 0:
        log_cdf = threshold_parameter if importance else 0.0
        running_max, running_sum = _accumulate_orders(
            state, orders, _weights(orders, log_weights, LOWER, steps), steps, log_cdf,
            inv_sigma, scratch, accumulator)
        return running_max + math.log(running_sum)
    if not importance:
        value = inv_variance + standard_normal(state) * inv_sigma
        accumulator = _lse_add(accumulator[0], accumulator[1], value)
        running_max, running_sum = _accumulate_orders(
            state, orders, _weights(orders, log_weights, UPPER_1, steps - 1), steps - 1, 0.0,
            inv_sigma, scratch, accumulator)
        return running_max + math.log(running_sum)
    # Appendix B.3, remove direction, with the conditioning of the other coordinates on
    # w <= w* made explicit (all coordinates of w = x - e_1 lie below the maximum w*).
    log_u_star = _conditioned_maximum(state, steps, threshold_parameter)
    w_star = normal_quantile_from_log_cdf(log_u_star)
    if uniform_open(state) < 1.0 / steps:
        accumulator = _lse_add(accumulator[0], accumulator[1], inv_variance + w_star * inv_sigma)
        running_max, running_sum = _accumulate_orders(
            state, orders, _weights(orders, log_weights, UPPER_1, steps - 1), steps - 1,
            log_u_star, inv_sigma, scratch, accumulator)
    else:
        accumulator = _lse_add(accumulator[0], accumulator[1], w_star * inv_sigma)
        w_first = truncated_normal_below(state, w_star, log_u_star)
        accumulator = _lse_add(accumulator[0], accumulator[1], inv_variance + w_first * inv_sigma)
        running_max, running_sum = _accumulate_orders(
            state, orders, _weights(orders, log_weights, UPPER_2, steps - 2), steps - 2,
            log_u_star, inv_sigma, scratch, accumulator)
    return running_max + math.log(running_sum)


@njit(error_model="numpy")
def coordinate_loss(state, params, settings):
    """One naive (Alg. 4) or importance (Alg. 5 + 10) loss sample, all T coordinates drawn;
    the sum of k independent losses for k epochs (Alg. 11). Shared by the CPU and CUDA kernels."""
    steps = settings[STEPS]
    remove = settings[REMOVE] != 0
    importance = settings[IMPORTANCE] != 0
    offset = params[OFFSET]
    total = 0.0
    for _ in range(settings[EPOCHS]):
        if importance:
            if remove:
                log_sum = _importance_remove_one(state, params, steps)
            else:
                log_sum = _importance_add_one(state, params, steps)
        else:
            log_sum = _naive_one(state, params, steps, remove)
        total += (log_sum - offset) if remove else (offset - log_sum)
    return total


@njit(error_model="numpy")
def order_statistics_loss(state, params, settings, orders, log_weights, scratch):
    """One pessimistic loss sample from order statistics (Alg. 6, bounds (4)/(5)), optionally
    with importance sampling (Appendix B.3); never below the exact loss of the same draw. Sum
    over k epochs. ``scratch``: float64 (2, >= len(orders)). Shared by the CPU and CUDA kernels."""
    remove = settings[REMOVE] != 0
    offset = params[OFFSET]
    total = 0.0
    for _ in range(settings[EPOCHS]):
        log_sum = _order_statistics_one(state, params, settings, orders, log_weights, scratch)
        total += (log_sum - offset) if remove else (offset - log_sum)
    return total


def order_log_weights(orders: np.ndarray, steps: int) -> np.ndarray:
    """float64 (3, r): rows LOWER, UPPER_1, UPPER_2 = log weights of bound (5) (R = T) and of
    bound (4) (R = T - 1 and R = T - 2; only the orders <= R take part, the rest of the row is 0)."""
    orders = np.asarray(orders, dtype=np.int64)
    weights = np.zeros((3, orders.size))
    weights[LOWER] = np.log(np.diff(orders, prepend=0).astype(np.float64))
    for row, big_r in ((UPPER_1, steps - 1), (UPPER_2, steps - 2)):
        kept = orders[orders <= big_r]
        weights[row, :kept.size] = np.log(np.diff(kept, append=big_r + 1).astype(np.float64))
    return weights


def _compile(stamp: int):
    """The parallel entry points, as closures over ``stamp`` (see module docstring)."""

    @njit(parallel=True, cache=True, error_model="numpy")
    def coordinate_kernel(params, settings, chunk_states, out):
        """``coordinate_loss`` for every sample of the chunks of ``chunk_states``:
        out[i - first_chunk * samples_per_chunk] = loss i (``settings``, ``kernel_scalars``)."""
        if stamp < 0:  # never true: keeps the dependency stamp in Numba's cache key
            return
        samples, per_chunk, first = settings[SAMPLES], settings[SAMPLES_PER_CHUNK], settings[FIRST_CHUNK]
        for chunk in prange(chunk_states.shape[0]):
            state = chunk_states[chunk].copy()
            start = (first + chunk) * per_chunk
            for i in range(start, min(start + per_chunk, samples)):
                out[i - first * per_chunk] = coordinate_loss(state, params, settings)

    @njit(parallel=True, cache=True, error_model="numpy")
    def order_statistics_kernel(params, settings, orders, log_weights, chunk_states, out):
        """``order_statistics_loss`` for every sample, as ``coordinate_kernel``; log_weights
        from ``order_log_weights``."""
        if stamp < 0:  # never true: keeps the dependency stamp in Numba's cache key
            return
        samples, per_chunk, first = settings[SAMPLES], settings[SAMPLES_PER_CHUNK], settings[FIRST_CHUNK]
        for chunk in prange(chunk_states.shape[0]):
            state = chunk_states[chunk].copy()
            scratch = np.empty((2, orders.shape[0]))
            start = (first + chunk) * per_chunk
            for i in range(start, min(start + per_chunk, samples)):
                out[i - first * per_chunk] = order_statistics_loss(state, params, settings, orders,
                                                                   log_weights, scratch)

    return coordinate_kernel, order_statistics_kernel


coordinate_kernel, order_statistics_kernel = _compile(DEPENDENCY_STAMP)


@njit(parallel=True, cache=True)
def loss_statistics_kernel(losses, epsilons, totals, squares):
    """For every eps: sum and sum of squares of Z = [1 - exp(eps - L)]_+ over the losses."""
    for j in prange(epsilons.shape[0]):
        eps = epsilons[j]
        total = 0.0
        square = 0.0
        for loss in losses:
            if loss > eps:
                z = -math.expm1(eps - loss)
                total += z
                square += z * z
        totals[j] = total
        squares[j] = square
