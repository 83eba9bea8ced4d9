"""Core-hours per experiment before a run: work in the config x measured seconds per unit of work.

``estimate(config, Rates(root))`` returns one ``Work`` per experiment of the config: ``units`` of
work (what the config asks for: accountant evaluations, training example-passes, Monte Carlo
samples x steps, ...) times ``seconds_per_unit`` (CPU seconds of one core per unit, measured on
this machine) = core-seconds. The rate is measured in one of two ways, and the table says which:

- ``benchmarks``: a previous run's ``benchmarks/<experiment>/**/*.tsv`` (CPU seconds summed over
  its jobs) divided by the units of the run that produced ``results/<experiment>/<file>``, read
  from the parameters recorded in that file's metadata. Free, and exact for that machine when
  the cost per unit does not depend on the scale;
- ``calibration``: a short timing of the experiment's own kernel at the config's settings
  (one sigma, a few eps values, a small training set ...), done on the spot.

Adding an experiment family (e.g. a Monte Carlo sampler): write
``work_and_rate(experiment, config, rates) -> Work`` and register it under its config block::

    @register("chua25.fig2")            # or a whole paper: @register("lebeda24")
    def chua25_fig2_work(experiment, config, rates):
        block = config["chua25"]["fig2"]
        units = 2 * block["samples"] * block["steps"]            # both directions
        def units_of(parameters):                                 # the same, from a result file
            return 2 * parameters["spec"]["samples"] * parameters["spec"]["steps"]
        rate = rates.measured(experiment, "delta.parquet", units_of,
                              comparable=lambda parameters: parameters["spec"]["sigma"] == block["sigma"])
        if rate is None:  # time 10,000 samples per direction with the config's own T and sigma
            small = dict(block, samples=10_000)
            rate = rates.calibrate(experiment, lambda: (cpu_seconds(lambda: draw_samples(small)), units_of({"spec": small})))
        return Work(experiment, units, "samples x steps", *rate)

``rates.measured`` returns (seconds per unit, source), or None when there is no previous run or
its recorded parameters are not ``comparable`` (settings the cost per unit depends on);
``rates.calibrate(key, timing)`` runs ``timing() -> (CPU seconds, units)`` once per key and
returns (seconds per unit, source). Experiments of the config without a registered family are
listed as such (the lookup is by config block: ``chua25.fig2`` first, then ``chua25``).

GPU work (config ``device: cuda``): an experiment whose Monte Carlo runs on a GPU reports its GPU
seconds in ``Work.gpu_seconds`` (GPU-hours beside the core-hours), from the per-method rates of a GPU
benchmark (``rates.gpu_benchmark()``: the JSON ``python -m dpsampling.benchmark.gpu --json`` writes,
``benchmarks/gpu.json`` by default); without one the CPU rate is used and the source says so.

The estimate is a model: linear in the units, with the per-unit cost measured at one setting.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dpsampling.io import read_metadata
from dpsampling.pipeline.report import benchmark_totals, natural_key

PAPER_BLOCK = re.compile(r"[a-z]+[0-9]{2}")
GPU_BENCHMARK = "benchmarks/gpu.json"


@dataclass(frozen=True)
class Work:
    """The cost of one experiment: units x seconds_per_unit core-seconds."""

    experiment: str
    units: float
    unit: str
    seconds_per_unit: float
    source: str
    gpu_seconds: float = 0.0
    """GPU seconds on top of the CPU work (the part of the experiment that runs on a GPU)."""

    @property
    def core_hours(self) -> float:
        return self.units * self.seconds_per_unit / 3600

    @property
    def gpu_hours(self) -> float:
        return self.gpu_seconds / 3600


ESTIMATORS: dict[str, Callable] = {}


def register(block: str):
    """Register ``work_and_rate(experiment, config, rates) -> Work`` for a config block."""

    def decorator(function):
        ESTIMATORS[block] = function
        return function

    return decorator


class Rates:
    """Seconds per unit of work: from a previous run's benchmarks, or a calibration timing."""

    def __init__(self, root=".", use_benchmarks: bool = True, progress=None, gpu_benchmark=None):
        self.root = Path(root)
        self.use_benchmarks = use_benchmarks
        self.progress = progress or (lambda message: None)
        self.gpu_benchmark_path = self.root / (gpu_benchmark or GPU_BENCHMARK)
        self._calibrated: dict = {}

    def gpu_benchmark(self) -> tuple[dict | None, str]:
        """(the GPU benchmark document, where it is) or (None, why there is none): the JSON of
        ``python -m dpsampling.benchmark.gpu --json FILE`` with GPU timings in its rows."""
        path = self.gpu_benchmark_path
        if not path.is_file():
            return None, (f"no GPU benchmark at {path} (python -m dpsampling.benchmark.gpu --json {path} "
                          "on a GPU node writes one)")
        try:
            document = json.loads(path.read_text())
            rows = [row for row in document["rows"] if row.get("gpu_seconds")]
        except (ValueError, KeyError, TypeError) as error:
            return None, f"the GPU benchmark {path} is not readable ({error})"
        if not rows:
            return None, f"the GPU benchmark {path} has no GPU timings (it ran without a visible GPU)"
        return dict(document, rows=rows), str(path)

    def measured(self, experiment: str, result_file: str, units_of: Callable[[dict], float],
                 comparable: Callable[[dict], bool] = lambda parameters: True):
        """(CPU seconds / units, source) of the last run of ``experiment``, or None when there is
        no such run or its recorded parameters are not ``comparable`` (the cost per unit depends
        on them: e.g. T, the PLD accuracy)."""
        if not self.use_benchmarks:
            return None
        path = self.root / "results" / experiment / result_file
        totals = benchmark_totals(self.root / "benchmarks", experiment)
        if not path.exists() or totals["jobs"] == 0 or totals["cpu_s"] <= 0:
            return None
        parameters = read_metadata(path)["parameters"]
        if not comparable(parameters):
            return None
        units = units_of(parameters)
        return totals["cpu_s"] / units, f"benchmarks: {totals['cpu_s']:.0f} CPU s / {units:g} units of {path}"

    def cached(self, key: str, function: Callable):
        """``function()`` (a calibration timing), run once per key."""
        if key not in self._calibrated:
            self.progress(f"calibrating {key} ...")
            self._calibrated[key] = function()
        return self._calibrated[key]

    def calibrate(self, key: str, timing: Callable[[], tuple]):
        """Run ``timing() -> (CPU seconds, units)`` once per key; return (seconds / units, source)."""
        seconds, units = self.cached(key, timing)
        return seconds / units, f"calibration: {seconds:.2f} CPU s for {units:g} units"


