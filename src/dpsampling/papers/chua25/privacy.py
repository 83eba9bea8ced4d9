"""chua25 privacy experiments (Figs. 2-4, epochs, properties): merge shards, deterministic bounds.

- ``merge_delta``: every shard of every sample set evaluated at every eps of the grid
  (importance sets: at their own eps only; a statistics shard is read, at the grid it was drawn
  for, see ``samples``), pooled exactly through the sufficient statistics
  (count, sum Z, sum Z^2; ``dpsampling.accountants.ballsbins.estimates``) -> one row per (set, eps) with the
  mean, standard error and KL upper confidence bound at beta, plus rows ``direction = max``:
  mean = max of the two means (an estimate of delta_B), UCB = max of the two UCBs (>= delta_B
  with probability >= 1 - beta: only the direction with the larger true delta must be covered).
- ``bounds_table``: the deterministic curves next to them (those an experiment module names in
  its ``CURVES``, at the settings of its ``bounds_settings``): a registered sampler's curve from
  the face (``dpsampling.Accountant``, as ``papers.accounting`` tabulates it): delta_P (certified
  upper and lower), delta_S lower bound (chua24 E_C sets), delta_D (exact); ``bound6``: the
  delta_B lower bound (6); ``certified``: delta_B certified upper and lower bounds (method
  ``pld (certified)``: the face's balls-and-bins phase, any number of epochs). How each certified curve was computed (engine version, accuracy requested and
  reached, grid) is in ``frame.attrs['certified']``, one record per setting, which the rule
  writes into the file's metadata.
- ``summary_table``: both in one long table (sampler, method, bound, direction, epsilon,
  delta) that the plots and claims read.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling.accountants.ballsbins.estimates import DeltaEstimate, combine_estimates, estimate_delta
from dpsampling.accountants.ballsbins.lower_bound import lower_bound_delta
from dpsampling.accountants.ballsbins.orders import parse_orders
from dpsampling.accountants.ballsbins.storage import read_loss_samples, read_loss_statistics
from dpsampling.accountants.run import Phase
from dpsampling.io import read_metadata
from dpsampling.lazy import lazy_import
from dpsampling.papers.accounting import delta_table, exact, paper_phase
from dpsampling.papers.chua24.curves import table_methods
from dpsampling.papers.chua25.samples import SampleSet, expected_shard_metadata
from dpsampling.samplers import BALLS_AND_BINS, SAMPLERS, sampler_entry

_accountant = lazy_import("dpsampling.accountants.accountant")  # the engine: loaded by the first query, not by the registry

CERTIFIED_METHOD = "pld (certified)"
CERTIFIED_CURVE = "certified"
"""The curve key of the certified delta_B bounds."""
BOUND6_CURVE = "bound6"
"""The curve key of the delta_B lower bound (6) (chua25, one epoch)."""
DEFAULT_MAX_GRID_POINTS = 40_000
"""The certified delta_B bounds' default grid cap (config ``chua25.certified_max_grid_points``)."""
CERTIFIED_RECORD = ("engine_version", "accuracy_requested", "accuracy_reached", "accuracy_floor", "converged",
                    "refinements", "grid_step_top", "grid_step_bottom", "grid_points_largest", "max_grid_points")
MC_METHOD = {"naive": "MC naive", "order_statistics": "MC order statistics", "importance": "MC importance",
             "importance_order_statistics": "MC importance + order statistics"}


def epsilon_grid(spec: dict) -> np.ndarray:
    """linspace(start, stop, num) of ``spec['epsilon_grid']`` plus any importance eps points."""
    grid = spec["epsilon_grid"]
    points = np.linspace(grid["start"], grid["stop"], grid["num"])
    extra = np.asarray(spec.get("importance_epsilons", []), dtype=float)
    return np.unique(np.concatenate([points, extra]))


def shard_estimate(path, expected: dict, grid: np.ndarray) -> DeltaEstimate:
    """The statistics of one shard at ``grid``: evaluated on its losses (``samples`` storage) or
    read (``statistics`` storage, whose grid must be ``grid`` exactly). ``expected``: the identity
    the shard must have (checked; never the storage, the eps grid of a losses shard or the device)."""
    recorded = read_metadata(path)["parameters"]
    if recorded.get("storage", "samples") == "statistics":
        estimate = read_loss_statistics(path, expected)
        if not np.array_equal(estimate.epsilons, grid):
            raise ValueError(f"{path} holds statistics at other eps values than requested (file has "
                             f"{estimate.epsilons.size} values from {estimate.epsilons[0]:g} to {estimate.epsilons[-1]:g}, "
                             f"requested {grid.size} from {grid[0]:g} to {grid[-1]:g}): its sample set must be redrawn")
        return estimate
    return estimate_delta(read_loss_samples(path, expected), grid)


