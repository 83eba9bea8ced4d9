"""Core-hours per experiment before a run: work in the config x measured seconds per unit of work.

``estimate(config, Rates(root), costs)`` returns one ``Work`` per experiment of the config: ``units`` of
work (what the config asks for: accountant evaluations, training example-passes, Monte Carlo
samples x steps, ...) times ``seconds_per_unit`` (CPU seconds of one core per unit, measured on
this machine) = core-seconds. The rate is measured in one of two ways, and the table says which:

- ``benchmarks``: a previous run's ``benchmarks/<experiment>/**/*.tsv`` (CPU seconds summed over
  its jobs) divided by the units of the run that produced ``results/<experiment>/<file>``, read
  from the parameters recorded in that file's metadata. Free, and exact for that machine when
  the cost per unit does not depend on the scale;
- ``calibration``: a short timing of the experiment's own kernel at the config's settings
  (one sigma, a few eps values, a small training set ...), done on the spot. Where the whole
  timing would be dear (a fine accuracy, a long eps grid, many settings) ``Rates.probed`` runs a
  ``probe_ladder``: the computation at a coarser accuracy or on a sparser grid, from the cheapest
  on, the next probe only while the budget (``PROBE_BUDGET_SECONDS`` CPU s per experiment) holds
  its predicted cost, and the whole predicted by the engine's scaling (``power_law``:
  accuracy ** -``PLD_ACCURACY_EXPONENT``; ``affine_in_points``, ``in_proportion``: grid points).

Adding an experiment family (e.g. a Monte Carlo sampler): write
``work_and_rate(experiment, config, rates) -> Work`` and give it as the experiment's ``cost``; the
cost table ``costs`` ({config block: work_and_rate}, ``dpsampling.papers.registry.COSTS``, built from
the experiments' records) is passed to ``estimate`` explicitly::

    def chua25_fig2_work(experiment, config, rates):          # COSTS["chua25.fig2"]
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
returns (seconds per unit, source). Experiments of the config without an entry in ``costs`` are
listed as such (the lookup is by config block: ``chua25.fig2`` first, then ``chua25``).

GPU work (config ``device: cuda``): an experiment whose Monte Carlo runs on a GPU reports its GPU
seconds in ``Work.gpu_seconds`` (GPU-hours beside the core-hours), from the per-method rates of a GPU
benchmark (``rates.gpu_benchmark()``: the JSON ``python -m dpsampling.benchmark.gpu --json`` writes,
``benchmarks/gpu.json`` by default); without one the CPU rate is used and the source says so.

The estimate is a model: linear in the units, with the per-unit cost measured at one setting.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from dpsampling.io import read_metadata
from dpsampling.lazy import lazy_import
from dpsampling.pipeline.report import benchmark_totals, natural_key

numba = lazy_import("numba")  # its compile events, listened to from the first estimate on

PAPER_BLOCK = re.compile(r"[a-z]+[0-9]{2}")
GPU_BENCHMARK = "benchmarks/gpu.json"
PROBE_BUDGET_SECONDS = 2.0
"""CPU seconds of probing per experiment (``Rates.probe_budget``): a probe is started only while the
ones so far and its predicted cost fit in it (the first, cheapest one always runs)."""
PLD_ACCURACY_EXPONENT = 0.5
"""The certified engines' CPU seconds go like (relative accuracy) ** -0.5, in steps (measured
2026-11-29/30, 2 cores, loaded): chua24 eps(delta) at sigma 0.3, T 1e4, 3 samplers 1.64, 4.27, 7.85
and 27.6 s at accuracy 0.1, 0.04, 0.01, 0.001 (exponents 0.68, 0.44, 0.6); lebeda24 Table 1 5.7 s at
its quick 1e-3 and 16.0 at its paper 1e-4 (0.45); lebeda24 subst_gaussian 3.9 at 1e-2, 12.5 at 1e-3
(0.5)."""
ACCURACY_COARSENINGS = (100.0, 30.0, 10.0, 3.0, 1.0)
"""The accuracy probes: up to 100x coarser than asked (``Rates.probed`` with ``power_law``)."""
MAX_ACCURACY = 0.5
"""The coarsest relative accuracy probed."""


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
    jobs: int = 0
    """Benchmarked jobs of the experiment in the workflow (a dry run counts them; 0: not counted)."""
    job_start_seconds: float = 0.0
    """CPU seconds one of its jobs spends starting (Python and the imports of its script)."""
    compile_seconds: float = 0.0
    """CPU seconds of Numba compilation while calibrating it: not in ``core_hours``; a fresh
    checkout pays about this once (compiled kernels are cached), reported apart."""

    @property
    def compute_hours(self) -> float:
        """The work itself: units x seconds per unit."""
        return self.units * self.seconds_per_unit / 3600

    @property
    def start_hours(self) -> float:
        return self.jobs * self.job_start_seconds / 3600

    @property
    def core_hours(self) -> float:
        """The work and the start of its jobs (Numba compilation apart: ``compile_hours``)."""
        return self.compute_hours + self.start_hours

    @property
    def compile_hours(self) -> float:
        return self.compile_seconds / 3600

    @property
    def gpu_hours(self) -> float:
        return self.gpu_seconds / 3600


class Rates:
    """Seconds per unit of work: from a previous run's benchmarks, or a calibration timing."""

    def __init__(self, root=".", use_benchmarks: bool = True, progress=None, gpu_benchmark=None, job_start=None,
                 probe_budget: float = PROBE_BUDGET_SECONDS):
        self.root = Path(root)
        self.probe_budget = probe_budget
        """CPU seconds of probing per ladder (``probed``): an experiment with k ladders may give each 1/k."""
        self.use_benchmarks = use_benchmarks
        self.progress = progress or (lambda message: None)
        self.gpu_benchmark_path = self.root / (gpu_benchmark or GPU_BENCHMARK)
        self._calibrated: dict = {}
        self.job_start = job_start or (lambda experiment: 0.0)
        """experiment -> CPU seconds one of its jobs spends starting (``JobStarts``; none by default)."""
        self.compile_seconds = 0.0
        """Numba compilation during the calibrations so far (``compile_clock``), kept out of every rate."""

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
        start = totals["jobs"] * self.job_start(experiment)
        work = totals["cpu_s"] - start
        if work < 0.1 * totals["cpu_s"]:  # nearly all start-up: the run says nothing about the work
            return None
        less = f" less {start:.0f} s of {totals['jobs']} job starts" if start else ""
        return work / units, f"benchmarks: {totals['cpu_s']:.0f} CPU s{less} / {units:g} units of {path}"

    def cached(self, key: str, function: Callable):
        """``function()`` (a calibration timing), run once per key."""
        if key not in self._calibrated:
            self.progress(f"calibrating {key} ...")
            clock = compile_clock()
            compiled = clock.seconds
            self._calibrated[key] = function()
            self.compile_seconds += clock.seconds - compiled
        return self._calibrated[key]

    def calibrate(self, key: str, timing: Callable[[], tuple]):
        """Run ``timing() -> (CPU seconds, units)`` once per key; return (seconds / units, source)."""
        seconds, units = self.cached(key, timing)
        return seconds / units, f"calibration: {seconds:.2f} CPU s for {units:g} units"

    def probed(self, key: str, run_at: Callable[[float], float], coarsenings, model, first: int = 1,
               budget: float | None = None):
        """(CPU seconds of the whole computation, source) from ``probe_ladder`` within ``budget`` (or
        ``probe_budget``), once per key; each probe's own CPU time is measured here (``run_at`` may
        return a time scaled by a model factor: the budget counts what the probe spent)."""
        def measured(coarsening: float):
            start = time.process_time()
            seconds = run_at(coarsening)
            return seconds, time.process_time() - start

        limit = self.probe_budget if budget is None else budget
        whole, probes, _ = self.cached(key, lambda: probe_ladder(measured, coarsenings, limit, model, first))
        return whole, f"calibration: {describe_probes(probes, whole)}"


