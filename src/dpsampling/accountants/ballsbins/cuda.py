"""Balls-and-bins privacy-loss Monte Carlo on a CUDA GPU (numba-cuda; optional).

``sample_losses_cuda`` draws the same laws as ``sampling.sample_losses`` (same loss, same
pessimistic order-statistics bound, same importance events) and, for the same
(seed, samples, samples_per_chunk), the same random streams: chunk c of
``samples_per_chunk`` samples runs xoshiro256** from ``seed.generate_state(4 * n_chunks)``
row c (``sampling._chunk_states``) in one GPU thread, which runs the CPU kernels' own
per-sample functions compiled for the device (``_cuda``). So:

- the numbers depend on (seed, samples, samples_per_chunk) only: not on ``chunk_size`` (how
  many samples one launch holds in device memory), the block size or the GPU's scheduling;
  a rerun on the same device and numba-cuda version gives identical arrays;
- they match ``sample_losses`` with the same arguments up to rounding: the device's exp/log
  (libdevice) and the fused multiply-adds NVVM contracts differ from the CPU's in the last
  bits (rarely, such a difference flips a rejection step and the rest of that chunk differs;
  the law does not change). Under the simulator (host math) they are equal;
- independent shards: pass ``SeedSequence(...).spawn(n)`` children, as on the CPU.

``loss_statistics_cuda`` streams: each thread keeps, per eps of a grid, the sum and sum of
squares of Z = [1 - e^{eps - L}]_+ over its chunk; the host adds the per-chunk values in
chunk order (sequentially, so the result does not depend on ``chunk_size`` either) and
returns an ``estimates.DeltaEstimate`` (count, total, total_squares), which combines exactly
across shards by addition. No raw sample is stored: paper-scale runs need O(grid) memory.

Parallelism is one thread per chunk: use a smaller ``samples_per_chunk`` (e.g. 64) when
samples / samples_per_chunk is below a few hundred thousand threads; it changes the numbers
(it is part of the seed), not the law.

numba.cuda is imported only inside these functions: the package imports without numba-cuda.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import warnings
from contextlib import contextmanager

import numpy as np

from dpsampling.accountants.ballsbins.estimates import DeltaEstimate, _check_grid
from dpsampling.accountants.ballsbins.sampling import (
    DEFAULT_SAMPLES_PER_CHUNK,
    LossSamples,
    _check_memory,
    _chunk_states,
    _result,
    as_seed_sequence,
)
from dpsampling.lazy import lazy_import
from dpsampling.validation import check_int_at_least

_kernels = lazy_import("dpsampling.accountants.ballsbins._kernels")  # Numba: loaded by the first draw or reduction

CUDA_KERNEL_VERSION = 1
RNG = ("xoshiro256** per chunk of samples_per_chunk samples, one GPU thread per chunk, states "
       "from SeedSequence.generate_state (the CPU kernels' streams)")
_MEMORY_FRACTION = 0.5  # of the free device memory one launch may use
_MAX_LAUNCH_CHUNKS = 1 << 18  # threads per launch when chunk_size is not given


def _numba_cuda():
    """numba.cuda, or ImportError with the install hint (loaded at the first GPU use: importing it
    decides the simulator, and the package imports without numba-cuda)."""
    try:
        cuda = importlib.import_module("numba.cuda")
    except ImportError as error:  # pragma: no cover - depends on the install
        raise ImportError("the CUDA estimators need numba-cuda: pip install "
                          "'dpsampling[cuda]'") from error
    return cuda


def simulator_enabled() -> bool:
    """True when numba.cuda runs as Numba's CUDA simulator in this process (decided once, at
    the first import of numba.cuda, by NUMBA_ENABLE_CUDASIM=1)."""
    return "simulator" in getattr(_numba_cuda().is_available, "__module__", "")


def cuda_available() -> bool:
    """True when numba-cuda is installed and kernels can run: a CUDA GPU is visible or the
    simulator is enabled (``simulator_enabled``; slow, for tests only). ``gpu_visible`` is
    True only for a real GPU."""
    try:
        cuda = _numba_cuda()
        return bool(cuda.is_available())
    except Exception:
        return False


def gpu_visible() -> bool:
    """True when a real CUDA GPU is visible (the simulator does not count)."""
    return cuda_available() and not simulator_enabled()


def device_name() -> str:
    """The current device's name, 'CUDA simulator', or '' when none is available."""
    if not cuda_available():
        return ""
    if simulator_enabled():
        return "CUDA simulator"
    name = _numba_cuda().get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


