"""scripts/gpu_check.sh without a GPU, and the time-limited chua25 Fig. 2 it runs on one.

The script runs as on a GPU node: from the source tree (PYTHONPATH=src), with imports limited by
``gpu_machine/sitecustomize.py`` to the packages such a node has (no pytest, so the CUDA checks
take the plain ``gpu_check compare`` path; no dp-accounting, jsonschema, snakemake, tqdm):
- no GPU and no simulator: one line, exit status 3, nothing timed;
- ``--cpu-only``: the throughput tables (all cores and 2) and their JSON, GPU columns empty,
  GPU steps skipped;
- ``NUMBA_ENABLE_CUDASIM=1``: every device-vs-CPU check passes on the simulator (bit for bit),
  Fig. 2 is skipped; a step that fails (the benchmark, given --repeats 0) is reported, the script
  goes on and exits with status 1.
The Fig. 2 ramp runs with a fake clock and a fake kernel. All checks are deterministic.
"""

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
import yaml

from dpsampling.benchmark import gpu as benchmark
from dpsampling.benchmark import gpu_check

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts/gpu_check.sh"
GPU_MACHINE = Path(__file__).resolve().parent / "gpu_machine"
SCALE = 1e-4
needs_numba_cuda = pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None,
                                      reason="numba-cuda is not installed")


def run_script(out, *arguments, simulator=False, repeats=1):
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("NUMBA_ENABLE_CUDASIM", "PYTHONPATH")}
    environment.update(PYTHON=sys.executable, PYTHONPATH=str(GPU_MACHINE), GPU_CHECK_SCALE=str(SCALE),
                       GPU_CHECK_REPEATS=str(repeats))
    if simulator:
        environment["NUMBA_ENABLE_CUDASIM"] = "1"
    return subprocess.run(["bash", str(SCRIPT), str(out), *arguments], capture_output=True, text=True,
                          env=environment, timeout=300, check=False)


def summary(out):
    """step -> status, from OUTDIR/summary.md."""
    rows = [line.split("|")[1:3] for line in (out / "summary.md").read_text().splitlines()
            if line.startswith("| ") and not line.startswith("| step")]
    return {step.strip(): status.strip() for step, status in rows}


def test_bad_arguments(tmp_path):
    for arguments in ([], [str(tmp_path), "--gpu"], [str(tmp_path), "--cpu-only", "x"]):
        result = subprocess.run(["bash", str(SCRIPT), *arguments], capture_output=True, text=True,
                                check=False)
        assert result.returncode == 2 and result.stderr.startswith("usage: scripts/gpu_check.sh")


@needs_numba_cuda
def test_refuses_without_a_gpu(tmp_path):
    result = run_script(tmp_path / "out")
    assert result.returncode == 3
    assert result.stderr.count("\n") == 1 and "no CUDA GPU visible to numba" in result.stderr
    assert "--cpu-only" in result.stderr
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        "device.json", "environment.txt", "probe.log", "summary.md"]  # nothing timed
    assert json.loads((tmp_path / "out/device.json").read_text())["gpu_visible"] is False


def test_cpu_only(tmp_path):
    out = tmp_path / "out"
    result = run_script(out, "--cpu-only")
    assert result.returncode == 0, result.stdout + result.stderr
    assert summary(out) == {"probe": "none", "CUDA tests": "skipped: --cpu-only", "throughput": "passed",
                            "chua25 Fig. 2": "skipped: --cpu-only"}
    document = json.loads((out / "gpu.json").read_text())
    threads = numba.config.NUMBA_NUM_THREADS
    assert document["threads"] == threads and document["gpu"] is None
    assert [row["case"] for row in document["rows"]] == [case.name for case in benchmark.GPU_CASES]
    for row, case in zip(document["rows"], benchmark.GPU_CASES, strict=True):
        assert row["samples"] == math.ceil(SCALE * case.samples)
        assert set(row["cpu_seconds_by_threads"]) == {str(threads), "2"}
        assert row["cpu_seconds"] == row["cpu_seconds_by_threads"][str(threads)] > 0
        assert row["gpu_seconds"] is None and row["gpu_samples"] == 10 * row["samples"]
        assert row["gpu_samples_per_chunk"] == 8
    tables = (out / "gpu.md").read_text().split("\n\n\n")
    assert len(tables) == (1 if threads == 2 else 2)
    assert all(table.startswith("Balls-and-bins Monte Carlo throughput") for table in tables)
    assert f"{threads} Numba threads" in tables[0] and "2 Numba threads" in tables[-1]