def _set_estimate(sample_set: SampleSet, config_seed: int, epsilons: np.ndarray):
    """Pooled estimate of one set over its shards (either storage), the summed sampling time, the
    thread counts and the devices that drew them."""
    grid = epsilons if sample_set.importance_epsilon is None else np.array([sample_set.importance_epsilon])
    estimates, seconds, threads, devices = [], {"sampling_seconds": 0.0, "sampling_cpu_seconds": 0.0}, set(), set()
    for shard, path in enumerate(sample_set.shard_paths()):
        expected = expected_shard_metadata(sample_set.sampling_parameters(config_seed, shard))
        estimate = shard_estimate(path, expected, grid)
        estimates.append(estimate)
        recorded = read_metadata(path)["parameters"]
        for key in seconds:
            seconds[key] += float(recorded.get(key, math.nan))
        threads.add(int(recorded.get("threads", 0)))
        devices.add(str(recorded.get("device", "cpu")))
        log_weight = estimate.log_weight
    return combine_estimates(estimates), seconds, sorted(threads), log_weight, sorted(devices)


def merge_delta(sets: list[SampleSet], config_seed: int, epsilons, error_prob: float, progress=None) -> pd.DataFrame:
    """One row per (sample set, eps) and the max-over-directions rows (see module docstring)."""
    epsilons = np.asarray(epsilons, dtype=float)
    frames = []
    for sample_set in sets:
        estimate, seconds, threads, log_weight, devices = _set_estimate(sample_set, config_seed, epsilons)
        if progress:
            progress(f"{sample_set.panel}/{sample_set.direction}/{sample_set.series}: "
                     f"{sample_set.shards} shard(s), {seconds['sampling_cpu_seconds']:.1f} CPU s of sampling "
                     f"on {', '.join(devices)}")
        frame = estimate.to_frame(error_prob).rename(columns={"upper_confidence_bound": "ucb"})
        n_orders = 0 if sample_set.orders is None else int(parse_orders(sample_set.orders).size)
        frame = frame.assign(panel=sample_set.panel, series=sample_set.series, method=sample_set.method,
                             direction=sample_set.direction, sigma=sample_set.sigma, steps=sample_set.steps,
                             epochs=sample_set.epochs, orders=sample_set.orders or "", n_orders=n_orders,
                             importance_epsilon=np.nan if sample_set.importance_epsilon is None
                             else sample_set.importance_epsilon,
                             log_weight=log_weight, shards=sample_set.shards,
                             samples=sample_set.shards * sample_set.samples_per_shard,
                             **seconds, threads=",".join(map(str, threads)),
                             error_prob=error_prob)
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    return pd.concat([table, _max_rows(table)], ignore_index=True)


def _max_rows(table: pd.DataFrame) -> pd.DataFrame:
    """direction = max: the larger mean (with its standard error) and the larger UCB per eps."""
    keys = ["panel", "series", "epsilon"]
    remove = table[table["direction"] == "remove"].set_index(keys)
    add = table[table["direction"] == "add"].set_index(keys).reindex(remove.index)
    larger = (add["mean"] > remove["mean"]).to_numpy()
    rows = remove.copy()
    rows["mean"] = np.fmax(remove["mean"], add["mean"])
    rows["standard_error"] = np.where(larger, add["standard_error"], remove["standard_error"])
    rows["ucb"] = np.fmax(remove["ucb"], add["ucb"])
    rows["count"] = np.minimum(remove["count"], add["count"])
    for key in ("sampling_seconds", "sampling_cpu_seconds"):
        rows[key] = remove[key] + add[key]
    rows[["total", "total_squares", "log_weight"]] = np.nan
    rows["direction"] = "max"
    return rows.reset_index()


def engine_curve(curve: str) -> bool:
    """Whether the curve is refined by the certified engine (its cost scales with the accuracy)."""
    if curve == CERTIFIED_CURVE:
        return True
    return curve in SAMPLERS and sampler_entry(curve).composable and not exact(curve)


def _rows(base: dict, sampler: str, method: str, bound: str, eps, values: dict) -> list[pd.DataFrame]:
    return [pd.DataFrame(dict(base, sampler=sampler, method=method, bound=bound, direction=direction,
                              epsilon=eps, delta=np.asarray(values[direction], dtype=float)))
            for direction in ("max", "remove", "add") if direction in values]


def certified_settings(chua25: dict, spec: dict) -> dict:
    """Accuracy and grid cap of the certified balls-and-bins bounds: the experiment's own
    ``certified_accuracy`` if it sets one, else ``chua25.certified_accuracy``."""
    return {"accuracy": float(spec.get("certified_accuracy", chua25.get("certified_accuracy", 0.01))),
            "max_grid_points": int(chua25.get("certified_max_grid_points", DEFAULT_MAX_GRID_POINTS))}


def certified_bounds(sigma: float, steps: int, epochs: int, eps, certified: dict) -> tuple[dict, dict]:
    """Certified delta_B bounds {bound: {direction: values}} and the record of how they were computed."""
    phase = Phase(BALLS_AND_BINS.name, sigma, steps_per_epoch=steps, epochs=epochs)
    frame = _accountant.Accountant(phase, accuracy=float(certified["accuracy"]),
                       max_grid_points=int(certified["max_grid_points"])).delta_bounds(eps)
    values = {}
    for bound in ("upper", "lower"):
        wide = frame.pivot(index="epsilon", columns="direction", values=f"delta_{bound}").reindex(np.asarray(eps, dtype=float))
        values[bound] = {direction: wide[direction].to_numpy() for direction in ("max", "remove", "add")}
    computation = frame.attrs["computation"]
    attrs = dict(computation, accuracy_requested=frame.attrs["accuracy_requested"],
                 grid_step_top=computation["grid_step"], grid_step_bottom=computation["grid_step_bottom"])
    record = {key: attrs[key] for key in CERTIFIED_RECORD}
    return values, record