@contextmanager
def _quiet_simulator():
    """The simulator runs the uint64 generator on numpy scalars, whose wrap-around (intended,
    as on the device) numpy reports as an overflow warning: silence exactly that."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
        yield


def _free_device_memory(cuda) -> float:
    free, _ = cuda.current_context().get_memory_info()
    return float(free)


def _is_out_of_memory(error: BaseException) -> bool:
    text = f"{type(error).__name__} {error}".upper()
    return "OUT_OF_MEMORY" in text or "OUT OF MEMORY" in text


def _validate(law, samples, seed, samples_per_chunk, chunk_size) -> dict:
    """Everything a launch needs, every argument checked before the device is touched."""
    law = law.checked()
    samples = check_int_at_least("samples", samples, 1)
    samples_per_chunk = check_int_at_least("samples_per_chunk", samples_per_chunk, 1)
    seed = as_seed_sequence(seed)
    if chunk_size is not None:
        chunk_size = check_int_at_least("chunk_size", chunk_size, samples_per_chunk)
    return dict(law.kernel_inputs(), law=law, samples=samples, seed=seed,
                samples_per_chunk=samples_per_chunk, chunk_size=chunk_size)


def _launch_chunks(chunk_size, samples, samples_per_chunk, bytes_per_chunk, free):
    """Chunks (threads) per launch: from ``chunk_size`` (samples per launch, rounded down to a
    multiple of samples_per_chunk) or, when None, as many as fit in half the free memory."""
    n_chunks = -(-samples // samples_per_chunk)
    fit = int(min(_MEMORY_FRACTION * free // bytes_per_chunk, n_chunks)) if math.isfinite(
        free) else n_chunks
    if chunk_size is None:
        if fit < 1:
            raise ValueError(f"samples_per_chunk must be small enough that one chunk fits in the "
                             f"free GPU memory ({int(free)} bytes); got {samples_per_chunk}")
        return max(1, min(fit, _MAX_LAUNCH_CHUNKS))
    chunk_size = check_int_at_least("chunk_size", chunk_size, samples_per_chunk)
    wanted = min(chunk_size // samples_per_chunk, n_chunks)
    if wanted > fit:
        raise ValueError(f"chunk_size must be at most {fit * samples_per_chunk} to fit in the "
                         f"free GPU memory ({int(free)} bytes); got {chunk_size}")
    return wanted


def _run(setup, chunk_size, epsilons):
    """Launch the kernels chunk after chunk; raw losses (epsilons None) or statistics."""
    cuda = _numba_cuda()
    _cuda = importlib.import_module("dpsampling.accountants.ballsbins._cuda")  # device code: needs numba.cuda
    samples, per_chunk = setup["samples"], setup["samples_per_chunk"]
    states = _chunk_states(setup["seed"], samples, per_chunk)
    n_chunks = states.shape[0]
    statistics = epsilons is not None
    grid = epsilons if statistics else np.zeros(0)
    orders = setup["orders"]
    bytes_per_chunk = 32 + (16 * grid.size if statistics else 8 * per_chunk)
    if orders is not None:
        capacity = _cuda.scratch_capacity(orders.size)
        bytes_per_chunk += 16 * capacity  # local scratch (reserved per resident thread)
    with _quiet_simulator():
        free = _free_device_memory(cuda)
        launch = _launch_chunks(chunk_size, samples, per_chunk, bytes_per_chunk, free)
        out = None if statistics else np.empty(samples, dtype=np.float64)
        totals = np.zeros(grid.size)
        squares = np.zeros(grid.size)
        try:
            d_params = cuda.to_device(setup["params"])
            d_grid = cuda.to_device(grid)
            if orders is not None:
                kernel = _cuda.order_statistics_kernel(capacity)
                d_orders = [cuda.to_device(np.ascontiguousarray(a)) for a in
                            (orders, setup["log_weights"])]
            else:
                kernel = _cuda.coordinate_kernel
                d_orders = []
            for first in range(0, n_chunks, launch):
                count = min(launch, n_chunks - first)
                d_settings = cuda.to_device(_kernels.chunking(setup["settings"], samples, per_chunk, first))
                d_states = cuda.to_device(states[first:first + count])
                d_sums = cuda.device_array((2, grid.size, count if statistics else 1))
                d_out = cuda.device_array(1 if statistics else min(
                    count * per_chunk, samples - first * per_chunk))
                blocks = -(-count // _cuda.THREADS_PER_BLOCK)
                kernel[blocks, _cuda.THREADS_PER_BLOCK](d_params, d_settings, *d_orders, d_states,
                                                        d_out, d_grid, d_sums)
                if statistics:
                    # sequential in chunk order: independent of how chunks are grouped
                    sums = d_sums.copy_to_host()
                    totals = np.add.accumulate(np.column_stack([totals, sums[0]]), axis=1)[:, -1]
                    squares = np.add.accumulate(np.column_stack([squares, sums[1]]), axis=1)[:, -1]
                else:
                    start = first * per_chunk
                    out[start:start + d_out.shape[0]] = d_out.copy_to_host()
            cuda.synchronize()
        except Exception as error:
            if not _is_out_of_memory(error):
                raise
            fit = int(_MEMORY_FRACTION * _free_device_memory(cuda) // bytes_per_chunk)
            raise ValueError(f"chunk_size must be at most {max(fit, 0) * per_chunk} to fit in the "
                             f"free GPU memory; got {launch * per_chunk} (out of memory)") from None
    return out, totals, squares


def _require_device(name: str) -> None:
    if not cuda_available():
        raise RuntimeError(f"{name} needs a CUDA GPU (and numba-cuda) or NUMBA_ENABLE_CUDASIM=1; "
                           "neither is available")


def _extra(chunk_size) -> dict:
    return {"device": "cuda", "rng": RNG, "device_name": device_name(),
            "simulator": simulator_enabled(), "cuda_kernel_version": CUDA_KERNEL_VERSION,
            "chunk_size": chunk_size}


def sample_losses_cuda(law, samples, *, seed=0, chunk_size=None,
                       samples_per_chunk=DEFAULT_SAMPLES_PER_CHUNK) -> LossSamples:
    """``samples`` draws of the loss of ``law`` (a ``sampling.LossLaw``) on the GPU; arguments
    and result as ``sampling.sample_losses`` (``extra`` names the device and the generator).

    ``chunk_size``: samples per kernel launch held in device memory (rounded down to a
    multiple of ``samples_per_chunk``; None: as many as fit in half the free memory, at most
    2^18 chunks); it does not change the numbers. ValueError naming the largest chunk_size
    that fits when the device runs out of memory.
    """
    setup = _validate(law, samples, seed, samples_per_chunk, chunk_size)
    _require_device("sample_losses_cuda")
    _check_memory(setup["samples"], setup["samples_per_chunk"])  # the host array
    out, _, _ = _run(setup, setup["chunk_size"], None)
    result = _result(out, setup["law"], setup["log_weight"], setup["seed"],
                     setup["samples_per_chunk"])
    return dataclasses.replace(result, extra=_extra(setup["chunk_size"]))


def loss_statistics_cuda(law, samples, epsilons, *, seed=0, chunk_size=None,
                         samples_per_chunk=DEFAULT_SAMPLES_PER_CHUNK) -> DeltaEstimate:
    """Streaming statistics of Z = [1 - e^{eps - L}]_+ at every eps of ``epsilons`` over the
    ``samples`` draws ``sample_losses_cuda`` would return (same arguments), without storing
    them: a ``DeltaEstimate`` (count, total, total_squares per eps; importance weight and
    minimum eps set), which shards pool with ``combine``."""
    setup = _validate(law, samples, seed, samples_per_chunk, chunk_size)
    grid = np.ascontiguousarray(_check_grid(epsilons))
    _require_device("loss_statistics_cuda")
    _, totals, squares = _run(setup, setup["chunk_size"], grid)
    eps0 = setup["law"].importance_epsilon
    minimum = -math.inf if eps0 is None else float(eps0)
    return DeltaEstimate(grid, np.full(grid.shape, setup["samples"], dtype=np.int64), totals,
                         squares, float(setup["log_weight"]), minimum)