def cpu_seconds(function) -> float:
    """CPU seconds of this process spent in ``function()``."""
    start = time.process_time()
    function()
    return time.process_time() - start


def config_experiments(config: dict) -> list[str]:
    """Experiment ids of a config: <paper>_<name> for each block config[paper][name] of a paper
    block (a top-level key like chua24 whose values are blocks)."""
    names = []
    for paper, block in config.items():
        if PAPER_BLOCK.fullmatch(paper) and isinstance(block, dict):
            names += [f"{paper}_{name}" for name, value in block.items() if isinstance(value, dict)]
    return sorted(names, key=natural_key)


def estimator_for(experiment: str):
    paper, name = experiment.split("_", 1)
    return ESTIMATORS.get(f"{paper}.{name}") or ESTIMATORS.get(paper)


def estimate(config: dict, rates: Rates) -> tuple[list[Work], list[str]]:
    """(Work of each experiment of the config with a family registered by its paper's cost model
    (``dpsampling.papers.registry`` imports them all), experiments without one)."""
    works, unknown = [], []
    for experiment in config_experiments(config):
        function = estimator_for(experiment)
        if function is None:
            unknown.append(experiment)
        else:
            works.append(function(experiment, config, rates))
    return works, unknown


def _hours(work: Work) -> str:
    return f"{work.core_hours:>10.3g}" + (f" + {work.gpu_hours:.3g} GPU-h" if work.gpu_seconds else "")


def format_estimate(works: list[Work], unknown: list[str], cores: int | None = None) -> str:
    """The table printed by ``dpsampling estimate``."""
    name = max([16, *(len(w.experiment) for w in works)])
    unit = max([28, *(len(w.unit) for w in works)])
    lines = [f"{'experiment':<{name}} {'units of work':>14}  {'unit':<{unit}} {'CPU s/unit':>10} {'core-hours':>10}  rate from"]
    for w in works:
        lines.append(f"{w.experiment:<{name}} {w.units:>14.4g}  {w.unit:<{unit}} {w.seconds_per_unit:>10.3g} "
                     f"{_hours(w)}  {w.source}")
    total = sum(w.core_hours for w in works)
    gpu_total = sum(w.gpu_hours for w in works)
    lines.append(f"{'total':<{name}} {'':>14}  {'':<{unit}} {'':>10} {total:>10.3g}"
                 + (f" + {gpu_total:.3g} GPU-hours (one GPU per sampling job)" if gpu_total else ""))
    if cores:
        lines.append(f"On {cores} cores: at least {total / cores:.3g} hours of wall time (perfect parallelism; "
                     "the longest single job is a floor too).")
    for name in unknown:
        lines.append(f"{name}: no estimator registered (see dpsampling.pipeline.estimate); not included in the total")
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)

