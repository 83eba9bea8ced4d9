"""CUDA kernels of the balls-and-bins Monte Carlo (``dpsampling.accountants.ballsbins.cuda``), run under
Numba's CUDA simulator (see conftest.py) at tiny sizes; skipped without numba-cuda.

What is checked, and how often a correct implementation would fail:
- same stream as the CPU kernels: for every estimator, direction and k in {1, 2}, the GPU
  sample equals ``sample_losses`` with the same (seed, samples, samples_per_chunk): bit for
  bit under the simulator (the kernels call the CPU's per-sample functions; deterministic),
  up to rounding on a real GPU (a rare rejection-step flip may change a chunk, so 1 chunk in
  4 may differ);
- same law, tested as if the streams were unrelated: a two-sample Kolmogorov-Smirnov test
  of a GPU sample against a CPU sample from an independent seed, rejecting at p < 1e-4 per
  case (12 cases: false-failure probability <= 1.2e-3 over random seeds; these seeds pass);
- the T = 1 closed form: delta estimates from the streaming statistics (naive and
  importance, both directions) against the Gaussian mechanism's delta, within 5 standard
  errors at each eps (normal approximation: <= 5.8e-7 per point, < 1e-5 for all points);
- streaming statistics equal the statistics of the raw GPU sample, bit for bit for any
  chunk_size (deterministic);
- reproducibility: same seed -> identical array, any chunk_size; other shard seeds ->
  different arrays (deterministic);
- bad inputs raise one-line ValueErrors; an out-of-memory chunk size names one that fits;
- the package imports and ``cuda_available()`` is False without numba-cuda (subprocess).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy.stats import ks_2samp

if importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("numba-cuda is not installed (pip install 'dpsampling[cuda]')",
                allow_module_level=True)

from dpsampling.accountants.ballsbins import cuda as gpu
from dpsampling.accountants.ballsbins import estimate_delta, gaussian_mechanism_delta
from dpsampling.accountants.ballsbins.sampling import LossLaw, sample_losses

if not gpu.cuda_available():
    pytest.skip("no CUDA GPU and the simulator is off (numba.cuda was imported before "
                "tests/accountants/ballsbins/cuda/conftest.py could set NUMBA_ENABLE_CUDASIM=1)",
                allow_module_level=True)

SIGMA = 0.8
STEPS = 6
ORDERS = [1, 2, 4]
EPS0 = 0.5
CASES = [(method, direction, epochs)
         for method in ("naive", "importance", "order_statistics", "importance_order_statistics")
         for direction in ("remove", "add")
         for epochs in ((1,) if method.startswith("importance") else (1, 2))]


def _law(method, direction, epochs, sigma=SIGMA, steps=STEPS):
    return LossLaw(method, sigma, steps, direction, ORDERS if "order_statistics" in method else None,
                   EPS0 if method.startswith("importance") else None, epochs)


def _id(case):
    return "-".join(str(part) for part in case)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_same_stream_as_cpu(case):
    method, direction, epochs = case
    law = _law(method, direction, epochs)
    seed = np.random.SeedSequence(11, spawn_key=(3,))
    device = gpu.sample_losses_cuda(law, 64, seed=seed, samples_per_chunk=16)
    host = sample_losses(law, 64, seed=seed, samples_per_chunk=16)
    if gpu.simulator_enabled():  # one kernel body, host math: the same numbers bit for bit
        np.testing.assert_array_equal(device.losses, host.losses)
    else:
        close = np.isclose(device.losses, host.losses, rtol=1e-9, atol=1e-12)
        assert close.reshape(4, 16).all(axis=1).sum() >= 3
    assert device.parameters() == host.parameters()
    assert device.log_weight == host.log_weight
    assert device.extra["device"] == "cuda" and "xoshiro256**" in device.extra["rng"]


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_same_law_as_cpu(case):
    """Two-sample KS, GPU seed 2025 vs CPU seed 7 (independent streams), reject at p < 1e-4."""
    method, direction, epochs = case
    law = _law(method, direction, epochs)
    device = gpu.sample_losses_cuda(law, 300, seed=2025, samples_per_chunk=25)
    host = sample_losses(law, 300, seed=7)
    assert ks_2samp(device.losses, host.losses).pvalue > 1e-4


@pytest.mark.parametrize("method", ["naive", "importance"])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_gaussian_mechanism_at_one_step(method, direction):
    """T = 1: delta of N(1, s^2) vs N(0, s^2) in either direction; |estimate - exact| within
    5 standard errors at every eps (normal approximation, <= 5.8e-7 per point)."""
    sigma = 1.0
    epsilons = np.array([0.5, 1.0, 2.0])
    law = LossLaw(method, sigma, 1, direction, importance_epsilon=0.25)
    estimate = gpu.loss_statistics_cuda(law, 2000, epsilons,
                                        seed=np.random.SeedSequence(5).spawn(2)[1],
                                        samples_per_chunk=100)
    exact = gaussian_mechanism_delta(sigma, epsilons)
    error = estimate.standard_error()
    assert np.all(error > 0)
    assert np.all(np.abs(estimate.mean() - exact) <= 5 * error)


@pytest.mark.parametrize("method", ["naive", "importance_order_statistics"])
def test_streaming_statistics_equal_raw_sample_statistics(method):
    law = _law(method, "remove", 1)
    grid = [0.0, 0.25, 1.0, 3.0]
    raw = gpu.sample_losses_cuda(law, 90, seed=4, samples_per_chunk=10)
    whole = gpu.loss_statistics_cuda(law, 90, grid, seed=4, samples_per_chunk=10)
    pieces = gpu.loss_statistics_cuda(law, 90, grid, seed=4, samples_per_chunk=10, chunk_size=20)
    for name in ("count", "total", "total_squares"):
        np.testing.assert_array_equal(getattr(whole, name), getattr(pieces, name))
    reference = estimate_delta(raw, grid)
    np.testing.assert_array_equal(whole.count, reference.count)
    np.testing.assert_allclose(whole.total, reference.total, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(whole.total_squares, reference.total_squares, rtol=1e-12,
                               atol=1e-14)
    assert whole.log_weight == raw.log_weight and whole.minimum_epsilon == raw.minimum_epsilon
    assert whole.combine(pieces).count[0] == 180


def test_reproducible_and_shards_differ():
    first, second = np.random.SeedSequence(99).spawn(2)
    law = _law("order_statistics", "add", 1)
    run = gpu.sample_losses_cuda(law, 40, seed=first, samples_per_chunk=8)
    again = gpu.sample_losses_cuda(law, 40, seed=first, samples_per_chunk=8, chunk_size=16)
    other = gpu.sample_losses_cuda(law, 40, seed=second, samples_per_chunk=8)
    np.testing.assert_array_equal(run.losses, again.losses)
    assert not np.any(run.losses == other.losses)
    assert run.seed_spawn_key == (0,) and other.seed_spawn_key == (1,)


@pytest.mark.parametrize("law, samples, keywords, match", [
    (("naive", -0.5, 4, "add"), 10, {}, "sigma must be positive"),
    (("bogus", 1.0, 4, "add"), 10, {}, "method must be one of"),
    (("naive", 1.0, 4, "sideways"), 10, {}, "direction must be one of"),
    (("naive", 1.0, 4, "add"), 0, {}, "samples must be"),
    (("importance", 1.0, 4, "add", None, 1.0, 2), 10, {}, "epochs must be 1"),
    (("importance", 1.0, 4, "add"), 10, {}, "importance_epsilon must be a finite"),
    (("order_statistics", 1.0, 4, "add", [2, 3]), 10, {}, "orders must start at 1"),
    (("naive", 1.0, 4, "add"), 10, {"chunk_size": 8, "samples_per_chunk": 16}, "chunk_size must be"),
    (("naive", 1.0, 4, "add"), 10, {"seed": -1}, "seed must be"),
])
def test_bad_inputs(law, samples, keywords, match):
    with pytest.raises(ValueError, match=match):
        gpu.sample_losses_cuda(LossLaw(*law), samples, **keywords)


def test_inputs_checked_before_the_device(monkeypatch):
    monkeypatch.setattr(gpu, "cuda_available", lambda: False)
    with pytest.raises(ValueError, match="sigma must be positive"):
        gpu.sample_losses_cuda(LossLaw("naive", 0.0, 4, "add"), 10)
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        gpu.loss_statistics_cuda(LossLaw("naive", 1.0, 4, "add"), 10, [1.0])


def test_bad_grid():
    with pytest.raises(ValueError, match="epsilons must be"):
        gpu.loss_statistics_cuda(LossLaw("naive", 1.0, 4, "add"), 10, [0.0, np.nan])


def test_out_of_memory_names_a_chunk_size_that_fits(monkeypatch):
    # 8 bytes per sample + 32 per chunk of 16 samples: 1000 free bytes -> 500 usable -> 3 chunks
    monkeypatch.setattr(gpu, "_free_device_memory", lambda cuda: 1000.0)
    with pytest.raises(ValueError, match=r"chunk_size must be at most 48 .*; got 160$"):
        gpu.sample_losses_cuda(LossLaw("naive", 1.0, 2, "add"), 160, samples_per_chunk=16,
                               chunk_size=160)

    def exhausted(*args, **kwargs):
        raise RuntimeError("[CUDA_ERROR_OUT_OF_MEMORY] out of memory")

    from numba import cuda

    monkeypatch.setattr(gpu, "_free_device_memory", lambda cuda: 1e6)
    monkeypatch.setattr(cuda, "to_device", exhausted)
    with pytest.raises(ValueError, match="chunk_size must be at most"):
        gpu.sample_losses_cuda(LossLaw("naive", 1.0, 2, "add"), 160, samples_per_chunk=16)


def test_package_imports_without_numba_cuda():
    code = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "numba.cuda" or name.startswith(("numba.cuda.", "numba_cuda")):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        import dpsampling.accountants.ballsbins
        from dpsampling.accountants.ballsbins import cuda
        assert cuda.CUDA_KERNEL_VERSION == 1
        assert cuda.cuda_available() is False and cuda.device_name() == ""
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


PTX_CHECK = textwrap.dedent("""
    import os, sys
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    from numba import cuda, types as t
    import numba.cuda.dispatcher as dispatcher
    class Device:  # device functions ask the current device for its compute capability
        compute_capability = (9, 0)
    dispatcher.get_current_device = lambda: Device()
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
        load_nvidia_dynamic_lib("nvvm")
        load_nvidia_dynamic_lib("nvrtc")
    except Exception as error:
        print("skip:", str(error).splitlines()[0][:200])
        sys.exit(0)
    from dpsampling.accountants.ballsbins import _cuda
    f64, i64, m2, st = t.float64[::1], t.int64[::1], t.float64[:, ::1], t.uint64[:, ::1]
    tail = (f64, f64, t.float64[:, :, ::1])  # out, epsilons, sums
    cuda.compile_ptx(_cuda.coordinate_kernel.py_func, (f64, i64, st) + tail, cc=(9, 0))
    cuda.compile_ptx(_cuda.order_statistics_kernel(1024).py_func,
                     (f64, i64, i64, m2, st) + tail, cc=(9, 0))
    print("ok")
""")


def test_kernels_compile_to_ptx_for_a_real_gpu():
    """Type inference and code generation for the real CUDA target (sm_90), which the
    simulator never exercises; needs NVVM and NVRTC (e.g. pip install
    'cuda-toolkit[nvvm,nvrtc]==13.*'), skipped otherwise. No GPU is needed."""
    environment = {key: value for key, value in os.environ.items()
                   if key != "NUMBA_ENABLE_CUDASIM"}
    result = subprocess.run([sys.executable, "-c", PTX_CHECK], check=False,
                            capture_output=True, text=True, timeout=300, env=environment)
    assert result.returncode == 0, result.stderr[-3000:]
    if result.stdout.startswith("skip:"):
        pytest.skip(f"NVVM/NVRTC not installed ({result.stdout[5:].strip()})")
    assert result.stdout.strip().endswith("ok")
