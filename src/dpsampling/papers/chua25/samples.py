"""chua25 privacy experiments: which Monte Carlo sample sets each needs, their seeds, one shard.

A *sample set* is (experiment, panel, direction, series): one sampling method at one (sigma, T,
epochs), drawn in ``shards`` independent shards of ``samples_per_shard`` loss samples each.
The series names the method (``naive``, ``order_statistics``; ``importance_e<eps>`` for
importance sampling, whose event E_eps depends on eps, so there is one set per eps point;
``naive_k<k>`` for k epochs). Shards are written to

    results/<experiment>/samples/<panel>/<direction>/<series>/shard-<i>.parquet

Seeds: shard i of a set draws from numpy.random.SeedSequence(config seed, spawn_key=(crc32 of
the experiment, panel, direction and series names, i)): the same config gives the same shard
whatever the core count, the order in which shards run or which other shards exist. The eps
grid is not a sampling parameter (one set of losses serves every eps), except for importance
sampling, where eps is part of the series name.

Storage (``chua25.<name>.storage``): ``samples`` (the default) keeps the losses, one Parquet
column; ``statistics`` keeps, for every eps of the experiment's grid (importance sets: their eps),
the count, sum and sum of squares of Z = [1 - e^{eps - L}]_+ (32 bytes per eps instead of 8 per
sample: the paper's 5e8 samples per direction and panel of Fig. 2 would be 32 GB of losses). Then
the grid is part of the shard's identity (``storage`` and ``epsilons`` join its parameters); with
``samples`` it is not, and the parameters are what they always were.

Device (config ``device``: cpu, cuda, auto): where a shard is drawn. CPU and GPU draw the same
streams, so the device is recorded in the shard's metadata (``device``) and is not part of its
identity: switching it reruns nothing, and the merge does not check it.

Only this module and dpsampling.accountants.ballsbins decide what a shard holds; editing the merge, the
bounds or the plots never resamples.
"""

from __future__ import annotations

import time
import zlib
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from dpsampling import DIRECTIONS
from dpsampling.accountants.ballsbins.device import loss_statistics as loss_statistics_on
from dpsampling.accountants.ballsbins.device import resolve_device
from dpsampling.accountants.ballsbins.device import sample_losses as sample_losses_on
from dpsampling.accountants.ballsbins.estimates import DeltaEstimate
from dpsampling.accountants.ballsbins.orders import parse_orders, validate_orders
from dpsampling.accountants.ballsbins.sampling import DEFAULT_SAMPLES_PER_CHUNK, LossLaw, LossSamples
from dpsampling.accountants.ballsbins.storage import write_loss_statistics
from dpsampling.io import write_table
from dpsampling.versions import algorithm_version

SHARD_PATTERN = "results/{experiment}/samples/{panel}/{direction}/{series}/shard-{shard}.parquet"
STORAGES = ("samples", "statistics")


def name_of(value: float) -> str:
    """A number in a panel or series name: 0.5 -> '0.5', 12.0 -> '12'."""
    return f"{float(value):g}"