def power_law(exponent: float) -> Callable[[list, float], float]:
    """The cost model of probes at coarsening c >= 1 when the cost goes like c ** -exponent (e.g. an
    accuracy c times coarser): the seconds at c predicted from the finest probe (c_p, t_p) as
    t_p (c_p / c) ** exponent."""

    def seconds_at(probes: list, coarsening: float) -> float:
        probed, seconds = probes[-1]
        return seconds * (probed / coarsening) ** exponent

    return seconds_at


def affine_in_points(points_of: Callable[[float], float]) -> Callable[[list, float], float]:
    """The cost model of probes on thinned grids (``points_of(c)`` grid points at thinning c, c = 1
    the whole grid) when the cost is a fixed part + a part per point: a + b n fitted on the two
    finest probes. A fit with b < 0 (the finer probe cost less: the fixed part is all, up to noise)
    gives the finest probe's time; one with a < 0, or one probe, the time in proportion to the
    points."""

    def seconds_at(probes: list, coarsening: float) -> float:
        wanted = points_of(coarsening)
        c2, t2 = probes[-1]
        n2 = points_of(c2)
        if len(probes) >= 2:
            c1, t1 = probes[-2]
            n1 = points_of(c1)
            if n2 > n1:
                per_point = (t2 - t1) / (n2 - n1)
                fixed = t2 - per_point * n2
                if per_point < 0:
                    return t2
                if fixed >= 0:
                    return fixed + per_point * wanted
        return t2 * wanted / max(n2, 1.0)

    return seconds_at


