"""``python -m dpsampling.benchmark.gpu_check probe|compare``: is the CUDA path sound on this machine?

Needs no test dependency (no pytest): ``scripts/gpu_check.sh`` runs it on a GPU node that has
only the library's own dependencies and numba-cuda.

- ``probe [--json FILE]``: the device, its compute capability, the CUDA driver, NVRTC and NVVM
  (without which numba-cuda cannot compile: a warning line on stderr), numba and numba-cuda
  versions, the CPU and its cores, as JSON. Exit status 0 with a GPU visible to numba, 4 under
  Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) and 3 with neither (one line on stderr
  saying why).
- ``compare``: the CUDA kernels against the CPU kernels (``sampling.sample_losses``) on small
  work; one ``PASS``/``FAIL`` line per check, exit status 1 if any fails. What is checked, and how
  often a correct implementation fails:
  * ``stream``: for each estimator, direction and k in {1, 2}, and for the paper's 739 orders
    (the largest per-thread scratch, 16 KiB), 64 samples in 4 chunks of 16 with the same seed on
    both devices: bit for bit under the simulator (host maths); on a GPU, at least 3 of the 4
    chunks equal up to rtol 1e-9 (device exp/log and fused multiply-adds round differently and
    may, rarely, flip one rejection step, which desynchronises the rest of that chunk only);
  * ``launches``: 300,000 chunks of one sample (two launches of at most 2^18 threads) and the
    same work in launches of 1000 samples: identical losses, and equal to the CPU up to rounding
    (at least 99.9 % of the samples; skipped under the simulator, too slow there);
  * ``law``: two-sample Kolmogorov-Smirnov test of a GPU sample against a CPU sample from an
    independent seed, rejecting at p < 1e-4 per estimator (12 cases: false failures <= 1.2e-3);
  * ``gaussian``: T = 1 (the Gaussian mechanism N(1, s^2) vs N(0, s^2)), delta from the streaming
    statistics at eps 0.5, 1, 2 within 5 standard errors of the closed form (normal
    approximation: <= 5.8e-7 per point, < 1e-5 for the 12 points);
  * ``statistics``: ``loss_statistics_cuda`` equals the statistics of the raw GPU sample (rtol
    1e-12) and does not depend on ``chunk_size`` (bit for bit). Deterministic.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

import numba
import numpy as np
from scipy.stats import ks_2samp

from dpsampling.accountants.ballsbins import cuda as gpu
from dpsampling.accountants.ballsbins.estimates import estimate_delta
from dpsampling.accountants.ballsbins.sampling import LossLaw, sample_losses
from dpsampling.accountants.closed_form.gaussian import gaussian_delta
from dpsampling.benchmark.gpu import cpu_name

PROG = "python -m dpsampling.benchmark.gpu_check"
NO_GPU, SIMULATOR = 3, 4
PAPER_ORDERS = ("1..500,510..1000/10,1100..19900/100", 36133)  # chua25 Fig. 2, pctr_b1024: 739 orders
ORDERS, EPS0 = [1, 2, 4], 0.5
CASES = [(method, direction, epochs)
         for method in ("naive", "importance", "order_statistics", "importance_order_statistics")
         for direction in ("remove", "add")
         for epochs in ((1,) if method.startswith("importance") else (1, 2))]


def case_law(method, direction, epochs=1, sigma=0.8, steps=6, orders=None):
    """The small law of one check case: orders 1, 2, 4 and importance eps 0.5 where the method
    uses them."""
    if orders is None and "order_statistics" in method:
        orders = ORDERS
    return LossLaw(method, sigma, steps, direction, orders,
                   EPS0 if method.startswith("importance") else None, epochs)


def _gpu_details() -> dict:
    """Compute capability, driver, NVRTC (the toolkit numba-cuda compiles with), NVVM and memory;
    an item that cannot be read says why instead of stopping the probe."""
    from numba import cuda
    from numba.cuda.cudadrv import driver, nvvm, runtime

    readers = {
        "compute_capability": lambda: list(cuda.get_current_device().compute_capability),
        "driver": lambda: ".".join(map(str, driver.driver.get_version())),
        "nvrtc": lambda: ".".join(map(str, runtime.get_version())),
        "nvvm": lambda: nvvm.is_available(),
        "memory_bytes": lambda: dict(zip(("free", "total"),
                                         map(int, cuda.current_context().get_memory_info()))),
    }
    details = {}
    for key, read in readers.items():
        try:
            details[key] = read()
        except Exception as error:  # reported, the probe goes on
            details[key] = f"unavailable: {type(error).__name__}: {str(error)[:200]}"
    return details


def probe() -> tuple[dict, str]:
    """(what this machine offers, why there is no GPU or '')."""
    from importlib.metadata import PackageNotFoundError, version

    def package(name):
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    info = {"gpu_visible": gpu.gpu_visible(), "simulator": gpu.cuda_available() and gpu.simulator_enabled(),
            "device": gpu.device_name() or None, "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "numba_cuda": package("numba-cuda"),
            "cpu": cpu_name(), "cores": os.cpu_count()}
    why = ""
    if info["gpu_visible"]:
        info.update(_gpu_details())
    elif info["simulator"]:
        why = "Numba's CUDA simulator is on (NUMBA_ENABLE_CUDASIM=1): no GPU timing is possible"
    elif package("numba-cuda") is None:
        why = "numba-cuda is not installed"
    else:
        why = "numba.cuda.is_available() is False (no CUDA driver or device visible)"
    return info, why


def same_stream(law) -> str:
    """The ``stream`` check of the module docstring; AssertionError when it fails, else a line
    saying how the numbers matched (as every check below)."""
    seed = np.random.SeedSequence(11, spawn_key=(3,))
    device = gpu.sample_losses_cuda(law, 64, seed=seed, samples_per_chunk=16)
    host = sample_losses(law, 64, seed=seed, samples_per_chunk=16)
    if device.parameters() != host.parameters() or device.log_weight != host.log_weight:
        raise AssertionError("parameters or log weight differ from the CPU's")
    if gpu.simulator_enabled():
        np.testing.assert_array_equal(device.losses, host.losses)
        return "64 samples equal bit for bit"
    close = np.isclose(device.losses, host.losses, rtol=1e-9, atol=1e-12).reshape(4, 16).all(axis=1)
    if close.sum() < 3:
        raise AssertionError(f"only {close.sum()} of 4 chunks equal the CPU's up to rtol 1e-9; "
                             f"largest difference {np.max(np.abs(device.losses - host.losses)):.3g}")
    return f"{close.sum()} of 4 chunks equal up to rtol 1e-9"


def launches() -> str:
    """The ``launches`` check (for a GPU: the simulator takes minutes)."""
    law = case_law("naive", "remove", steps=4)
    samples = 300_000
    whole = gpu.sample_losses_cuda(law, samples, seed=8, samples_per_chunk=1)
    pieces = gpu.sample_losses_cuda(law, samples, seed=8, samples_per_chunk=1, chunk_size=1000)
    np.testing.assert_array_equal(whole.losses, pieces.losses)
    host = sample_losses(law, samples, seed=8, samples_per_chunk=1)
    share = np.isclose(whole.losses, host.losses, rtol=1e-9, atol=1e-12).mean()
    if share < 0.999:
        raise AssertionError(f"only {share:.4%} of {samples} samples equal the CPU's")
    return f"{samples} one-sample chunks: launches agree; {share:.4%} equal the CPU's"


def same_law(law) -> str:
    """The ``law`` check (KS, p < 1e-4 fails)."""
    size = 300 if gpu.simulator_enabled() else 5000
    device = gpu.sample_losses_cuda(law, size, seed=2025, samples_per_chunk=25)
    host = sample_losses(law, size, seed=7)
    p = ks_2samp(device.losses, host.losses).pvalue
    if p <= 1e-4:
        raise AssertionError(f"KS p = {p:.3g} <= 1e-4 ({size} samples each)")
    return f"KS p = {p:.3g} ({size} samples each)"


def gaussian_mechanism(method, direction) -> str:
    """The ``gaussian`` check (T = 1 against the closed form, 5 standard errors)."""
    sigma, epsilons = 1.0, np.array([0.5, 1.0, 2.0])
    law = LossLaw(method, sigma, 1, direction, importance_epsilon=0.25)
    size = 2000 if gpu.simulator_enabled() else 200_000
    estimate = gpu.loss_statistics_cuda(law, size, epsilons, seed=np.random.SeedSequence(5).spawn(2)[1],
                                        samples_per_chunk=100)
    error = estimate.standard_error()
    z = np.abs(estimate.mean() - gaussian_delta(epsilons, sigma)) / error
    if not (np.all(error > 0) and np.all(z <= 5)):
        raise AssertionError(f"|estimate - exact| / standard error = {np.round(z, 2).tolist()}")
    return f"largest |z| = {z.max():.2f} ({size} samples)"


def streaming_statistics(method) -> str:
    """The ``statistics`` check (streaming = raw sample's statistics, any chunk_size)."""
    law = case_law(method, "remove")
    grid = [0.0, 0.25, 1.0, 3.0]
    raw = gpu.sample_losses_cuda(law, 90, seed=4, samples_per_chunk=10)
    whole = gpu.loss_statistics_cuda(law, 90, grid, seed=4, samples_per_chunk=10)
    pieces = gpu.loss_statistics_cuda(law, 90, grid, seed=4, samples_per_chunk=10, chunk_size=20)
    for name in ("count", "total", "total_squares"):
        np.testing.assert_array_equal(getattr(whole, name), getattr(pieces, name))
    reference = estimate_delta(raw, grid)
    np.testing.assert_array_equal(whole.count, reference.count)
    np.testing.assert_allclose(whole.total, reference.total, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(whole.total_squares, reference.total_squares, rtol=1e-12, atol=1e-14)
    return "equal to the raw sample's statistics, any chunk_size"


def checks():
    """(name, zero-argument check returning a detail line) for ``compare``, in order."""
    label = "-".join
    found = [(f"stream {label(map(str, case))}", lambda case=case: same_stream(case_law(*case)))
             for case in CASES]
    found.append(("stream order_statistics paper orders", lambda: same_stream(
        case_law("order_statistics", "add", steps=PAPER_ORDERS[1], sigma=0.3, orders=PAPER_ORDERS[0]))))
    if not gpu.simulator_enabled():
        found.append(("launches", launches))
    found += [(f"law {label(map(str, case))}", lambda case=case: same_law(case_law(*case)))
              for case in CASES]
    found += [(f"gaussian {method}-{direction}", lambda m=method, d=direction: gaussian_mechanism(m, d))
              for method in ("naive", "importance") for direction in ("remove", "add")]
    found += [(f"statistics {method}", lambda m=method: streaming_statistics(m))
              for method in ("naive", "importance_order_statistics")]
    return found


def compare(log=print) -> int:
    """Run every check (a failure does not stop the others); 0 when all pass, else 1."""
    if not gpu.cuda_available():
        log(f"{PROG}: error: compare needs a CUDA GPU or NUMBA_ENABLE_CUDASIM=1; neither is available")
        return NO_GPU
    log(f"device: {gpu.device_name()}")
    failed = 0
    for name, check in checks():
        try:
            log(f"PASS {name}: {check()}")
        except Exception as error:  # reported; the next check runs
            failed += 1
            first = (str(error).strip().splitlines() or [""])[0]
            log(f"FAIL {name}: {type(error).__name__}: {first[:300]}")
    log(f"{failed} failed" if failed else "all passed")
    return 1 if failed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["probe", "compare"])
    parser.add_argument("--json", metavar="FILE", default=None, help="probe: also write the JSON to FILE")
    args = parser.parse_args(argv)
    if args.command == "compare":
        return compare(lambda line: print(line, flush=True))
    info, why = probe()
    text = json.dumps(info, indent=2)
    print(text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text + "\n")
    if info["gpu_visible"]:
        missing = [key for key in ("nvrtc", "nvvm") if info.get(key) in (False, None)
                   or str(info.get(key)).startswith("unavailable")]
        if missing:
            print(f"warning: {' and '.join(missing).upper()} not found: numba-cuda cannot compile "
                  "the kernels (docs/GPU.md)", file=sys.stderr)
        return 0
    print(f"{PROG}: no CUDA GPU visible to numba: {why}", file=sys.stderr)
    return SIMULATOR if info["simulator"] else NO_GPU


if __name__ == "__main__":
    sys.exit(main())
