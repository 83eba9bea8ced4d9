"""``python -m dpsampling.benchmark.gpu``: CPU vs GPU throughput of the balls-and-bins estimators.

Each case draws the same loss samples on both sides: ``ballsbins.sample_losses`` (Numba, all
cores unless --threads) and ``ballsbins.cuda.sample_losses_cuda`` (one GPU), same seed and
samples_per_chunk (so the same streams, see ``ballsbins.cuda``). Throughput is
samples x steps per second (for order statistics: the T the draws stand for, not the r orders
computed). One untimed call at 1/100 of the size compiles the kernels first; the median of
--repeats timed calls is reported. Output: a Markdown table on stdout with the date, the CPU
and the GPU. With no GPU visible the GPU columns stay empty; the CUDA simulator is never
timed as if it were a GPU.

``--paper-fig2`` times the chua25 Fig. 2 work at paper scale on the GPU: the four panels of
``chua25.fig2`` in the config (T, order list, sigma, eps grid, shards x samples per shard =
5e8 samples), both directions, with streaming statistics (``loss_statistics_cuda``: no
sample stored), and prints one row per panel and direction with the time (after an untimed
compiling call) and the delta estimate's largest value. It refuses to run without a GPU.

``--json FILE`` also writes the rows (with the method of each case) as JSON; ``dpsampling
estimate`` reads ``benchmarks/gpu.json`` for its GPU rates when the config says ``device: cuda``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np
import yaml

from dpsampling.accountants.ballsbins import cuda as gpu
from dpsampling.accountants.ballsbins.orders import validate_orders
from dpsampling.accountants.ballsbins.sampling import LossLaw, sample_losses
from dpsampling.benchmark.cases import CASES, Case
from dpsampling.validation import check_int_at_least, check_positive

GPU_CASES = (*CASES, replace(CASES[0], name="importance_order_statistics",
                             method="importance_order_statistics", epsilon=1.0))
IMPORTANCE_EPSILON = {"importance": 12.0, "importance_order_statistics": 1.0}
PROG = "python -m dpsampling.benchmark.gpu"


def _law(case: Case) -> LossLaw:
    return LossLaw(case.method, case.sigma, case.steps, case.direction, case.orders,
                   IMPORTANCE_EPSILON.get(case.method))


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _median_seconds(function, repeats: int) -> float:
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def time_case(case: Case, *, repeats: int, seed: int, samples_per_chunk: int,
              use_gpu: bool) -> dict:
    """Median seconds of both sides on ``case`` (GPU entries None when ``use_gpu`` is False)."""
    keywords = {"seed": seed, "samples_per_chunk": samples_per_chunk}
    law = _law(case)
    warm = max(1, case.samples // 100)
    sample_losses(law, warm, **keywords)
    cpu = _median_seconds(lambda: sample_losses(law, case.samples, **keywords), repeats)
    row = {"case": case.name, "method": case.method, "sigma": case.sigma, "steps": case.steps, "samples": case.samples,
           "orders": case.order_count, "cpu_seconds": cpu, "gpu_seconds": None}
    if use_gpu:
        gpu.sample_losses_cuda(law, warm, **keywords)
        row["gpu_seconds"] = _median_seconds(
            lambda: gpu.sample_losses_cuda(law, case.samples, **keywords), repeats)
    return row


def _rate(row, seconds):
    return None if seconds is None else row["samples"] * row["steps"] / seconds


def _cell(value, fmt):
    return "" if value is None else format(value, fmt)


def markdown_table(rows, *, gpu_name: str, threads: int) -> str:
    """The throughput table (rate = samples x steps per second)."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"Balls-and-bins Monte Carlo throughput, {stamp}",
             "",
             f"- CPU: {_cpu_name()}, {threads} Numba threads",
             f"- GPU: {gpu_name or 'none visible (GPU columns empty)'}",
             "",
             ("| estimator | sigma | T | samples | orders | CPU s | CPU samples x steps / s "
             "| GPU s | GPU samples x steps / s | GPU / CPU |"),
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        cpu_rate, gpu_rate = _rate(row, row["cpu_seconds"]), _rate(row, row["gpu_seconds"])
        ratio = None if gpu_rate is None else gpu_rate / cpu_rate
        lines.append(
            f"| {row['case']} | {row['sigma']} | {row['steps']} | {row['samples']} | "
            f"{row['orders'] or ''} | {row['cpu_seconds']:.3g} | {cpu_rate:.3e} | "
            f"{_cell(row['gpu_seconds'], '.3g')} | {_cell(gpu_rate, '.3e')} | "
            f"{_cell(ratio, '.1f')} |")
    return "\n".join(lines)


