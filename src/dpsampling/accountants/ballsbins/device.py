"""Where the balls-and-bins Monte Carlo runs: the one entry point that chooses CPU or CUDA.

``device`` is ``cpu`` (Numba on the CPU, the default), ``cuda`` (numba-cuda on one GPU, or
Numba's CUDA simulator when NUMBA_ENABLE_CUDASIM=1) or ``auto`` (CUDA when a real GPU is
visible, else the CPU; the simulator does not count). ``resolve_device`` turns it into the
device that runs (``cpu`` or ``cuda``); results record that one.

Both devices draw the same streams (``cuda``: same (seed, samples, samples_per_chunk), one GPU
thread per chunk), so the device is not part of what a result is: it is recorded beside it.

- ``sample_losses(law, samples, ..., device=)`` (``law`` a ``sampling.LossLaw``): a ``LossSamples`` (``extra["device"]`` says which ran);
- ``loss_statistics(law, samples, epsilons, ..., device=)``: the statistics (count, sum, sum of squares) of
  Z = [1 - e^{eps - L}]_+ on a grid without keeping the losses: on the CPU the losses are drawn
  ``piece`` samples at a time (whole chunks of the same streams) and each piece is reduced by
  ``estimates.estimate_delta``; on CUDA by ``cuda.loss_statistics_cuda``. A shard that fits in
  one piece gives exactly ``estimate_delta(sample_losses(...))``; with several pieces the sums
  are added piece by piece (equal up to floating-point rounding of the additions).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from dpsampling.accountants.ballsbins import cuda as gpu
from dpsampling.accountants.ballsbins import sampling as cpu
from dpsampling.accountants.ballsbins.estimates import DeltaEstimate, _check_grid, estimate_delta
from dpsampling.validation import check_choice, check_int_at_least

DEVICES = ("cpu", "cuda", "auto")
DEFAULT_PIECE = 1 << 22  # CPU streaming: samples held in memory at once (32 MB of losses)


def device_problem(device) -> str | None:
    """One line when ``device`` cannot run here (``cuda`` without a GPU or the simulator, or
    not one of DEVICES), else None. Imports numba.cuda only for ``cuda``."""
    if device not in DEVICES:
        return f"device must be one of {', '.join(DEVICES)}; got {device!r}"
    if device == "cuda":
        if not gpu.cuda_available():
            return ("cuda needs a CUDA GPU and none is visible here (nor is NUMBA_ENABLE_CUDASIM=1 set): "
                    "use cpu or auto, or run where a GPU is (with pip install 'dpsampling[cuda]')")
    return None


def resolve_device(device) -> str:
    """``cpu`` or ``cuda``: the device that runs for ``device`` (see module docstring);
    ValueError (one line) for ``cuda`` when no GPU (or simulator) is available."""
    device = check_choice("device", device, DEVICES)
    problem = device_problem(device)
    if problem:
        raise ValueError(problem)
    if device == "auto":
        return "cuda" if gpu.gpu_visible() else "cpu"
    return device


def sample_losses(law: cpu.LossLaw, samples, *, seed=0, samples_per_chunk=cpu.DEFAULT_SAMPLES_PER_CHUNK,
                  device="cpu") -> cpu.LossSamples:
    """``sampling.sample_losses`` on ``device``; ``extra["device"]`` records the one that ran."""
    ran = resolve_device(device)
    if ran == "cuda":
        return gpu.sample_losses_cuda(law, samples, seed=seed, samples_per_chunk=samples_per_chunk)
    result = cpu.sample_losses(law, samples, seed=seed, samples_per_chunk=samples_per_chunk)
    return dataclasses.replace(result, extra=dict(result.extra, device="cpu"))


def _cpu_statistics(law: cpu.LossLaw, samples, grid, seed, samples_per_chunk, piece) -> DeltaEstimate:
    law = law.checked()
    samples = check_int_at_least("samples", samples, 1)
    samples_per_chunk = check_int_at_least("samples_per_chunk", samples_per_chunk, 1)
    seed = cpu.as_seed_sequence(seed)
    piece = check_int_at_least("piece", piece, 1)
    inputs = law.kernel_inputs()
    minimum = -math.inf if law.importance_epsilon is None else float(law.importance_epsilon)
    states = cpu._chunk_states(seed, samples, samples_per_chunk)
    chunks_per_piece = max(1, piece // samples_per_chunk)
    result = None
    for first in range(0, states.shape[0], chunks_per_piece):
        block = states[first:first + chunks_per_piece]
        count = min(block.shape[0] * samples_per_chunk, samples - first * samples_per_chunk)
        losses = np.empty(count, dtype=np.float64)
        cpu.run_cpu_kernel(inputs, np.ascontiguousarray(block), count, samples_per_chunk, losses)
        part = estimate_delta(losses, grid, log_weight=inputs["log_weight"], minimum_epsilon=minimum)
        result = part if result is None else result.combine(part)
    return result


def loss_statistics(law: cpu.LossLaw, samples, epsilons, *, seed=0,
                    samples_per_chunk=cpu.DEFAULT_SAMPLES_PER_CHUNK, device="cpu",
                    piece=DEFAULT_PIECE) -> DeltaEstimate:
    """Statistics of Z at every eps of ``epsilons`` over the losses ``sample_losses`` would
    draw with the same arguments, without keeping them (see module docstring). ``piece``:
    samples per CPU piece (memory); it changes no draw, only how the sums are grouped."""
    ran = resolve_device(device)
    grid = _check_grid(epsilons)
    if ran == "cuda":
        return gpu.loss_statistics_cuda(law, samples, grid, seed=seed, samples_per_chunk=samples_per_chunk)
    return _cpu_statistics(law, samples, grid, seed, samples_per_chunk, piece)