@needs_numba_cuda
def test_simulator_path_and_a_failing_step(tmp_path):
    out = tmp_path / "out"
    result = run_script(out, simulator=True, repeats=0)
    assert result.returncode == 1, result.stdout + result.stderr
    assert summary(out) == {"probe": "simulator", "CUDA tests (gpu_check compare; no pytest)": "passed",
                            "throughput": "failed (exit 2)", "chua25 Fig. 2": "skipped: needs a GPU (simulator)"}
    assert "--repeats must be" in (out / "gpu.log").read_text()
    log = (out / "cuda_tests.log").read_text().splitlines()
    assert log[0] == "device: CUDA simulator" and log[-1] == "all passed"
    assert sum(line.startswith("PASS stream") and "bit for bit" in line for line in log) == len(
        gpu_check.CASES) + 1
    assert not [line for line in log if line.startswith("FAIL")]


def ramp(time_limit, *, seconds_per_sample=1.0, samples=None):
    """_fig2_runs on 8 pairs, shard 10, paper scale 500, with a clock that each run advances
    by seconds_per_sample x its samples; (rows, seconds used)."""
    clock = [0.0]

    def run(pair, size, dry=False):
        if not dry:
            clock[0] += seconds_per_sample * size
        return {"pair": pair, "samples": size, "seconds": None if dry else seconds_per_sample * size}

    pairs = [(p, d) for p in range(4) for d in range(2)]
    rows = benchmark._fig2_runs(pairs, 500, 10, samples, time_limit, run, lambda: clock[0])
    return rows, clock[0]


def test_fig2_ramp_doubles_while_all_pairs_fit():
    # one shard (10), then 20, 40, 80 (70 s used; 8 x 80 fit in 1000 - 70), not 160 (8 x 160 > 850)
    rows, used = ramp(1000)
    assert [row["samples"] for row in rows] == [10, 20, 40, 80] + [80] * 7
    assert [row["pair"] for row in rows[3:]] == [(p, d) for p in range(4) for d in range(2)]
    assert used == 10 + 20 + 40 + 80 * 8 <= 1000
    rows, used = ramp(1e6)
    assert [row["samples"] for row in rows] == [10, 20, 40, 80, 160, 320] + [500] * 8
    assert ramp(None)[0] == ramp(None, samples=500)[0] and len(ramp(None)[0]) == 8


def test_fig2_ramp_skips_pairs_that_would_pass_the_limit():
    rows, used = ramp(50)  # 10 s per pair from the first on: pairs 2-5 fit by 50 s, 6-8 do not
    assert [row["seconds"] for row in rows] == [10.0] * 5 + [None] * 3 and used == 50


def test_fig2_table_totals_and_marks():
    def row(panel, direction, samples, seconds):
        return {"panel": panel, "steps": 100, "orders": 7, "direction": direction, "samples": samples,
                "seconds": seconds, "max_delta": 0.5}

    full = [row("a", "remove", 500, 2.0), row("a", "add", 500, 3.0)]
    table = benchmark.fig2_table(full, full=500, grid_size=3, compiled=1.0, stamp="now")
    assert table.endswith("Total at paper scale: 5.0 s = 0.1 min, measured at paper scale.")
    part = [row("a", "remove", 10, 1.0), row("a", "remove", 50, 2.0), row("a", "add", 50, 4.0)]
    table = benchmark.fig2_table(part, full=500, grid_size=3, compiled=1.0, stamp="now")
    assert "| 20.0 (extrapolated) |" in table and "| 40.0 (extrapolated) |" in table
    assert "Total at paper scale: 60.0 s = 1.0 min, extrapolated linearly" in table
    skipped = [row("a", "remove", 50, 2.0), row("a", "add", 50, None)]
    table = benchmark.fig2_table(skipped, full=500, grid_size=3, compiled=1.0, stamp="now")
    assert "not run (time limit)" in table and table.endswith(
        "20.0 s = 0.3 min, incomplete: 1 of 2 panel-directions not run.")


