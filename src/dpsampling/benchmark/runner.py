"""Time our balls-and-bins estimators against the reference implementation on identical work.

For each case (``cases.CASES``) both sides draw m loss samples and estimate delta(eps):
ours with ``sample_losses`` + ``estimate_delta``, the reference with its public estimator
(``reference.py``). Timing: one untimed first call per side (ours: Numba compile or cache
load, timed and reported separately as ``first_call_seconds``; the reference: imports and
SciPy set-up at a tiny size), then ``repeats`` timed calls each; the table reports the
median wall-clock time. The JSON also holds every repeat, its CPU time (all threads) and the
load average before and after: wall-clock numbers depend on what else the machine runs.

Agreement (so that a fast wrong estimator is never reported as a speed-up), per case:
- the two delta estimates: z = (ours - reference) / sqrt(se_ours^2 + se_ref^2), |z| <= 4.5
  (two-sided, 6.8e-6 false-failure probability under a normal approximation);
- the loss samples: two-sample Kolmogorov-Smirnov test of our timed samples against
  ``ks_samples`` samples from the reference's own samplers, p >= 1e-4 (false-failure
  probability 1e-4 per case at fixed seeds, deterministic for a given seed).
Both implementations target the same law (remove direction: P_1 = N(e_1, sigma^2 I), the same
event E_eps and the same order-statistics bound (4)), so both checks must pass. If any case
fails, nothing is written and ``BenchmarkDisagreement`` is raised.

Outputs: a CSV with exactly the columns ``case, ours_seconds, reference_seconds, speedup,
ours_samples_per_second`` (reference columns NaN when random-allocation is not installed), and
a JSON sidecar with the machine, versions, thread count, every repeat, the estimates and the
agreement statistics.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

from dpsampling.accountants.ballsbins.estimates import estimate_delta
from dpsampling.accountants.ballsbins.sampling import LossLaw, sample_losses
from dpsampling.benchmark.cases import CASES, Case
from dpsampling.io import environment_versions, write_atomically

COLUMNS = ["case", "ours_seconds", "reference_seconds", "speedup", "ours_samples_per_second"]
Z_LIMIT = 4.5
KS_ALPHA = 1e-4
DEFAULT_KS_SAMPLES = 20_000


class BenchmarkDisagreement(RuntimeError):
    """Our estimate and the reference's disagree beyond their error bars."""


def run_ours(case: Case, seed: int):
    """Loss samples and (mean, standard error) of delta(case.epsilon), our library."""
    law = LossLaw(case.method, case.sigma, case.steps, case.direction, case.orders,
                  case.epsilon if case.method == "importance" else None)
    samples = sample_losses(law, case.samples, seed=seed)
    estimate = estimate_delta(samples, [case.epsilon])
    return samples.losses, float(estimate.mean()[0]), float(estimate.standard_error()[0])


def _timed(function, repeats: int):
    """Wall-clock and CPU seconds (all threads of this process) of each of ``repeats`` calls."""
    seconds, cpu_seconds, result = [], [], None
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        result = function()
        seconds.append(time.perf_counter() - start)
        cpu_seconds.append(time.process_time() - cpu_start)
    return seconds, cpu_seconds, result


def agreement(ours_mean, ours_se, reference_mean, reference_se, ours_losses, reference_losses) -> dict:
    """The two checks of the module docstring, with ``agree`` = both pass."""
    spread = math.hypot(ours_se, reference_se)
    if spread > 0:
        z = (ours_mean - reference_mean) / spread
    else:
        z = 0.0 if ours_mean == reference_mean else math.inf
    ks = ks_2samp(ours_losses, reference_losses)
    return {"z": z, "z_limit": Z_LIMIT, "estimates_informative": bool(spread > 0),
            "ks_statistic": float(ks.statistic), "ks_pvalue": float(ks.pvalue),
            "ks_alpha": KS_ALPHA, "ks_samples": [int(np.size(ours_losses)), int(np.size(reference_losses))],
            "agree": bool(abs(z) <= Z_LIMIT and ks.pvalue >= KS_ALPHA)}


