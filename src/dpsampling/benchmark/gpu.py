"""``python -m dpsampling.benchmark.gpu``: CPU vs GPU throughput of the balls-and-bins estimators.

Each case draws loss samples of the same law on both sides: ``ballsbins.sample_losses`` (Numba,
all cores unless --threads) and ``ballsbins.cuda.sample_losses_cuda`` (one GPU). By default both
draw the same samples (same seed, count and samples_per_chunk: the same streams, see
``ballsbins.cuda``); a GPU runs one thread per chunk and wants hundreds of thousands of them, so
``--gpu-scale`` multiplies the GPU side's sample count and ``--gpu-samples-per-chunk`` sets its
chunk length (the rows record both). ``--also-threads N`` times the CPU side on N threads too
(e.g. 2, for the speed-up against two cores) and prints a second table; the GPU is timed once.
Throughput is samples x steps per second (for order statistics: the T the draws stand for, not
the r orders computed). One untimed call at 1/100 of the size compiles the kernels first; the
median of --repeats timed calls is reported. Output: a Markdown table on stdout with the date,
the CPU and the GPU. With no GPU visible the GPU columns stay empty; the CUDA simulator is never
timed as if it were a GPU.

``--paper-fig2`` times the chua25 Fig. 2 work at paper scale on the GPU: the four panels of
``chua25.fig2`` in the config (T, order list, sigma, eps grid, shards x samples per shard =
5e8 samples), both directions, with streaming statistics (``loss_statistics_cuda``: no
sample stored), and prints one row per panel and direction with the time (after an untimed
compiling call) and the delta estimate's largest value. It refuses to run without a GPU.
``--samples N`` runs N samples per panel and direction instead; ``--time-limit S`` fits the run
into about S seconds (compiling included): the first panel's remove direction runs one shard
(``samples_per_shard``), then twice as many, and so on while all eight runs at the next size
are predicted (linearly from the last one) to end within the limit; the other seven run at the
size reached, each only if predicted to fit. Rows below paper scale are extrapolated linearly
to it and marked so: per-sample time falls as more threads fill the GPU, so the extrapolation
is an upper bound up to the rounding of the last wave of threads.

``--json FILE`` also writes the rows (with the method of each case) as JSON; ``dpsampling
estimate`` reads ``benchmarks/gpu.json`` for its GPU rates when the config says ``device: cuda``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
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


def cpu_name() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
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


def time_case(case: Case, *, repeats: int, seed: int, samples_per_chunk: int, use_gpu: bool,
              gpu_scale: float = 1.0, gpu_samples_per_chunk: int | None = None, also_threads=()) -> dict:
    """Median seconds of both sides on ``case`` (GPU entries None when ``use_gpu`` is False); the
    GPU side draws ceil(gpu_scale x samples) samples in chunks of gpu_samples_per_chunk (default:
    samples_per_chunk), recorded as ``gpu_samples`` and ``gpu_samples_per_chunk``. The CPU side
    runs on Numba's current thread count (``cpu_seconds``) and on each of ``also_threads``;
    ``cpu_seconds_by_threads`` maps each count (a string, as in JSON) to its seconds."""
    law = _law(case)
    gpu_samples = max(1, math.ceil(gpu_scale * case.samples))
    gpu_keywords = {"seed": seed, "samples_per_chunk": gpu_samples_per_chunk or samples_per_chunk}
    keywords = {"seed": seed, "samples_per_chunk": samples_per_chunk}
    sample_losses(law, max(1, case.samples // 100), **keywords)
    threads = numba.get_num_threads()
    by_threads = {}
    for count in dict.fromkeys((threads, *also_threads)):
        numba.set_num_threads(count)
        by_threads[str(count)] = _median_seconds(lambda: sample_losses(law, case.samples, **keywords),
                                                 repeats)
    numba.set_num_threads(threads)
    row = {"case": case.name, "method": case.method, "sigma": case.sigma, "steps": case.steps, "samples": case.samples,
           "orders": case.order_count, "cpu_seconds": by_threads[str(threads)],
           "cpu_seconds_by_threads": by_threads, "gpu_seconds": None,
           "gpu_samples": gpu_samples, "gpu_samples_per_chunk": gpu_keywords["samples_per_chunk"]}
    if use_gpu:
        gpu.sample_losses_cuda(law, max(1, gpu_samples // 100), **gpu_keywords)
        row["gpu_seconds"] = _median_seconds(
            lambda: gpu.sample_losses_cuda(law, gpu_samples, **gpu_keywords), repeats)
    return row


def _rate(row, seconds, samples="samples"):
    return None if seconds is None else row[samples] * row["steps"] / seconds


def _cell(value, fmt):
    return "" if value is None else format(value, fmt)


def markdown_table(rows, *, gpu_name: str, threads: int) -> str:
    """The throughput table (rate = samples x steps per second) with the CPU on ``threads``
    Numba threads (a count in the rows' ``cpu_seconds_by_threads``)."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"Balls-and-bins Monte Carlo throughput, {stamp}",
             "",
             f"- CPU: {cpu_name()}, {threads} Numba threads",
             f"- GPU: {gpu_name or 'none visible (GPU columns empty)'}",
             "- GPU side: " + ", ".join(f"{row['case']} {row['gpu_samples']} samples in chunks of "
                                        f"{row['gpu_samples_per_chunk']}" for row in rows),
             "",
             ("| estimator | sigma | T | samples | orders | CPU s | CPU samples x steps / s "
             "| GPU s | GPU samples x steps / s | GPU / CPU |"),
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        cpu_seconds = row["cpu_seconds_by_threads"][str(threads)]
        cpu_rate = _rate(row, cpu_seconds)
        gpu_rate = _rate(row, row["gpu_seconds"], "gpu_samples")
        ratio = None if gpu_rate is None else gpu_rate / cpu_rate
        lines.append(
            f"| {row['case']} | {row['sigma']} | {row['steps']} | {row['samples']} | "
            f"{row['orders'] or ''} | {cpu_seconds:.3g} | {cpu_rate:.3e} | "
            f"{_cell(row['gpu_seconds'], '.3g')} | {_cell(gpu_rate, '.3e')} | "
            f"{_cell(ratio, '.1f')} |")
    return "\n".join(lines)


def _fig2_runs(pairs, full, shard, samples, time_limit, run, clock):
    """Run ``run(pair, n)`` (a row with its ``seconds``) for every (panel, direction) pair: at
    ``samples`` (default ``full``) each, or, with ``time_limit``, by the ramp of the module
    docstring (pairs predicted not to fit get a row with ``seconds`` None)."""
    if time_limit is None:
        return [run(pair, samples or full) for pair in pairs]
    deadline = clock() + time_limit  # the compiling call happened before: callers subtract it
    size = min(samples or shard, full)
    rows = [run(pairs[0], size)]
    while size < full:
        bigger = min(2 * size, full)
        if clock() + len(pairs) * rows[-1]["seconds"] * bigger / size > deadline:
            break
        size = bigger
        rows.append(run(pairs[0], size))
    per_pair = rows[-1]["seconds"]
    for pair in pairs[1:]:
        fits = clock() + per_pair <= deadline
        rows.append(run(pair, size) if fits else dict(run(pair, size, dry=True), seconds=None))
    return rows


def paper_fig2(config_path, *, seed: int, samples: int | None, log, time_limit=None) -> str:
    """Time chua25 Fig. 2 (four panels x two directions) on the GPU; a Markdown table (see the
    module docstring for ``samples`` and ``time_limit``)."""
    started = time.perf_counter()
    config = yaml.safe_load(Path(config_path).read_text())
    fig2 = config["chua25"]["fig2"]
    grid_spec = fig2["epsilon_grid"]
    grid = np.linspace(grid_spec["start"], grid_spec["stop"], int(grid_spec["num"]))
    plan = fig2["order_statistics"]
    shard = int(plan["samples_per_shard"])
    full = int(plan["shards"]) * shard
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    root = np.random.SeedSequence(seed)
    panels = fig2["panels"]
    first = panels[0]
    gpu.loss_statistics_cuda(LossLaw("order_statistics", first["sigma"], first["steps"], "remove",
                                     first["orders"]), 1, grid, seed=root)  # compile, untimed
    compiled = time.perf_counter() - started
    log(f"compiled in {compiled:.1f} s")

    def run(pair, size, dry=False):
        p_index, d_index = pair
        panel, direction = panels[p_index], ("remove", "add")[d_index]
        row = {"panel": panel["name"], "steps": panel["steps"], "direction": direction, "samples": size,
               "orders": len(validate_orders(panel["orders"], panel["steps"])), "seconds": None}
        if dry:
            log(f"{panel['name']} {direction}: not run (predicted past the time limit)")
            return row
        child = np.random.SeedSequence(root.entropy, spawn_key=(p_index, d_index))
        law = LossLaw("order_statistics", panel["sigma"], panel["steps"], direction, panel["orders"])
        start = time.perf_counter()
        estimate = gpu.loss_statistics_cuda(law, size, grid, seed=child)
        row.update(seconds=time.perf_counter() - start, max_delta=float(np.nanmax(estimate.mean())))
        log(f"{panel['name']} {direction}: {size} samples in {row['seconds']:.2f} s")
        return row

    pairs = [(p, d) for p in range(len(panels)) for d in range(2)]
    limit = None if time_limit is None else max(0.0, time_limit - compiled)
    rows = _fig2_runs(pairs, full, shard, samples, limit, run, time.perf_counter)
    return fig2_table(rows, full=full, grid_size=grid.size, compiled=compiled, stamp=stamp)


def fig2_table(rows, *, full: int, grid_size: int, compiled: float, stamp: str) -> str:
    """Markdown table of the Fig. 2 runs; the total sums each pair's last row at paper scale."""
    lines = [(f"chua25 Fig. 2 on {gpu.device_name()}, {stamp}: order statistics, paper scale {full} "
              f"samples per panel and direction, streaming statistics on {grid_size} eps values; "
              f"kernel compiled in {compiled:.1f} s (not counted)"),
             "",
             "| panel | T | orders | direction | samples | seconds | samples x steps / s "
             "| seconds at paper scale | max delta |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    last = {}
    for row in rows:
        last[(row["panel"], row["direction"])] = row
        head = (f"| {row['panel']} | {row['steps']} | {row['orders']} | {row['direction']} | "
                f"{row['samples']} |")
        if row["seconds"] is None:
            lines.append(head + " not run (time limit) | | | |")
            continue
        paper = row["seconds"] * full / row["samples"]
        mark = "" if row["samples"] == full else " (extrapolated)"
        lines.append(head + f" {row['seconds']:.2f} | {row['samples'] * row['steps'] / row['seconds']:.3e} | "
                            f"{paper:.1f}{mark} | {row['max_delta']:.3e} |")
    done = [row for row in last.values() if row["seconds"] is not None]
    total = sum(row["seconds"] * full / row["samples"] for row in done)
    if len(done) < len(last):
        verdict = f"incomplete: {len(last) - len(done)} of {len(last)} panel-directions not run"
    elif all(row["samples"] == full for row in done):
        verdict = "measured at paper scale"
    else:
        verdict = ("extrapolated linearly from the measured samples (an upper bound up to the "
                   "last wave of threads)")
    lines.append(f"| total | | | | | | | {total:.1f} | |")
    lines += ["", f"Total at paper scale: {total:.1f} s = {total / 60:.1f} min, {verdict}."]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per side (median)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of each case's sample count (1 = cases.CASES sizes)")
    parser.add_argument("--threads", type=int, default=None, help="Numba CPU threads")
    parser.add_argument("--also-threads", type=int, default=None, metavar="N",
                        help="also time the CPU side on N threads (one more table; the GPU is timed once)")
    parser.add_argument("--seed", type=int, default=2025, help="seed of both sides")
    parser.add_argument("--samples-per-chunk", type=int, default=1024,
                        help="samples per RNG chunk (one GPU thread), both sides")
    parser.add_argument("--paper-fig2", action="store_true",
                        help="time chua25 Fig. 2 at paper scale on the GPU (needs a GPU)")
    parser.add_argument("--config", default="config/paper.yaml",
                        help="config holding chua25.fig2 (for --paper-fig2)")
    parser.add_argument("--samples", type=int, default=None,
                        help="--paper-fig2 samples per panel and direction (default: config; with "
                             "--time-limit: the first size of the ramp)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="--paper-fig2: fit the run into about this many seconds, extrapolating "
                             "to paper scale (see the module docstring)")
    parser.add_argument("--gpu-scale", type=float, default=1.0,
                        help="GPU side's sample count / the CPU side's (a GPU wants many threads)")
    parser.add_argument("--gpu-samples-per-chunk", type=int, default=None,
                        help="GPU side's samples per chunk (one GPU thread); default --samples-per-chunk")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write the rows as JSON to FILE (dpsampling estimate reads "
                             "benchmarks/gpu.json for its GPU rates when the config says device: cuda)")
    return parser


def write_json(path, rows, *, gpu_name: str, threads: int) -> None:
    """The timed rows with the machine they ran on (read by ``dpsampling estimate``)."""
    document = {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "cpu": cpu_name(), "threads": threads, "gpu": gpu_name or None, "rows": rows,
                "units": ("seconds per call: cpu_seconds of samples draws, gpu_seconds of gpu_samples "
                          "draws; steps = T, orders = r (order statistics)")}
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
        if args.time_limit is not None:
            check_positive("--time-limit", args.time_limit)
        gpu_scale = check_positive("--gpu-scale", args.gpu_scale)
        gpu_per_chunk = None if args.gpu_samples_per_chunk is None else check_int_at_least(
            "--gpu-samples-per-chunk", args.gpu_samples_per_chunk, 1)
        if args.threads is not None:
            numba.set_num_threads(check_int_at_least("--threads", args.threads, 1))
        also = () if args.also_threads is None else (check_int_at_least(
            "--also-threads", args.also_threads, 1),)
        if also and also[0] > numba.config.NUMBA_NUM_THREADS:
            raise ValueError(f"--also-threads must be at most {numba.config.NUMBA_NUM_THREADS} "
                             f"(NUMBA_NUM_THREADS); got {also[0]}")
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
        print(paper_fig2(args.config, seed=seed, samples=args.samples, log=log,
                         time_limit=args.time_limit))
        return 0
    rows = []
    for case in GPU_CASES:
        case = case.scaled(scale)
        log(f"{case.name}: {case.samples} samples, T = {case.steps}")
        rows.append(time_case(case, repeats=repeats, seed=seed, samples_per_chunk=per_chunk,
                              use_gpu=use_gpu, gpu_scale=gpu_scale, gpu_samples_per_chunk=gpu_per_chunk,
                              also_threads=also))
    gpu_name = gpu.device_name() if use_gpu else ""
    print("\n\n".join(markdown_table(rows, gpu_name=gpu_name, threads=count)
                      for count in dict.fromkeys((numba.get_num_threads(), *also))))
    if args.json:
        write_json(args.json, rows, gpu_name=gpu_name, threads=numba.get_num_threads())
        log(f"wrote {args.json}" + ("" if use_gpu else " (no GPU visible: no GPU timings in it)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["GPU_CASES", "cpu_name", "fig2_table", "main", "markdown_table", "paper_fig2", "time_case",
           "write_json"]