def in_proportion(points_of: Callable[[float], float]) -> Callable[[list, float], float]:
    """The cost model of probes on a part of the work (``points_of(c)`` items at thinning c, c = 1
    all of them) when each item costs its own: the finest probe's time x the ratio of items."""

    def seconds_at(probes: list, coarsening: float) -> float:
        probed, seconds = probes[-1]
        return seconds * points_of(coarsening) / max(points_of(probed), 1.0)

    return seconds_at


def probe_ladder(run_at: Callable[[float], float | tuple[float, float]], coarsenings, budget: float,
                 model: Callable[[list, float], float], first: int = 1) -> tuple[float, list, float]:
    """(CPU seconds of the whole computation, probes [(coarsening, CPU s)], CPU s spent probing).

    ``run_at(c)`` runs the computation c times coarser (c = 1: the computation itself) and returns
    its CPU seconds as the model counts them, or (those, the CPU seconds the probe itself spent)
    when they differ (a probe at a coarser accuracy whose time is scaled back by a known factor).
    The coarsenings are probed from the coarsest (cheapest) on: the ``first`` ones always (a fit
    needs two), each further one only while the CPU seconds spent so far and its predicted spending
    (``model(probes, c)``, in the ratio of spent to counted seconds of the last probe) fit in
    ``budget``. So the probing spends at most the budget plus the first probes, as far as the
    model holds. When c = 1 was reached its time is the answer (timed whole), otherwise the model's
    prediction at c = 1."""
    ladder = sorted({float(c) for c in coarsenings}, reverse=True)
    if not ladder or ladder[-1] != 1.0 or ladder[0] < 1.0:
        raise ValueError(f"coarsenings must be >= 1 and include 1 (the computation itself); got {list(coarsenings)!r}")
    probes: list[tuple[float, float]] = []
    spent = 0.0
    spent_per_second = 1.0
    for coarsening in ladder:
        if len(probes) >= first and spent + model(probes, coarsening) * spent_per_second > budget:
            break
        answer = run_at(coarsening)
        seconds, cost = answer if isinstance(answer, tuple) else (answer, answer)
        spent += cost
        spent_per_second = cost / seconds if seconds > 0 else 1.0
        probes.append((coarsening, seconds))
    if probes[-1][0] == 1.0:
        return probes[-1][1], probes, spent
    return model(probes, 1.0), probes, spent


def describe_probes(probes: list, whole: float) -> str:
    """'timed whole' or which probes the whole was predicted from."""
    if probes[-1][0] == 1.0:
        return f"timed whole ({whole:.3g} CPU s)"
    shown = ", ".join(f"{seconds:.2g} s at 1/{coarsening:g}" for coarsening, seconds in probes)
    return f"predicted {whole:.3g} CPU s from probes ({shown})"


class CompileClock:  # a numba.core.event.Listener (registered as one, see compile_clock)
    """CPU seconds this process spends compiling Numba functions: the outermost ``numba:compile``
    events (a function compiled while compiling another counts once). Loading a compiled
    function from Numba's cache is not compiling and is not counted."""

    def __init__(self):
        self.seconds = 0.0
        self._depth = 0
        self._start = 0.0

    def on_start(self, event) -> None:
        if self._depth == 0:
            self._start = time.process_time()
        self._depth += 1

    def on_end(self, event) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.process_time() - self._start


_CLOCK: CompileClock | None = None


