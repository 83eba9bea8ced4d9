"""CUDA kernels of the balls-and-bins Monte Carlo (``dpsampling.accountants.ballsbins.cuda``), run under
Numba's CUDA simulator (see conftest.py) at tiny sizes; skipped without numba-cuda.

What is checked, and how often a correct implementation would fail:
- the checks of ``dpsampling.benchmark.gpu_check compare`` (which ``scripts/gpu_check.sh`` runs
  on a GPU node without pytest; their docstring gives each check's false-failure probability):
  same stream as the CPU kernels for every estimator, direction and k in {1, 2} and for the
  paper's 739 orders (bit for bit under the simulator, up to rounding on a GPU); same law (KS,
  12 cases, false failures <= 1.2e-3 over random seeds; these seeds pass); T = 1 against the
  Gaussian mechanism (< 1e-5); streaming statistics equal the raw sample's for any chunk_size;
  on a GPU only, 300,000 threads in several launches;
- reproducibility: same seed -> identical array, any chunk_size; other shard seeds ->
  different arrays; the result names the device and the generator (deterministic);
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

if importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("numba-cuda is not installed (pip install 'dpsampling[cuda]')",
                allow_module_level=True)

from dpsampling.accountants.ballsbins import cuda as gpu
from dpsampling.accountants.ballsbins.sampling import LossLaw
from dpsampling.benchmark import gpu_check

if not gpu.cuda_available():
    pytest.skip("no CUDA GPU and the simulator is off (numba.cuda was imported before "
                "tests/accountants/ballsbins/cuda/conftest.py could set NUMBA_ENABLE_CUDASIM=1)",
                allow_module_level=True)

CASES = gpu_check.CASES


def _id(case):
    return "-".join(str(part) for part in case)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_same_stream_as_cpu(case):
    gpu_check.same_stream(gpu_check.case_law(*case))


def test_same_stream_with_the_papers_739_orders():
    gpu_check.same_stream(gpu_check.case_law("order_statistics", "add", sigma=0.3,
                                             steps=gpu_check.PAPER_ORDERS[1],
                                             orders=gpu_check.PAPER_ORDERS[0]))


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_same_law_as_cpu(case):
    gpu_check.same_law(gpu_check.case_law(*case))


@pytest.mark.parametrize("method", ["naive", "importance"])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_gaussian_mechanism_at_one_step(method, direction):
    gpu_check.gaussian_mechanism(method, direction)


@pytest.mark.parametrize("method", ["naive", "importance_order_statistics"])
def test_streaming_statistics_equal_raw_sample_statistics(method):
    gpu_check.streaming_statistics(method)


@pytest.mark.skipif(not gpu.gpu_visible(), reason="300,000 simulated threads take minutes")
def test_several_launches_of_many_threads():
    gpu_check.launches()


def test_reproducible_and_shards_differ():
    first, second = np.random.SeedSequence(99).spawn(2)
    law = gpu_check.case_law("order_statistics", "add")
    run = gpu.sample_losses_cuda(law, 40, seed=first, samples_per_chunk=8)
    again = gpu.sample_losses_cuda(law, 40, seed=first, samples_per_chunk=8, chunk_size=16)
    other = gpu.sample_losses_cuda(law, 40, seed=second, samples_per_chunk=8)
    np.testing.assert_array_equal(run.losses, again.losses)
    assert not np.any(run.losses == other.losses)
    assert run.seed_spawn_key == (0,) and other.seed_spawn_key == (1,)
    assert run.extra["device"] == "cuda" and "xoshiro256**" in run.extra["rng"]


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