@dataclass(frozen=True)
class SampleSet:
    """One sampling method at one setting, in both its identity and its parameters."""

    experiment: str
    panel: str
    direction: str
    series: str
    method: str
    sigma: float
    steps: int
    epochs: int
    orders: str | None
    importance_epsilon: float | None
    shards: int
    samples_per_shard: int

    def shard_path(self, shard: int) -> str:
        return SHARD_PATTERN.format(experiment=self.experiment, panel=self.panel, direction=self.direction,
                                    series=self.series, shard=shard)

    def shard_paths(self) -> list[str]:
        return [self.shard_path(i) for i in range(self.shards)]

    def sampling_parameters(self, config_seed: int, shard: int, storage: str = "samples", epsilons=None) -> dict:
        """Everything shard ``shard`` depends on (the sampling rule's params; no shard count; no eps
        grid with ``samples`` storage, the grid with ``statistics`` storage: see module docstring)."""
        parameters = {"experiment": self.experiment, "panel": self.panel, "direction": self.direction,
                      "series": self.series, "method": self.method, "sigma": float(self.sigma),
                      "steps": int(self.steps), "epochs": int(self.epochs), "orders": self.orders,
                      "importance_epsilon": self.importance_epsilon, "samples": int(self.samples_per_shard),
                      "config_seed": int(config_seed), "shard": int(shard),
                      "algorithm_version": algorithm_version(f"ballsbins.{self.method}")}
        if storage not in STORAGES:
            raise ValueError(f"storage must be one of {', '.join(STORAGES)}; got {storage!r}")
        if storage == "statistics":
            parameters.update(storage="statistics", epsilons=[float(e) for e in self.statistics_grid(epsilons)])
        return parameters

    def statistics_grid(self, epsilons) -> np.ndarray:
        """The eps values a statistics shard of this set keeps: the experiment's grid, or the
        set's own eps for importance sampling."""
        if self.importance_epsilon is not None:
            return np.array([self.importance_epsilon], dtype=float)
        if epsilons is None:
            raise ValueError(f"epsilons must be given for statistics storage of {self.panel}/{self.series}; got None")
        return np.asarray(epsilons, dtype=float)

    def as_dict(self) -> dict:
        return asdict(self)


def shard_seed(config_seed: int, experiment: str, panel: str, direction: str, series: str, shard: int
               ) -> np.random.SeedSequence:
    """SeedSequence(config seed, spawn_key=(crc32 of each name, shard)); crc32 is stable across runs."""
    words = tuple(zlib.crc32(name.encode()) for name in (experiment, panel, direction, series))
    return np.random.SeedSequence(int(config_seed), spawn_key=(*words, int(shard)))


def expected_shard_metadata(parameters: dict) -> dict:
    """What the metadata of a shard drawn with ``parameters`` must say (checked by the merge)."""
    seed = shard_seed(parameters["config_seed"], parameters["experiment"], parameters["panel"],
                      parameters["direction"], parameters["series"], parameters["shard"])
    orders = None if parameters["orders"] is None else parse_orders(parameters["orders"]).tolist()
    expected = {key: parameters[key] for key in ("experiment", "panel", "series", "shard", "method",
                                                 "direction", "sigma", "steps", "epochs", "samples",
                                                 "algorithm_version")}
    expected.update(orders=orders, importance_epsilon=parameters["importance_epsilon"],
                    seed_entropy=str(seed.entropy), seed_spawn_key=list(seed.spawn_key),
                    samples_per_chunk=DEFAULT_SAMPLES_PER_CHUNK)
    if parameters.get("storage") == "statistics":
        expected.update(storage="statistics", epsilons=list(parameters["epsilons"]))
    return expected


def series_sets(experiment: str, panel: str, setting: dict, series: str, method: str, count: dict,
                importance_epsilon: float | None = None, epochs: int = 1) -> list[SampleSet]:
    """The sample sets of one series (both directions) of ``panel``: ``setting`` gives sigma, steps
    (and orders, for order statistics), ``count`` the shards and samples per shard. Each chua25
    Monte Carlo experiment module's ``sample_sets(spec)`` is made of these."""
    return [SampleSet(experiment, panel, direction, series, method, float(setting["sigma"]), int(setting["steps"]),
                      int(epochs), setting.get("orders") if "order_statistics" in method else None,
                      None if importance_epsilon is None else float(importance_epsilon),
                      int(count["shards"]), int(count["samples_per_shard"]))
            for direction in DIRECTIONS]


def config_problems(chua25: dict) -> list[str]:
    """One line per repeated panel name or order list that does not fit its panel's T (checked
    before any job runs; the schema checks everything else)."""
    problems = []
    for name in ("fig2", "fig3", "fig4"):
        names = [setting["name"] for setting in chua25.get(name, {}).get("panels", [])]
        for repeated in sorted({n for n in names if names.count(n) > 1}):
            problems.append(f"config chua25.{name}.panels: panel names must be unique; got {repeated!r} twice")
        for i, setting in enumerate(chua25.get(name, {}).get("panels", [])):
            if "orders" not in setting:
                continue
            try:
                validate_orders(setting["orders"], setting["steps"])
            except ValueError as error:
                problems.append(f"config chua25.{name}.panels[{i}].orders: {error}")
    return problems