def compile_clock() -> CompileClock:
    """The process's compile clock, listening to Numba from the first call on."""
    global _CLOCK
    if _CLOCK is None:
        listener = type("CompileListener", (CompileClock, numba.core.event.Listener), {})
        _CLOCK = listener()
        numba.core.event.register("numba:compile", _CLOCK)
    return _CLOCK


def cpu_seconds(function) -> float:
    """CPU seconds of this process spent in ``function()``, less the time spent compiling Numba
    functions meanwhile (which ``compile_clock()`` counts apart): the cost of the work itself."""
    clock = compile_clock()
    start, compiled = time.process_time(), clock.seconds
    function()
    return max(time.process_time() - start - (clock.seconds - compiled), 0.0)


def start_seconds(module: str) -> float:
    """CPU seconds of a new Python process that imports ``module`` and exits: what a job spends
    before its work (its script imports the experiment's module and the library)."""
    process = subprocess.Popen([sys.executable, "-c", f"import {module}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def first_use_seconds(setup: str, statement: str) -> float:
    """CPU seconds a new Python process spends on its first run of ``statement`` (after ``setup``)
    beyond its second: what a job pays once for what its computation loads on first use (lazily
    imported libraries, Numba kernels read from their cache), on top of ``start_seconds``."""
    code = (f"import time\n{setup}\nfor _ in range(2):\n    start = time.process_time()\n    {statement}\n"
            "    print(time.process_time() - start)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, second = map(float, result.stdout.split()[-2:])
    return max(first - second, 0.0)


class JobStarts:
    """experiment -> CPU seconds one of its jobs spends starting: ``start_seconds`` of one module per
    paper (``dpsampling.papers.<paper>.<name>`` of its first experiment), measured once and shared
    by the paper's experiments, the papers at the same time (``measure``). One per experiment cost
    24 processes (36 CPU s) at paper scale; they differ by up to 0.5 s (0.94 to 1.92 s measured
    one by one, 2026-11-29, loaded)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    @staticmethod
    def module(experiment: str) -> str:
        paper, name = experiment.split("_", 1)
        module = f"dpsampling.papers.{paper}.{name}"
        return module if importlib.util.find_spec(module) is not None else "dpsampling.io"

    @staticmethod
    def paper(experiment: str) -> str:
        return experiment.split("_", 1)[0]

    def measure(self, experiments) -> None:
        todo = [e for e in experiments if e not in self.seconds]
        first = {}
        for experiment in todo:
            first.setdefault(self.paper(experiment), experiment)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            timed = dict(zip(first, pool.map(lambda e: start_seconds(self.module(e)), first.values())))
        self.seconds.update({e: timed[self.paper(e)] for e in todo})

    def __call__(self, experiment: str) -> float:
        if experiment not in self.seconds:
            self.measure([experiment])
        return self.seconds[experiment]


BENCHMARK_LINE = re.compile(r"^\s*benchmark: benchmarks/([^/\s]+)/", re.MULTILINE)


def count_benchmarked_jobs(dry_run: str) -> dict[str, int]:
    """experiment -> jobs with a benchmark under benchmarks/<experiment>/, from a dry run's text."""
    counts: dict[str, int] = {}
    for experiment in BENCHMARK_LINE.findall(dry_run):
        counts[experiment] = counts.get(experiment, 0) + 1
    return counts


def benchmarked_jobs(directory, configfiles=()) -> tuple[dict[str, int] | None, str]:
    """(experiment -> its benchmarked jobs in a whole run of the workflow, how they were counted),
    from ``snakemake --forceall --dry-run``; (None, why) when the dry run fails."""
    command = [sys.executable, "-m", "snakemake", "--forceall", "--dry-run", "--cores", "1",
               *(["--configfile", *map(str, configfiles)] if configfiles else [])]
    result = subprocess.run(command, cwd=directory, capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"job start-up not counted: the dry run failed ({last})"
    return count_benchmarked_jobs(result.stdout + result.stderr), "jobs counted by snakemake --forceall --dry-run"


def config_experiments(config: dict) -> list[str]:
    """Experiment ids of a config: <paper>_<name> for each block config[paper][name] of a paper
    block (a top-level key like chua24 whose values are blocks)."""
    names = []
    for paper, block in config.items():
        if PAPER_BLOCK.fullmatch(paper) and isinstance(block, dict):
            names += [f"{paper}_{name}" for name, value in block.items() if isinstance(value, dict)]
    return sorted(names, key=natural_key)


def estimator_for(experiment: str, costs: dict[str, Callable]):
    """The cost model entry of ``experiment`` in ``costs``: its block's (``chua25.fig2``), else its paper's."""
    paper, name = experiment.split("_", 1)
    return costs.get(f"{paper}.{name}") or costs.get(paper)


def estimate(config: dict, rates: Rates, costs: dict[str, Callable],
             jobs: dict | None = None, experiments: list[str] | None = None) -> tuple[list[Work], list[str]]:
    """(Work of each experiment of the config (or of ``experiments`` among them) with an entry in
    the cost table ``costs`` ({config block: work_and_rate}; the papers':
    ``dpsampling.papers.registry.COSTS``), experiments without one). ``jobs``:
    experiment -> its benchmarked jobs (``benchmarked_jobs``), each costing ``rates.job_start``
    to start; the Numba compilation measured while calibrating an experiment is recorded apart
    (``Work.compile_seconds``)."""
    works, unknown = [], []
    for experiment in config_experiments(config) if experiments is None else experiments:
        function = estimator_for(experiment, costs)
        if function is None:
            unknown.append(experiment)
            continue
        compiled = rates.compile_seconds
        work = function(experiment, config, rates)
        count = (jobs or {}).get(experiment, 0)
        works.append(replace(work, compile_seconds=rates.compile_seconds - compiled, jobs=count,
                             job_start_seconds=rates.job_start(experiment) if count else 0.0))
    return works, unknown


def with_job_starts(works: list[Work], jobs: dict | None, job_start: Callable[[str], float]) -> list[Work]:
    """``works`` with their benchmarked ``jobs`` (experiment -> count, ``benchmarked_jobs``; None: not
    counted) and the CPU seconds one of them spends starting (``job_start``), for an estimate made
    before the jobs were counted (``estimate`` without ``jobs``)."""
    counted = []
    for work in works:
        count = (jobs or {}).get(work.experiment, 0)
        counted.append(replace(work, jobs=count, job_start_seconds=job_start(work.experiment) if count else 0.0))
    return counted


def _hours(work: Work) -> str:
    return f"{work.core_hours:>10.3g}" + (f" + {work.gpu_hours:.3g} GPU-h" if work.gpu_seconds else "")


def format_estimate(works: list[Work], unknown: list[str], cores: int | None = None) -> str:
    """The table printed by ``dpsampling estimate``: per experiment its work (units x CPU s/unit),
    its jobs' start-up (jobs x CPU s each), core-hours (the two), and the Numba compilation
    measured apart (CPU seconds)."""
    name = max([16, *(len(w.experiment) for w in works)])
    unit = max([28, *(len(w.unit) for w in works)])
    lines = [f"{'experiment':<{name}} {'units of work':>14}  {'unit':<{unit}} {'CPU s/unit':>10} {'jobs x start s':>14} "
             f"{'core-hours':>10} {'compile s':>9}  rate from"]
    for w in works:
        starts = f"{w.jobs} x {w.job_start_seconds:.2g}" if w.jobs else "-"
        lines.append(f"{w.experiment:<{name}} {w.units:>14.4g}  {w.unit:<{unit}} {w.seconds_per_unit:>10.3g} "
                     f"{starts:>14} {_hours(w)} {w.compile_seconds:>9.3g}  {w.source}")
    total = sum(w.core_hours for w in works)
    compiled = sum(w.compile_hours for w in works)
    gpu_total = sum(w.gpu_hours for w in works)
    lines.append(f"{'total':<{name}} {'':>14}  {'':<{unit}} {'':>10} {'':>14} {total:>10.3g} {compiled * 3600:>9.3g}"
                 + (f" + {gpu_total:.3g} GPU-hours (one GPU per sampling job)" if gpu_total else ""))
    lines.append(f"Core-hours: the work ({sum(w.compute_hours for w in works):.3g}) and the start of the jobs "
                 f"({sum(w.start_hours for w in works):.3g}). Numba compilation, apart: {compiled * 3600:.3g} CPU s "
                 "measured here, paid about once by a fresh checkout (compiled kernels are cached).")
    if cores:
        lines.append(f"On {cores} cores: at least {(total + compiled) / cores:.3g} hours of wall time (perfect "
                     "parallelism; the longest single job is a floor too).")
    for name in unknown:
        lines.append(f"{name}: no entry in the cost table (see dpsampling.pipeline.estimate); not included in the total")
    return "\n".join(lines)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)

