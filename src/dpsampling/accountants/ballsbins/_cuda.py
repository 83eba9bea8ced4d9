"""CUDA entry points (numba.cuda) for the balls-and-bins privacy-loss Monte Carlo; private.

Importing this module imports numba.cuda: only ``cuda.py`` imports it, inside functions.

One kernel body: the entry points call the CPU kernels' per-sample functions
(``_kernels.coordinate_loss`` and ``_kernels.order_statistics_loss``, with ``_random`` and
``_special`` below them), which numba-cuda compiles for the device from their Python source.
So both devices draw the same laws (eqs. (2), (3); bounds (4)/(5); the importance events of
``importance.py``) with the same variate algorithms and the same generator, xoshiro256**, from
the same per-chunk states. One GPU thread runs one chunk of ``samples_per_chunk`` samples from
``chunk_states[c]`` in the CPU's order, so it draws the CPU kernel's stream for that chunk: the
numbers equal the CPU's up to the rounding of the device's exp/log and of contracted
multiply-adds (a different rounding can, very rarely, flip a rejection step and desynchronise
the rest of that chunk; the law is unchanged). Under the simulator they are equal bit for bit.

Both entry points compile to PTX for sm_90 with numba-cuda 0.30.4 (checked by
``tests/accountants/ballsbins/cuda/test_ballsbins_cuda.py`` when NVVM is installed); the order-statistics kernel
uses 2 x 8 x capacity bytes of local memory per thread (16 KiB for up to 1024 orders).

Nothing depends on the launch configuration: thread g of a launch handles global chunk
``first_chunk + g`` and writes only its own outputs (no atomics, no shared reductions).

Statistics mode (``epsilons`` non-empty): instead of writing losses, thread g accumulates,
for every eps_j, sum_i Z_ij and sum_i Z_ij^2 with Z_ij = [1 - e^{eps_j - L_i}]_+ over its
chunk (sequentially) into ``sums[0, j, g]`` and ``sums[1, j, g]`` (eps-major, so a warp's
stores are coalesced).
"""

from __future__ import annotations

import math
from functools import cache

from numba import cuda, float64, uint64

from dpsampling.accountants.ballsbins._kernels import (
    FIRST_CHUNK,
    SAMPLES,
    SAMPLES_PER_CHUNK,
    coordinate_loss,
    order_statistics_loss,
)

THREADS_PER_BLOCK = 128
SIMULATOR = "simulator" in getattr(cuda.is_available, "__module__", "")

if SIMULATOR:
    def _plain(array):
        """The simulator hands kernels wrapped arrays; the @njit functions take the ndarray."""
        return array._item._ary
else:
    @cuda.jit(device=True, inline="always")
    def _plain(array):
        """On the device an argument array is already one."""
        return array


@cuda.jit(device=True)
def _begin(g, chunk_states, settings, state, epsilons, sums):
    """Thread g: copy its chunk's xoshiro256** state into ``state``, clear its statistics and
    return (first sample, end, position in ``out`` of sample 0 of this launch)."""
    for j in range(4):
        state[j] = chunk_states[g, j]
    for j in range(epsilons.shape[0]):
        sums[0, j, g] = 0.0
        sums[1, j, g] = 0.0
    per_chunk = settings[SAMPLES_PER_CHUNK]
    base = settings[FIRST_CHUNK] * per_chunk
    start = base + g * per_chunk
    return start, min(start + per_chunk, settings[SAMPLES]), base


@cuda.jit(device=True)
def _record(loss, g, position, out, epsilons, sums):
    """Store the loss (raw mode) or add its Z_j and Z_j^2 to the thread's column."""
    n_eps = epsilons.shape[0]
    if n_eps == 0:
        out[position] = loss
        return
    for j in range(n_eps):
        eps = epsilons[j]
        if loss > eps:
            z = -math.expm1(eps - loss)
            sums[0, j, g] += z
            sums[1, j, g] += z * z


@cuda.jit
def coordinate_kernel(params, settings, chunk_states, out, epsilons, sums):
    """``_kernels.coordinate_loss`` (naive or importance, k epochs) for the chunks of this
    launch; params and settings from ``_kernels.kernel_scalars`` and ``chunking``.
    Raw mode: out[i - first_chunk * samples_per_chunk] = loss i."""
    g = cuda.grid(1)
    if g >= chunk_states.shape[0]:
        return
    state = cuda.local.array(4, uint64)
    params, settings = _plain(params), _plain(settings)
    start, stop, base = _begin(g, chunk_states, settings, state, epsilons, sums)
    for i in range(start, stop):
        _record(coordinate_loss(state, params, settings), g, i - base, out, epsilons, sums)


@cache
def order_statistics_kernel(capacity: int):
    """The order-statistics entry point with per-thread scratch for up to ``capacity`` orders
    (a compile-time size: one kernel per power of two)."""

    @cuda.jit
    def kernel(params, settings, orders, log_weights, chunk_states, out, epsilons, sums):
        """``_kernels.order_statistics_loss`` (Alg. 6, bounds (4)/(5); Appendix B.3 with
        importance) for the chunks of this launch, as ``coordinate_kernel``; log_weights from
        ``_kernels.order_log_weights``."""
        g = cuda.grid(1)
        if g >= chunk_states.shape[0]:
            return
        state = cuda.local.array(4, uint64)
        scratch = cuda.local.array((2, capacity), float64)
        params, settings = _plain(params), _plain(settings)
        orders, log_weights = _plain(orders), _plain(log_weights)
        start, stop, base = _begin(g, chunk_states, settings, state, epsilons, sums)
        for i in range(start, stop):
            loss = order_statistics_loss(state, params, settings, orders, log_weights, scratch)
            _record(loss, g, i - base, out, epsilons, sums)

    return kernel


def scratch_capacity(n_orders: int) -> int:
    """Compile-time scratch length for ``n_orders`` orders: the next power of two >= 16."""
    return max(16, 1 << (int(n_orders) - 1).bit_length())
