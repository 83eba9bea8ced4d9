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

The estimate is a model: linear in the units, with the per-unit cost measured at one setting.
"""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .io import read_metadata
from .report import benchmark_totals, natural_key

PAPER_BLOCK = re.compile(r"[a-z]+[0-9]{2}")


@dataclass(frozen=True)
class Work:
    """The cost of one experiment: units x seconds_per_unit core-seconds."""

    experiment: str
    units: float
    unit: str
    seconds_per_unit: float
    source: str

    @property
    def core_hours(self) -> float:
        return self.units * self.seconds_per_unit / 3600


ESTIMATORS: dict[str, Callable] = {}


def register(block: str):
    """Register ``work_and_rate(experiment, config, rates) -> Work`` for a config block."""

    def decorator(function):
        ESTIMATORS[block] = function
        return function

    return decorator


class Rates:
    """Seconds per unit of work: from a previous run's benchmarks, or a calibration timing."""

    def __init__(self, root=".", use_benchmarks: bool = True, progress=None):
        self.root = Path(root)
        self.use_benchmarks = use_benchmarks
        self.progress = progress or (lambda message: None)
        self._calibrated: dict = {}

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
    """(Work of each experiment with a registered family, experiments without one)."""
    works, unknown = [], []
    for experiment in config_experiments(config):
        function = estimator_for(experiment)
        if function is None:
            unknown.append(experiment)
        else:
            works.append(function(experiment, config, rates))
    return works, unknown


def format_estimate(works: list[Work], unknown: list[str], cores: int | None = None) -> str:
    """The table printed by ``dpsampling estimate``."""
    name = max([16, *(len(w.experiment) for w in works)])
    unit = max([28, *(len(w.unit) for w in works)])
    lines = [f"{'experiment':<{name}} {'units of work':>14}  {'unit':<{unit}} {'CPU s/unit':>10} {'core-hours':>10}  rate from"]
    for w in works:
        lines.append(f"{w.experiment:<{name}} {w.units:>14.4g}  {w.unit:<{unit}} {w.seconds_per_unit:>10.3g} "
                     f"{w.core_hours:>10.3g}  {w.source}")
    total = sum(w.core_hours for w in works)
    lines.append(f"{'total':<{name}} {'':>14}  {'':<{unit}} {'':>10} {total:>10.3g}")
    if cores:
        lines.append(f"On {cores} cores: at least {total / cores:.3g} hours of wall time (perfect parallelism; "
                     "the longest single job is a floor too).")
    for name in unknown:
        lines.append(f"{name}: no estimator registered (see dpsampling.estimate); not included in the total")
    return "\n".join(lines)


# --- chua24: deterministic accountants ----------------------------------------------------

CHUA24_UNITS = {"epsilon_vs_sigma": "(sigma, T) points x 3 samplers", "delta_vs_epsilon": "delta(eps) curves",
                "theorem_4_1": "(sigma, T, K, eps) grid points"}


def _chua24_units(kind: str, spec: dict) -> float:
    """Units of work whose cost does not depend on their number (measured on the quick config):
    eps(delta) evaluations at one (sigma, T) per sampler; one delta(eps) curve per sampler (a
    PLD or a C-grid scan, whatever the number of eps values); one Thm 4.1 grid point."""
    if kind == "epsilon_vs_sigma":
        return 3.0 * (len(spec["sigmas"]) + len(spec.get("compare_steps", [])) * len(spec.get("compare_sigmas", spec["sigmas"])))
    if kind == "delta_vs_epsilon":
        return float(len(spec["samplers"]))
    return float(len(spec["sigmas"]) * len(spec["steps"]) * len(spec["epochs"]) * spec["epsilon_grid"]["num"])


def _chua24_slice(kind: str, spec: dict) -> dict:
    """A small piece of the experiment at its own settings, for calibration: the median sigma; two
    eps values; one sigma and two eps values of the Thm 4.1 grid (every T and K, which set the cost)."""
    small = dict(spec)
    grid = spec.get("epsilon_grid")
    if kind == "epsilon_vs_sigma":
        small.update(sigmas=[float(np.median(spec["sigmas"]))], compare_steps=[], compare_sigmas=[])
    elif kind == "delta_vs_epsilon":
        small.update(epsilon_grid=dict(grid, num=2), epsilon_points=[])
    else:
        small.update(sigmas=spec["sigmas"][:1], epsilon_grid=dict(grid, num=2))
    return small