def benchmark_case(case: Case, reference, repeats: int, seed: int, ks_samples: int, log) -> dict:
    """Time one case on both sides and check agreement; a JSON-able record."""
    tiny = replace(case, samples=2)
    start = time.perf_counter()
    run_ours(tiny, seed)  # compiles or loads the cached kernels
    first_call = time.perf_counter() - start
    load = os.getloadavg()
    seconds, cpu, (losses, mean, se) = _timed(lambda: run_ours(case, seed), repeats)
    ours = {"first_call_seconds": first_call, "seconds": seconds, "cpu_seconds": cpu,
            "median_seconds": statistics.median(seconds), "delta": mean, "standard_error": se}
    log(f"{case.name}: ours {ours['median_seconds']:.3f} s (median of {repeats}; CPU "
        f"{statistics.median(cpu):.3f} s; first call {first_call:.2f} s; load {load[0]:.1f}), "
        f"delta({case.epsilon}) = {mean:.4g} +- {se:.2g}")
    record = {"case": case.as_dict(), "ours": ours, "reference": None, "agreement": None,
              "load_average_before": load, "load_average_after": None}
    if reference is None:
        record["load_average_after"] = os.getloadavg()
        return record
    start = time.perf_counter()
    reference.estimate(tiny, seed)  # imports and SciPy set-up
    warmup = time.perf_counter() - start
    seconds, cpu, (ref_mean, ref_se) = _timed(lambda: reference.estimate(case, seed), repeats)
    record["reference"] = {"warmup_seconds": warmup, "seconds": seconds, "cpu_seconds": cpu,
                           "median_seconds": statistics.median(seconds), "delta": ref_mean,
                           "standard_error": ref_se}
    log(f"{case.name}: reference {record['reference']['median_seconds']:.3f} s (median of "
        f"{repeats}; CPU {statistics.median(cpu):.3f} s), "
        f"delta({case.epsilon}) = {ref_mean:.4g} +- {ref_se:.2g}")
    ref_losses = reference.losses(case, min(ks_samples, case.samples), seed + 1)
    record["agreement"] = agreement(mean, se, ref_mean, ref_se, losses, ref_losses)
    check = record["agreement"]
    log(f"{case.name}: agreement z = {check['z']:.2f} (|z| <= {Z_LIMIT}), KS p = "
        f"{check['ks_pvalue']:.3g} (>= {KS_ALPHA}) -> {'agree' if check['agree'] else 'DISAGREE'}")
    record["load_average_after"] = os.getloadavg()
    return record


def cold_compile_seconds() -> float | None:
    """Seconds to compile our sampling kernels in a fresh process with an empty Numba cache."""
    code = ("import time; t = time.perf_counter(); from dpsampling import ballsbins as b; "
            "i = time.perf_counter(); b.sample_naive_losses(0.5, 10, 10, 'remove'); "
            "b.sample_order_statistics_losses(0.5, 10, 10, 'remove', [1, 2]); "
            "b.estimate_delta(b.sample_importance_losses(0.5, 10, 10, 'add', 1.0), [1.0]); "
            "print(time.perf_counter() - i)")
    with tempfile.TemporaryDirectory() as cache:
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                env={**os.environ, "NUMBA_CACHE_DIR": cache})
    try:
        return float(result.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return None


def _machine() -> dict:
    model = platform.processor() or None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": model, "cpu_count": os.cpu_count(), "platform": platform.platform(),
            "numba_threads": numba.get_num_threads(), "numba_threading_layer": _threading_layer()}


def _threading_layer():
    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return None


def run_benchmark(cases=CASES, *, repeats: int = 3, reference=None, seed: int = 2025,
                  ks_samples: int = DEFAULT_KS_SAMPLES, measure_compile: bool = False,
                  log=lambda message: None):
    """Benchmark ``cases``; returns (table with COLUMNS, JSON-able document).

    Raises BenchmarkDisagreement if any case fails the agreement check."""
    records = [benchmark_case(case, reference, repeats, seed, ks_samples, log) for case in cases]
    rows = []
    for record in records:
        case, ours = record["case"], record["ours"]["median_seconds"]
        theirs = record["reference"]["median_seconds"] if record["reference"] else math.nan
        rows.append({"case": case["name"], "ours_seconds": ours, "reference_seconds": theirs,
                     "speedup": theirs / ours, "ours_samples_per_second": case["samples"] / ours})
    document = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "timing": f"median of {repeats} timed repeats per side after one untimed first call",
        "machine": _machine(), "versions": environment_versions(),
        "reference": None if reference is None else {"package": reference.name,
                                                     "version": reference.version},
        "cold_compile_seconds": cold_compile_seconds() if measure_compile else None,
        "seed": seed, "cases": records,
    }
    failed = [r["case"]["name"] for r in records if r["agreement"] and not r["agreement"]["agree"]]
    if failed:
        details = "; ".join(
            f"{r['case']['name']}: z = {r['agreement']['z']:.2f}, KS p = {r['agreement']['ks_pvalue']:.2g}"
            for r in records if r["case"]["name"] in failed)
        raise BenchmarkDisagreement(f"estimates disagree with the reference ({details}); "
                                    "no speed-up is reported for a wrong estimator")
    return pd.DataFrame(rows, columns=COLUMNS), document


def write_outputs(table: pd.DataFrame, document: dict, csv_path, json_path) -> None:
    """The CSV (exactly COLUMNS) and the JSON sidecar, each written atomically."""
    write_atomically(Path(csv_path), lambda tmp: table.to_csv(tmp, index=False, na_rep="NaN"))
    write_atomically(Path(json_path), lambda tmp: Path(tmp).write_text(
        json.dumps(document, indent=2, default=float) + "\n"))