def paper_fig2(config_path, *, seed: int, samples: int | None, log) -> str:
    """Time chua25 Fig. 2 (four panels x two directions) on the GPU; a Markdown table."""
    config = yaml.safe_load(Path(config_path).read_text())
    fig2 = config["chua25"]["fig2"]
    grid_spec = fig2["epsilon_grid"]
    grid = np.linspace(grid_spec["start"], grid_spec["stop"], int(grid_spec["num"]))
    plan = fig2["order_statistics"]
    total = samples or int(plan["shards"]) * int(plan["samples_per_shard"])
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [(f"chua25 Fig. 2 on {gpu.device_name()}, {stamp}: order statistics, {total} samples "
             f"per panel and direction, streaming statistics on {grid.size} eps values"),
             "",
             "| panel | T | orders | direction | seconds | samples x steps / s | max delta |",
             "|---|---:|---:|---|---:|---:|---:|"]
    root = np.random.SeedSequence(seed)
    first = fig2["panels"][0]
    gpu.loss_statistics_cuda(LossLaw("order_statistics", first["sigma"], first["steps"], "remove",
                                     first["orders"]), 1, grid, seed=root)  # compile, untimed
    overall = 0.0
    for p_index, panel in enumerate(fig2["panels"]):
        for d_index, direction in enumerate(("remove", "add")):
            child = np.random.SeedSequence(root.entropy, spawn_key=(p_index, d_index))
            start = time.perf_counter()
            law = LossLaw("order_statistics", panel["sigma"], panel["steps"], direction,
                          panel["orders"])
            estimate = gpu.loss_statistics_cuda(law, total, grid, seed=child)
            seconds = time.perf_counter() - start
            overall += seconds
            rate = total * panel["steps"] / seconds
            order_count = len(validate_orders(panel["orders"], panel["steps"]))
            log(f"{panel['name']} {direction}: {seconds:.1f} s")
            lines.append(f"| {panel['name']} | {panel['steps']} | {order_count} | {direction} | "
                         f"{seconds:.1f} | {rate:.3e} | {np.nanmax(estimate.mean()):.3e} |")
    lines.append(f"| total | | | | {overall:.1f} | | |")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per side (median)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of each case's sample count (1 = cases.CASES sizes)")
    parser.add_argument("--threads", type=int, default=None, help="Numba CPU threads")
    parser.add_argument("--seed", type=int, default=2025, help="seed of both sides")
    parser.add_argument("--samples-per-chunk", type=int, default=1024,
                        help="samples per RNG chunk (one GPU thread), both sides")
    parser.add_argument("--paper-fig2", action="store_true",
                        help="time chua25 Fig. 2 at paper scale on the GPU (needs a GPU)")
    parser.add_argument("--config", default="config/paper.yaml",
                        help="config holding chua25.fig2 (for --paper-fig2)")
    parser.add_argument("--samples", type=int, default=None,
                        help="--paper-fig2 samples per panel and direction (default: config)")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write the rows as JSON to FILE (dpsampling estimate reads "
                             "benchmarks/gpu.json for its GPU rates when the config says device: cuda)")
    return parser


def write_json(path, rows, *, gpu_name: str, threads: int) -> None:
    """The timed rows with the machine they ran on (read by ``dpsampling estimate``)."""
    document = {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "cpu": _cpu_name(), "threads": threads, "gpu": gpu_name or None, "rows": rows,
                "units": "seconds per call of samples draws; steps = T, orders = r (order statistics)"}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")


def main(argv=None) -> int:
    args = _parser().parse_args(argv)

    def log(message):
        print(message, file=sys.stderr, flush=True)

    try:
        repeats = check_int_at_least("--repeats", args.repeats, 1)
        scale = check_positive("--scale", args.scale)
        seed = check_int_at_least("--seed", args.seed, 0)
        per_chunk = check_int_at_least("--samples-per-chunk", args.samples_per_chunk, 1)
        if args.samples is not None:
            check_int_at_least("--samples", args.samples, 1)
        if args.threads is not None:
            numba.set_num_threads(check_int_at_least("--threads", args.threads, 1))
    except ValueError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    use_gpu = gpu.gpu_visible()
    if args.paper_fig2:
        if not use_gpu:
            why = " (the CUDA simulator does not count)" if gpu.cuda_available() else ""
            print(f"{PROG}: error: --paper-fig2 needs a CUDA GPU; none is visible{why}",
                  file=sys.stderr)
            return 2
        print(paper_fig2(args.config, seed=seed, samples=args.samples, log=log))
        return 0
    rows = []
    for case in GPU_CASES:
        case = case.scaled(scale)
        log(f"{case.name}: {case.samples} samples, T = {case.steps}")
        rows.append(time_case(case, repeats=repeats, seed=seed, samples_per_chunk=per_chunk,
                              use_gpu=use_gpu))
    gpu_name = gpu.device_name() if use_gpu else ""
    print(markdown_table(rows, gpu_name=gpu_name, threads=numba.get_num_threads()))
    if args.json:
        write_json(args.json, rows, gpu_name=gpu_name, threads=numba.get_num_threads())
        log(f"wrote {args.json}" + ("" if use_gpu else " (no GPU visible: no GPU timings in it)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["GPU_CASES", "main", "markdown_table", "paper_fig2", "time_case", "write_json"]
