"""``dpsampling estimate``: CPU core-hours per experiment of a config, before running it.

``--json``: an ``estimate`` answer (``output.answer``): ``rows`` one per experiment, ``run`` the
config files merged, ``attrs`` the jobs counted, the totals and the experiments not estimated."""

from __future__ import annotations

import argparse
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from dpsampling.cli.main import OneLineParser
from dpsampling.cli.output import answer, dump
from dpsampling.papers.registry import COSTS
from dpsampling.pipeline.config import ConfigError, check_config
from dpsampling.pipeline.estimate import (
    JobStarts,
    Rates,
    benchmarked_jobs,
    config_experiments,
    estimate,
    format_estimate,
    log,
    with_job_starts,
)
from dpsampling.yamlfile import InputFileError, read_yaml

DESCRIPTION = """\
Estimated CPU core-hours per experiment of a config, before running it: the work the config asks
for (accountant evaluations, training example-passes, Monte Carlo samples x steps) times the
CPU seconds per unit measured on this machine -- from a previous run's benchmarks/ when it had
the same numerical settings, otherwise by timing the experiment's kernels: whole where they are
cheap, else probed at a coarser accuracy or on sparser grids within a probing budget per
experiment and scaled back by the engine's measured scaling (about a minute on 2 cores, quick or
paper scale: see docs/ESTIMATE.md) -- plus the start of each job (a dry run counts the jobs; a new
Python importing one experiment module per paper times one start). Numba compilation is
measured apart and kept out of every rate: a fresh checkout pays it about once (compiled kernels
are cached), and it is shown in its own column. Config files are merged as snakemake does:
config/config.yaml, then each --configfile in order.

examples:
  dpsampling estimate --configfile config/paper.yaml
  dpsampling estimate --configfile config/paper.yaml --cores 64 --json"""


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configfile", nargs="+", default=[], metavar="FILE",
                        help="config files merged over config/config.yaml (as snakemake --configfile)")
    parser.add_argument("--directory", default=".", metavar="DIR", help="the workflow folder (default: .)")
    parser.add_argument("--cores", type=int, default=os.cpu_count(), help="cores for the wall-time line (>= 1)")
    parser.add_argument("--no-benchmarks", action="store_true", help="always calibrate; ignore benchmarks/")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--gpu-benchmark", default=None, metavar="FILE",
                        help="GPU rates for device: cuda, relative to --directory (default: benchmarks/gpu.json, "
                             "written by python -m dpsampling.benchmark.gpu --json FILE on a GPU node)")
    parser.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")
    return parser


def flags(args) -> dict:
    return {}


def merge(base: dict, update: dict) -> dict:
    """Nested dict update, as snakemake merges config files (lists are replaced)."""
    merged = dict(base)
    for key, value in update.items():
        merged[key] = merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
    return merged


def load_config(directory: Path, configfiles: list) -> dict:
    """config/config.yaml merged with each file; ValueError (one line) for a missing or bad file."""
    config = {}
    for name in [directory / "config" / "config.yaml", *configfiles]:
        path = Path(name)
        if not path.exists():
            raise ValueError(f"--configfile must name an existing file; got {str(name)!r}")
        try:
            content = read_yaml(path, "config file") or {}
        except InputFileError as error:
            raise ValueError(f"--configfile {error}") from None
        if not isinstance(content, dict):
            raise ValueError(f"--configfile must hold a mapping of config keys; got {type(content).__name__} in {str(name)!r}")
        config = merge(config, content)
    try:
        check_config(config, directory / "workflow" / "schemas" / "config.schema.yaml")
    except ConfigError as error:
        raise ValueError(str(error).splitlines()[0]) from error
    return config


def papers_of(experiments: list[str]) -> list[list[str]]:
    """The experiments grouped by paper (``<paper>_<name>``), in order: a paper's calibrations
    share their cache (one method's rate, one job start per paper), the papers' do not."""
    groups: dict[str, list[str]] = {}
    for experiment in experiments:
        groups.setdefault(JobStarts.paper(experiment), []).append(experiment)
    return list(groups.values())


def paper_works(directory: Path, config: dict, experiments: list[str], use_benchmarks: bool, gpu_benchmark):
    """``estimate`` of one paper's ``experiments`` with calibration caches of their own (a worker
    process's task; its job starts, when a previous run's benchmarks need them, timed here)."""
    rates = Rates(directory, use_benchmarks=use_benchmarks, progress=log, gpu_benchmark=gpu_benchmark,
                  job_start=JobStarts())
    return estimate(config, rates, COSTS, experiments=experiments)


def calibrated_works(directory: Path, config: dict, args) -> tuple[list, list[str]]:
    """Every experiment's work, the papers calibrated side by side in up to ``os.cpu_count()``
    worker processes (each paper's calibrations are CPU-bound and independent of the others'),
    in this process when there is one paper or one core."""
    groups = papers_of(config_experiments(config))
    settings = (not args.no_benchmarks, args.gpu_benchmark)
    workers = min(len(groups), os.cpu_count() or 1)
    if workers <= 1:
        parts = [paper_works(directory, config, group, *settings) for group in groups]
    else:
        context = multiprocessing.get_context("spawn")  # no fork of a process whose threads run
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            parts = list(pool.map(paper_works, *zip(*[(directory, config, group, *settings) for group in groups])))
    return [w for works, _ in parts for w in works], [u for _, unknown in parts for u in unknown]


def run(args) -> int:
    if args.cores is None or args.cores < 1:
        raise ValueError(f"--cores must be an integer >= 1; got {args.cores!r}")
    directory = Path(args.directory)
    if not (directory / "Snakefile").is_file():
        raise ValueError(f"--directory must be the workflow folder (with a Snakefile); got {args.directory!r}")
    config = load_config(directory, args.configfile)
    # the dry run (a Snakemake process, tens of seconds at paper scale) and the job starts (a new
    # Python per paper) run in other processes while the papers are calibrated: their wall time
    # overlaps the calibration's instead of adding to it
    log("counting the jobs (snakemake --forceall --dry-run) and timing the start of one job per paper, "
        "beside the calibration ...")
    starts = JobStarts()
    with ThreadPoolExecutor(max_workers=2) as pool:
        dry_run = pool.submit(benchmarked_jobs, directory, [Path(f).resolve() for f in args.configfile])
        timed = pool.submit(starts.measure, config_experiments(config))
        works, unknown = calibrated_works(directory, config, args)
        jobs, counted = dry_run.result()
        timed.result()
    works = with_job_starts(works, jobs, starts)
    summary = f"estimated CPU core-hours for {', '.join(args.configfile) or 'config/config.yaml'} ({counted})"
    if args.json:
        rows = [dict(w.__dict__, compute_hours=w.compute_hours, start_hours=w.start_hours, core_hours=w.core_hours,
                     compile_hours=w.compile_hours, gpu_hours=w.gpu_hours) for w in works]
        attrs = {"jobs": counted, "total_core_hours": sum(w.core_hours for w in works),
                 "total_compile_hours": sum(w.compile_hours for w in works),
                 "total_gpu_hours": sum(w.gpu_hours for w in works), "not_estimated": unknown}
        inputs = {name: getattr(args, name) for name in ("configfile", "directory", "cores", "no_benchmarks",
                                                          "gpu_benchmark")}
        run = [str(directory / "config" / "config.yaml"), *args.configfile]
        print(dump(answer("estimate", "estimate", inputs, run, attrs, summary, rows)))
    else:
        print(f"# {summary}")
        print(format_estimate(works, unknown, args.cores))
    return 0