def _sampler_rows(sampler: str, sigma: float, steps: int, epochs: int, eps, accuracy: float,
                  base: dict) -> list[pd.DataFrame]:
    """A registered sampler's curve from the face: exact (max direction), certified (upper and
    lower, every direction) or a closed-form bracket (its lower bound, every direction)."""
    wide = delta_table(paper_phase(sampler, sigma, steps, epochs), eps, accuracy=accuracy)
    lower_method, upper_method = table_methods(sampler)

    def directions(bound: str) -> dict:
        return {"max": wide[f"delta_{bound}"], "remove": wide[f"remove_delta_{bound}"],
                "add": wide[f"add_delta_{bound}"]}

    if exact(sampler):
        return _rows(base, sampler, lower_method, "exact", eps, {"max": wide["delta_lower"]})
    if sampler_entry(sampler).composable:
        return [*_rows(base, sampler, upper_method, "upper", eps, directions("upper")),
                *_rows(base, sampler, lower_method, "lower", eps, directions("lower"))]
    return _rows(base, sampler, lower_method, "lower", eps, directions("lower"))


def setting_bounds(sigma: float, steps: int, epochs: int, eps, curves, settings: dict, base: dict,
                   records: list | None = None) -> list[pd.DataFrame]:
    """The requested deterministic curves at one (sigma, T, epochs); see module docstring. The
    record of a certified curve is appended to ``records``."""
    frames = []
    for curve in curves:
        if curve in SAMPLERS:
            frames += _sampler_rows(curve, sigma, steps, epochs, eps, float(settings["pld"]["relative_accuracy"]), base)
    if BOUND6_CURVE in curves and epochs == 1:
        lower = {d: lower_bound_delta(sigma, steps, eps, d) for d in ("remove", "add")}
        lower["max"] = np.maximum(lower["remove"], lower["add"])
        frames += _rows(base, BALLS_AND_BINS.name, "bound (6)", "lower", eps, lower)
    if CERTIFIED_CURVE in curves:
        values, record = certified_bounds(sigma, steps, epochs, eps, settings["certified"])
        for bound in ("upper", "lower"):
            frames += _rows(base, BALLS_AND_BINS.name, CERTIFIED_METHOD, bound, eps, values[bound])
        if records is not None:
            records.append(dict(base, **record))
    return frames


def panel_settings(spec: dict) -> list[dict]:
    """(panel, sigma, steps, epochs = 1) of each panel of ``spec['panels']`` (Figs. 2-4)."""
    return [{"panel": s["name"], "sigma": float(s["sigma"]), "steps": int(s["steps"]), "epochs": 1}
            for s in spec["panels"]]


def bounds_table(curves, settings_list: list[dict], epsilons, settings: dict, progress=None) -> pd.DataFrame:
    """Long table of the deterministic ``curves`` (an experiment module's ``CURVES``, or a subset) at
    every eps of every setting of ``settings_list`` (its ``bounds_settings(spec)``); the certified
    curves' records in ``attrs['certified']`` (one per setting)."""
    curves = tuple(curves)
    eps = np.asarray(epsilons, dtype=float)
    frames, records = [], []
    for setting in settings_list:
        if progress:
            progress(f"{setting['panel']}: sigma={setting['sigma']}, T={setting['steps']}, epochs={setting['epochs']}")
        frames += setting_bounds(setting["sigma"], setting["steps"], setting["epochs"], eps, curves,
                                 settings, dict(setting), records)
        if progress and records and records[-1]["panel"] == setting["panel"]:
            progress(f"  certified B: accuracy reached {records[-1]['accuracy_reached']:.3g} "
                     f"(requested {records[-1]['accuracy_requested']:g}), {records[-1]['refinements']} refinement(s)")
    table = pd.concat(frames, ignore_index=True)
    table.attrs["certified"] = records
    return table


def summary_table(delta: pd.DataFrame, bounds: pd.DataFrame) -> pd.DataFrame:
    """Bounds and Monte Carlo rows in one long table (MC: bound 'estimate' = mean, 'upper' = UCB)."""
    keep = ["panel", "series", "sigma", "steps", "epochs", "direction", "epsilon", "count", "samples",
            "n_orders", "orders", "importance_epsilon", "log_weight", "sampling_seconds", "sampling_cpu_seconds",
            "error_prob"]
    mc = delta[keep].assign(sampler=BALLS_AND_BINS.name, method=delta["method"].map(MC_METHOD))
    estimate = mc.assign(bound="estimate", delta=delta["mean"], standard_error=delta["standard_error"])
    upper = mc.assign(bound="upper", delta=delta["ucb"])
    return pd.concat([bounds.assign(series=""), estimate, upper], ignore_index=True)
