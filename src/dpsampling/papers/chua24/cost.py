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
    """Units of work: eps(delta) evaluations at one (sigma, T) per sampler; one delta(eps) curve per
    sampler; one Thm 4.1 grid point. Their cost is not uniform: see _calibration."""
    if kind == "epsilon_vs_sigma":
        return 3.0 * (len(spec["sigmas"]) + len(spec.get("compare_steps", [])) * len(spec.get("compare_sigmas", spec["sigmas"])))
    if kind == "delta_vs_epsilon":
        return float(len(spec["samplers"]))
    return float(len(spec["sigmas"]) * len(spec["steps"]) * len(spec["epochs"]) * spec["epsilon_grid"]["num"])


def _calibration(kind: str, spec: dict, timed: Callable[[dict], float]) -> float:
    """CPU seconds of the whole experiment from ``timed(small spec)`` of a few small pieces at its own
    settings (measured on the quick config, 2026-11-25: one eps(delta) point costs 20x more at
    sigma 0.3 than at 2.0; a delta(eps) curve is a fixed cost plus a cost per eps value; a Thm 4.1 grid
    point costs the same at every sigma, mostly per (T, K) setting):

    - eps vs sigma: the smallest, the median and the largest sigma at the main T, the cost at every
      other sigma interpolated log-linearly in log sigma between them (compare points counted at the main T: an upper estimate);
    - delta vs eps: the whole curves, timed as they are: their laws are built once per curve and
      refined until the dearest eps is resolved, so pieces of the grid do not add up (8 and 4 eps
      extrapolated linearly said 0.07x to 11x the whole on the quick config, 2026-11-29; the whole
      takes 1 to 4 CPU s there, less than the two pieces did);
    - Thm 4.1: the median sigma on the whole (T, K, eps) grid, times the number of sigmas."""
    if kind == "epsilon_vs_sigma":
        sigmas = sorted(spec["sigmas"])
        ends = sorted({sigmas[0], sigmas[len(sigmas) // 2], sigmas[-1]})  # the cost is not log-linear in sigma
        costs = [max(timed(dict(spec, sigmas=[sigma], compare_steps=[], compare_sigmas=[])), 1e-6) for sigma in ends]
        wanted = [*spec["sigmas"], *(spec.get("compare_sigmas", spec["sigmas"]) * len(spec.get("compare_steps", [])))]
        log_cost = np.interp(np.log(wanted), np.log(ends), np.log(costs))
        return float(np.exp(log_cost).sum())
    if kind == "delta_vs_epsilon":
        return timed(spec)
    return timed(dict(spec, sigmas=[float(np.median(spec["sigmas"]))])) * len(spec["sigmas"])


COST_KEYS = ("steps", "compare_steps", "sigma", "epochs")  # spec entries the cost per unit depends on


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def chua24_cost(kind: str, compute: Callable):
    """The cost model entry of a chua24 experiment computed by ``compute`` (a function of
    ``dpsampling.papers.chua24.curves``; ``kind`` names its units, see _chua24_units)."""

    def chua24_work(experiment: str, config: dict, rates: Rates) -> Work:
        """Units: see _chua24_units. A previous run's rate is used only if it had the same T and PLD
        settings (the cost of one unit grows with T and the PLD accuracy)."""
        spec = config["chua24"][experiment.removeprefix("chua24_")]
        settings = {"pld": config["pld"]}

        def comparable(parameters: dict) -> bool:
            recorded = parameters.get("spec", {})
            return all(_same(parameters.get(k), v) for k, v in settings.items()) and \
                all(_same(recorded.get(k), spec.get(k)) for k in COST_KEYS)

        rate = rates.measured(experiment, "bounds.parquet", lambda parameters: _chua24_units(kind, parameters["spec"]),
                              comparable)
        if rate is None:
            rate = rates.calibrate(f"{experiment} (a few pieces, see chua24.cost._calibration)",
                                   lambda: (_calibration(kind, spec, lambda small: cpu_seconds(lambda: compute(small, settings))),
                                            _chua24_units(kind, spec)))
        return Work(experiment, _chua24_units(kind, spec), CHUA24_UNITS[kind], *rate)

    return chua24_work
