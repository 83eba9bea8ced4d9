"""Core-hour estimate of the chua24 experiments (deterministic accountants; see dpsampling.pipeline.estimate)."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np

from dpsampling.pipeline.estimate import Rates, Work, cpu_seconds

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


def chua24_cost(kind: str, compute: Callable):
    """The cost model entry of a chua24 experiment computed by ``compute`` (a function of
    ``dpsampling.papers.chua24.curves``; ``kind`` names its units, see _chua24_units)."""

    def chua24_work(experiment: str, config: dict, rates: Rates) -> Work:
        """Units: see _chua24_units. A previous run's rate is used only if it had the same T, PLD
        and shuffle settings (the cost of one unit grows with T and the PLD accuracy)."""
        spec = config["chua24"][experiment.removeprefix("chua24_")]
        settings = {"pld": config["pld"], "shuffle": config["shuffle"]}

        def comparable(parameters: dict) -> bool:
            recorded = parameters.get("spec", {})
            return all(_same(parameters.get(k), v) for k, v in settings.items()) and \
                all(_same(recorded.get(k), spec.get(k)) for k in COST_KEYS)

        rate = rates.measured(experiment, "bounds.parquet", lambda parameters: _chua24_units(kind, parameters["spec"]),
                              comparable)
        if rate is None:
            small = _chua24_slice(kind, spec)
            rate = rates.calibrate(f"{experiment} ({_chua24_units(kind, small):g} evaluations)",
                                   lambda: (cpu_seconds(lambda: compute(small, settings)), _chua24_units(kind, small)))
        return Work(experiment, _chua24_units(kind, spec), CHUA24_UNITS[kind], *rate)

    return chua24_work