def test_paper_fig2_with_a_time_limit_reaches_paper_scale_when_the_kernel_is_fast(monkeypatch):
    calls = []

    class Estimate:
        def mean(self):
            return np.array([0.25, np.nan])

    def statistics(law, samples, grid, *, seed):
        calls.append((law.steps, law.direction, samples, grid.size))
        return Estimate()

    monkeypatch.setattr(benchmark.gpu, "loss_statistics_cuda", statistics)
    monkeypatch.setattr(benchmark.gpu, "device_name", lambda: "fake GPU")
    table = benchmark.paper_fig2(ROOT / "config/paper.yaml", seed=1, samples=None, log=lambda m: None,
                                 time_limit=600)
    fig2 = yaml.safe_load((ROOT / "config/paper.yaml").read_text())["chua25"]["fig2"]
    full = fig2["order_statistics"]["shards"] * fig2["order_statistics"]["samples_per_shard"]
    assert calls[0][2] == 1  # the compiling call
    last = calls[-8:]
    assert [(steps, direction) for steps, direction, _, _ in last] == [
        (panel["steps"], direction) for panel in fig2["panels"] for direction in ("remove", "add")]
    assert {samples for _, _, samples, _ in last} == {full}
    assert {size for _, _, _, size in calls} == {fig2["epsilon_grid"]["num"]}
    assert table.startswith("chua25 Fig. 2 on fake GPU") and table.endswith("measured at paper scale.")


def test_probe_warns_when_the_kernels_cannot_compile(monkeypatch, capsys):
    monkeypatch.setattr(gpu_check.gpu, "gpu_visible", lambda: True)
    monkeypatch.setattr(gpu_check, "_gpu_details", lambda: {
        "nvrtc": "unavailable: RuntimeError: libnvrtc.so.12 not found", "nvvm": True})
    assert gpu_check.main(["probe"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["nvrtc"].startswith("unavailable")
    assert captured.err == ("warning: NVRTC not found: numba-cuda cannot compile the kernels "
                            "(docs/GPU.md)\n")


@pytest.mark.parametrize("shift", [0.0, 1e-3])
def test_compare_passes_a_faithful_device_and_fails_a_wrong_one(monkeypatch, shift):
    """compare() with the CPU standing in for the device (as under the simulator: bit-for-bit
    checks): every check passes; with the device's raw losses shifted by 1e-3, every stream check
    and the statistics checks fail and the exit status is 1. Deterministic (fixed seeds)."""
    from dataclasses import replace

    from dpsampling.accountants.ballsbins import estimate_delta, sample_losses

    def device_losses(law, samples, *, seed=0, samples_per_chunk=1024, chunk_size=None):
        drawn = sample_losses(law, samples, seed=seed, samples_per_chunk=samples_per_chunk)
        return replace(drawn, losses=drawn.losses + shift)

    def device_statistics(law, samples, epsilons, *, seed=0, samples_per_chunk=1024, chunk_size=None):
        return estimate_delta(sample_losses(law, samples, seed=seed, samples_per_chunk=samples_per_chunk),
                              epsilons)

    for name, value in (("cuda_available", lambda: True), ("simulator_enabled", lambda: True),
                        ("device_name", lambda: "CPU standing in"), ("sample_losses_cuda", device_losses),
                        ("loss_statistics_cuda", device_statistics)):
        monkeypatch.setattr(gpu_check.gpu, name, value)
    lines = []
    status = gpu_check.compare(lines.append)
    failed = {line.split(":")[0][5:] for line in lines if line.startswith("FAIL")}
    names = {name for name, _ in gpu_check.checks()}
    if shift == 0:
        assert status == 0 and not failed and lines[-1] == "all passed"
        assert len([line for line in lines if line.startswith("PASS")]) == len(names)
    else:
        assert status == 1 and lines[-1] == f"{len(failed)} failed"
        streams = {name for name in names if name.startswith("stream")}
        assert streams | {"statistics naive", "statistics importance_order_statistics"} <= failed