def find_sample_set(sets: list[SampleSet], panel: str, direction: str, series: str) -> SampleSet:
    for sample_set in sets:
        if (sample_set.panel, sample_set.direction, sample_set.series) == (panel, direction, series):
            return sample_set
    raise ValueError(f"sample set must be one of the configured ones; got {panel}/{direction}/{series}")


def _draw(parameters: dict, samples: int, seed, device: str):
    law = LossLaw(*(parameters[k] for k in ("method", "sigma", "steps", "direction", "orders",
                                            "importance_epsilon", "epochs")))
    if parameters.get("storage") == "statistics":
        return loss_statistics_on(law, samples, parameters["epsilons"], seed=seed, device=device)
    return sample_losses_on(law, samples, seed=seed, device=device)


def sample_shard(parameters: dict, device: str = "cpu") -> tuple[LossSamples | DeltaEstimate, dict]:
    """Draw one shard on ``device`` (cpu, cuda or auto): the losses (``samples`` storage) or their
    statistics on the shard's eps grid (``statistics``), and the sampling time (compilation
    excluded: the kernel is first run on one sample): wall seconds and CPU seconds of this process
    (all threads; on a busy machine the CPU time is the fairer measure), and the device that ran."""
    seed = shard_seed(parameters["config_seed"], parameters["experiment"], parameters["panel"],
                      parameters["direction"], parameters["series"], parameters["shard"])
    device = resolve_device(device)
    _draw(parameters, 1, 0, device)  # compile outside the clock
    start, start_cpu = time.perf_counter(), time.process_time()
    result = _draw(parameters, parameters["samples"], seed, device)
    return result, {"sampling_seconds": time.perf_counter() - start,
                    "sampling_cpu_seconds": time.process_time() - start_cpu, "device": device}


def _statistics_metadata(estimate: DeltaEstimate, parameters: dict) -> dict:
    """What ``LossSamples.parameters`` says of a losses shard, for a statistics shard."""
    seed = shard_seed(parameters["config_seed"], parameters["experiment"], parameters["panel"],
                      parameters["direction"], parameters["series"], parameters["shard"])
    orders = None if parameters["orders"] is None else parse_orders(parameters["orders"]).tolist()
    return {"method": parameters["method"], "direction": parameters["direction"], "sigma": float(parameters["sigma"]),
            "steps": int(parameters["steps"]), "epochs": int(parameters["epochs"]), "orders": orders,
            "importance_epsilon": parameters["importance_epsilon"], "log_weight": float(estimate.log_weight),
            "seed_entropy": str(seed.entropy), "seed_spawn_key": [int(k) for k in seed.spawn_key],
            "samples_per_chunk": DEFAULT_SAMPLES_PER_CHUNK, "samples": int(parameters["samples"]),
            "storage": "statistics", "epsilons": [float(e) for e in estimate.epsilons]}


def write_shard(result: LossSamples | DeltaEstimate, parameters: dict, timing: dict, threads: int,
                path) -> None:
    """The losses (or their statistics) with the sampling parameters, the set's identity, the timing
    and the device in the metadata."""
    identity = {k: parameters[k] for k in ("experiment", "panel", "series", "shard", "config_seed", "algorithm_version")}
    record = {key: float(value) for key, value in timing.items() if key != "device"}
    record.update(threads=int(threads), device=timing.get("device", "cpu"))
    if isinstance(result, DeltaEstimate):
        write_loss_statistics(result, path, dict(_statistics_metadata(result, parameters), **identity, **record))
    else:
        write_table(pd.DataFrame({"loss": result.losses}), path, dict(result.parameters(), **identity, **record))
