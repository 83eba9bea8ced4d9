"""Core-hour estimate of the chua24 experiments (deterministic accountants; see dpsampling.pipeline.estimate)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import numpy as np

from dpsampling.pipeline.estimate import (
    ACCURACY_COARSENINGS,
    MAX_ACCURACY,
    PLD_ACCURACY_EXPONENT,
    Rates,
    Work,
    affine_in_points,
    cpu_seconds,
    first_use_seconds,
    power_law,
)

# --- chua24: deterministic accountants ----------------------------------------------------

CHUA24_UNITS = {"epsilon_vs_sigma": "(sigma, T) points x 3 samplers", "delta_vs_epsilon": "delta(eps) curves",
                "theorem_4_1": "(sigma, T, K, eps) grid points"}


def _chua24_units(kind: str, spec: dict) -> float:
    """Units of work: eps(delta) evaluations at one (sigma, T) per sampler; one delta(eps) curve per
    sampler; one Thm 4.1 grid point. Their cost is not uniform: see _pieces."""
    if kind == "epsilon_vs_sigma":
        return 3.0 * (len(spec["sigmas"]) + len(spec.get("compare_steps", [])) * len(spec.get("compare_sigmas", spec["sigmas"])))
    if kind == "delta_vs_epsilon":
        return float(len(spec["samplers"]))
    return float(len(spec["sigmas"]) * len(spec["steps"]) * len(spec["epochs"]) * spec["epsilon_grid"]["num"])


GRID_THINNINGS = (16.0, 8.0, 4.0, 2.0, 1.0)
ENGINE_KINDS = ("epsilon_vs_sigma", "delta_vs_epsilon")  # computed by the certified engine
PIECES = 3  # the sigmas of eps vs sigma timed (``_pieces``), each on its own probe ladder


def thinned(spec: dict, thinning: float) -> dict:
    """``spec`` with its eps grid (same range) ``thinning`` times sparser (2 points at least); the
    claimed ``epsilon_points`` are kept."""
    grid = spec["epsilon_grid"]
    return dict(spec, epsilon_grid=dict(grid, num=grid_points(grid["num"], thinning)))


def grid_points(num: int, thinning: float) -> int:
    return max(2, int(round((num - 1) / thinning)) + 1)


def _pieces(kind: str, spec: dict, timed: Callable[[dict], float]) -> float:
    """CPU seconds of the whole experiment from ``timed(small spec)`` of a few pieces (measured on
    the quick config, 2026-11-25: one eps(delta) point costs 20x more at sigma 0.3 than at 2.0; a
    Thm 4.1 grid point costs the same at every sigma, mostly per (T, K) setting):

    - eps vs sigma: the smallest, the median and the largest sigma at the main T, the cost at every
      other sigma interpolated log-linearly in log sigma between them (compare points counted at the
      main T: an upper estimate);
    - delta vs eps: the whole curves (their laws are built once per curve and refined until the
      dearest eps is resolved, so pieces of the grid do not add up);
    - Thm 4.1: the median sigma, times the number of sigmas."""
    if kind == "epsilon_vs_sigma":
        sigmas = sorted(spec["sigmas"])
        ends = sorted({sigmas[0], sigmas[len(sigmas) // 2], sigmas[-1]})  # PIECES; the cost is not log-linear in sigma
        costs = [max(timed(dict(spec, sigmas=[sigma], compare_steps=[], compare_sigmas=[])), 1e-6) for sigma in ends]
        wanted = [*spec["sigmas"], *(spec.get("compare_sigmas", spec["sigmas"]) * len(spec.get("compare_steps", [])))]
        log_cost = np.interp(np.log(wanted), np.log(ends), np.log(costs))
        return float(np.exp(log_cost).sum())
    if kind == "delta_vs_epsilon":
        return timed(spec)
    return timed(dict(spec, sigmas=[float(np.median(spec["sigmas"]))])) * len(spec["sigmas"])


def _probed_seconds(kind: str, spec: dict, settings: dict, compute: Callable, rates: Rates, key: str):
    """(CPU seconds of the whole experiment, source) from probes within the probing budget: the
    engine's curves at a coarser PLD accuracy (up to 100x, ``PLD_ACCURACY_EXPONENT`` back; a sparser
    eps grid saves little there: a curve's laws are built once and refined for its dearest eps) --
    eps vs sigma one ladder per piece of ``_pieces`` (a third of the budget each: the cheap sigmas
    reach the asked accuracy, where the power law from 30x coarser said 1.5-2x their time), delta
    vs eps one ladder for the whole --; Thm 4.1's closed forms on a sparser eps grid (up to 16x, a
    fixed part + a part per eps point back)."""
    def timed_at(small_spec: dict, small_settings: dict) -> float:
        return _pieces(kind, small_spec, lambda piece: cpu_seconds(lambda: compute(piece, small_settings)))

    if kind in ENGINE_KINDS:
        accuracy = float(settings["pld"]["relative_accuracy"])
        coarsenings = [c for c in ACCURACY_COARSENINGS if accuracy * c <= MAX_ACCURACY] or [1.0]

        def at_accuracy(piece: dict, coarsening: float) -> float:
            coarse = {"pld": dict(settings["pld"], relative_accuracy=accuracy * coarsening)}
            return cpu_seconds(lambda: compute(piece, coarse))

        if kind == "delta_vs_epsilon":
            return rates.probed(key, lambda c: at_accuracy(spec, c), coarsenings, power_law(PLD_ACCURACY_EXPONENT))
        sources = []

        def piece_seconds(piece: dict) -> float:
            seconds, source = rates.probed(f"{key} sigma {piece['sigmas'][0]:g}", lambda c: at_accuracy(piece, c),
                                           coarsenings, power_law(PLD_ACCURACY_EXPONENT),
                                           budget=rates.probe_budget / PIECES)
            sources.append(f"sigma {piece['sigmas'][0]:g}: {source.removeprefix('calibration: ')}")
            return seconds

        whole = _pieces(kind, spec, piece_seconds)
        return whole, f"calibration: {whole:.3g} CPU s from {'; '.join(sources)}"
    num = spec["epsilon_grid"]["num"]
    return rates.probed(key, lambda c: timed_at(thinned(spec, c), settings), GRID_THINNINGS,
                        affine_in_points(lambda c: grid_points(num, c)), first=2)


def first_use(kind: str, spec: dict, settings: dict, compute: Callable, rates: Rates) -> tuple[float, str]:
    """(CPU seconds, source) the engine's first use costs the experiment's job (``first_use_seconds``
    of ``compute`` on a small spec at the coarsest accuracy: one sigma or two eps), once per kind;
    the small spec is also run here first, untimed, so that no probe pays it. 1.1 CPU s of chua24
    Fig. 7's 3.3 in a job of its own (2026-11-29), 0 in this process after another experiment."""
    small = dict(spec, sigmas=[max(spec["sigmas"])], compare_steps=[]) if kind == "epsilon_vs_sigma" else \
        thinned(spec, float(spec["epsilon_grid"]["num"]))
    coarse = {"pld": dict(settings["pld"], relative_accuracy=MAX_ACCURACY)}
    setup = (f"import json\nfrom {compute.__module__} import {compute.__name__} as compute\n"
             f"spec, settings = json.loads({json.dumps(json.dumps([small, coarse]))})")

    def timing():
        compute(small, coarse)  # here too, untimed: the probes after it time the work alone
        return first_use_seconds(setup, "compute(spec, settings)"), 1.0

    return rates.calibrate(f"chua24_engine_first_use ({kind}, in a process of its own)", timing)


COST_KEYS = ("steps", "compare_steps", "sigma", "epochs")  # spec entries the cost per unit depends on


def _digest(spec: dict) -> str:
    """A short name of the spec: its timing is cached under it (another spec is timed again)."""
    return hashlib.sha1(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:8]


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
            loading = first_use(kind, spec, settings, compute, rates)[0] if kind in ENGINE_KINDS else 0.0
            seconds, source = _probed_seconds(kind, spec, settings, compute, rates,
                                              f"{experiment} (probes of a few pieces, see chua24.cost._pieces; spec "
                                              f"{_digest(spec)})")
            if loading:
                seconds, source = seconds + loading, f"{source} + {loading:.2g} s the engine's first use in its job"
            rate = seconds / _chua24_units(kind, spec), source
        return Work(experiment, _chua24_units(kind, spec), CHUA24_UNITS[kind], *rate)

    return chua24_work