COST_KEYS = ("steps", "compare_steps", "sigma", "epochs")  # spec entries the cost per unit depends on


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@register("chua24")
def chua24_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Units: see _chua24_units. A previous run's rate is used only if it had the same T, PLD and
    shuffle settings (the cost of one unit grows with T and the PLD accuracy)."""
    from .experiments import chua24

    name = experiment.removeprefix("chua24_")
    kind, spec = chua24.KIND[name], config["chua24"][name]
    settings = {"pld": config["pld"], "shuffle": config["shuffle"]}

    def comparable(parameters: dict) -> bool:
        recorded = parameters.get("spec", {})
        return all(_same(parameters.get(k), v) for k, v in settings.items()) and \
            all(_same(recorded.get(k), spec.get(k)) for k in COST_KEYS)

    rate = rates.measured(experiment, "bounds.parquet", lambda parameters: _chua24_units(kind, parameters["spec"]), comparable)
    if rate is None:
        small = _chua24_slice(kind, spec)
        rate = rates.calibrate(f"{experiment} ({_chua24_units(kind, small):g} evaluations)",
                               lambda: (cpu_seconds(lambda: chua24.COMPUTE[kind](small, settings)), _chua24_units(kind, small)))
    return Work(experiment, _chua24_units(kind, spec), CHUA24_UNITS[kind], *rate)


# --- chua25 Fig. 1: DP-SGD training ---------------------------------------------------------

CALIBRATION_ROWS = 1 << 15
NUMERIC_FEATURES = 4  # of the synthetic data (training.data.synthetic_ctr)


def _training_split(data: dict) -> tuple[int, int]:
    """(training rows, validation + test rows) of the data block (synthetic: ``rows``)."""
    rows = data.get("rows", 0)
    test = int(round(rows * data["test_fraction"]))
    validation = int(round((rows - test) * data["validation_fraction"]))
    return rows - test - validation, test + validation


def _training_costs(spec: dict) -> dict:
    """CPU seconds per training row (a, per generator), per step x parameter (b, and c for the
    noise), per evaluated row (e) and per generated row (g), timed on a small synthetic set."""
    from .experiments.chua25_utility import model_of
    from .training import data as data_lib
    from .training.sgd import TrainingSettings, evaluate_auc, train

    n, buckets, optimizer, model = CALIBRATION_ROWS, spec["data"]["buckets"], spec["optimizer"], model_of(spec)
    generated = {}
    g = cpu_seconds(lambda: generated.setdefault("set", data_lib.synthetic_ctr(n, seed=0, buckets=buckets))) / n
    dataset = generated["set"]
    theta = model.initial_parameters(dataset, np.random.default_rng(0))
    size = theta.size
    train(dataset.take(np.arange(256)), TrainingSettings("shuffle", 64, model=model), seed=0)  # compile the kernels
    costs = {"g": g, "e": cpu_seconds(lambda: evaluate_auc(theta, dataset, model)) / n}
    # time = a n + steps size (b + c [noise]), steps = n / batch: a from few large batches, b and
    # c from many small ones
    small_batch, large_batch = 256, n // 8
    plain = cpu_seconds(lambda: train(dataset, TrainingSettings("shuffle", small_batch, optimizer=optimizer,
                                                                model=model), seed=0))
    noisy = cpu_seconds(lambda: train(dataset, TrainingSettings("shuffle", small_batch, sigma=1.0, clip_norm=1.0,
                                                                optimizer=optimizer, model=model), seed=0))
    costs["generators"] = {}
    for generator in spec["generators"]:
        large = cpu_seconds(lambda: train(dataset, TrainingSettings(generator, large_batch, optimizer=optimizer,
                                                                    model=model), seed=0))
        steps_large, steps_small = n // large_batch, n // small_batch
        b = max(plain - large, 0.0) / ((steps_small - steps_large) * size)
        costs["generators"][generator] = {"a": max(large - steps_large * size * b, 0.0) / n, "b": b,
                                          "c": max(noisy - plain, 0.0) / (steps_small * size)}
    return costs


def chua25_fig1_seconds(spec: dict, costs: dict) -> tuple[float, float]:
    """(CPU seconds, training example-passes) of the whole of Fig. 1 under the cost model."""
    from .experiments.chua25_utility import model_of, panel_settings, panels

    train_rows, held_out = _training_split(spec["data"])
    size = model_of(spec).parameter_count(spec["data"]["buckets"], NUMERIC_FEATURES)
    seconds = units = 0.0
    for panel in panels(spec):
        seconds += costs["g"] * spec["data"].get("rows", 0)
        for batch, sigma in panel_settings(panel, spec):
            steps = max(1, round(train_rows / batch))
            for generator in spec["generators"]:
                k = costs["generators"][generator]
                run = k["a"] * train_rows + steps * size * (k["b"] + (k["c"] if sigma > 0 else 0.0)) + costs["e"] * held_out
                repeats = len(spec["learning_rates"]) * spec["seeds"]
                seconds += run * repeats
                units += train_rows * repeats
    return seconds, units


@register("chua25.fig1")
def chua25_fig1_work(experiment: str, config: dict, rates: Rates) -> Work:
    spec = config["chua25"]["fig1"]
    if spec["data"]["source"] != "synthetic":
        raise ValueError(f"chua25.fig1.data.source must be synthetic for an estimate (the row count of a "
                         f"Criteo file is not in the config); got {spec['data']['source']!r}")
    from .experiments.chua25_utility import model_of

    key = (f"chua25_fig1 training ({model_of(spec).label}, buckets {spec['data']['buckets']}, {spec['optimizer']}, "
           f"{', '.join(spec['generators'])})")
    costs = rates.cached(key, lambda: _training_costs(spec))
    seconds, units = chua25_fig1_seconds(spec, costs)
    source = (f"calibration: {CALIBRATION_ROWS} rows per generator; model a*rows + (b + c*noise)*steps*parameters "
              "+ evaluation + data generation")
    return Work(experiment, units, "training example-passes", seconds / units, source)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


from . import estimate_lebeda24  # noqa: E402,F401  (registers the lebeda24 families)
from . import estimate_chua25  # noqa: E402,F401  (registers the chua25 privacy families)
