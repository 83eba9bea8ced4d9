"""chua24 curves as long tables, shared by the chua24 experiment modules: one row per (parameter,
sampler, bound, direction).

Columns of every table: ``sampler`` (deterministic / poisson / shuffle), ``method`` (exact,
pld, rdp, E_C sets, Thm 4.1), ``bound`` (exact / lower / upper), ``direction`` (max / remove /
add) and the value (``epsilon`` or ``delta``), next to the parameters (sigma, steps, delta or
epsilon, pld_discretization, pld_accuracy and pld_converged where they apply). Plots and claims read these tables only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.accountants import deterministic, shuffle
from dpsampling.accountants.tables import AccountingOptions, delta_table, epsilon_table

DIRECTIONS = ("max", "remove", "add")


def _melt(wide: pd.DataFrame, quantity: str, sampler: str, fixed: dict) -> pd.DataFrame:
    """Wide accounting table -> long rows (bound x direction, plus RDP for Poisson)."""
    key = "delta" if quantity == "epsilon" else "epsilon"
    methods = {"deterministic": ("exact", "exact"), "poisson": ("pld", "pld"), "shuffle": ("E_C sets", "Thm 4.1 (delta_D)"),
               "wor": ("pld", "pld")}
    lower_method, upper_method = methods[sampler]
    rows = []
    for record in wide.to_dict("records"):
        base = dict(fixed, **{key: record[key]})
        for extra in ("pld_discretization", "pld_accuracy", "pld_converged"):
            if extra in record:
                base[extra] = record[extra]
        for direction in DIRECTIONS:
            prefix = "" if direction == "max" else f"{direction}_"
            for bound, method in (("lower", lower_method), ("upper", upper_method)):
                label = "exact" if sampler == "deterministic" else bound
                if sampler == "deterministic" and bound == "upper":
                    continue
                rows.append(dict(base, sampler=sampler, method=method, bound=label, direction=direction,
                                 **{quantity: record[f"{prefix}{quantity}_{bound}"]}))
        if f"{quantity}_upper_rdp" in record:
            rows.append(dict(base, sampler=sampler, method="rdp", bound="upper", direction="max",
                             **{quantity: record[f"{quantity}_upper_rdp"]}))
    return pd.DataFrame(rows)


def _options(config: dict) -> AccountingOptions:
    pld = config.get("pld", {})
    grid = config.get("shuffle", {}).get("c_grid", {})
    return AccountingOptions(
        pld_relative_accuracy=pld.get("relative_accuracy", 1e-3),
        c_grid=(grid.get("start", 0.0), grid.get("stop", 100.0), grid.get("step", 0.01)),
        refine_c=config.get("shuffle", {}).get("refine", True),
    )


def epsilon_vs_sigma(spec: dict, config: dict, progress=None) -> pd.DataFrame:
    """eps(delta) of D, P and S over ``spec['sigmas']`` at ``spec['steps']`` (and any ``compare_steps``)."""
    options = _options(config)
    frames = []
    for steps in [spec["steps"], *spec.get("compare_steps", [])]:
        sigmas = spec["sigmas"] if steps == spec["steps"] else spec.get("compare_sigmas", spec["sigmas"])
        for i, sigma in enumerate(sigmas):
            if progress:
                progress(f"steps={steps} sigma={sigma} ({i + 1}/{len(sigmas)})")
            fixed = {"sigma": float(sigma), "steps": int(steps)}
            for sampler in ("deterministic", "poisson", "shuffle"):
                wide = epsilon_table(sampler, sigma, steps, [spec["delta"]], options=options)
                frames.append(_melt(wide, "epsilon", sampler, fixed))
    return pd.concat(frames, ignore_index=True)


def epsilon_grid(spec: dict) -> np.ndarray:
    """The eps grid of a delta-vs-eps experiment: linspace(start, stop, num) plus the claimed points."""
    grid = spec["epsilon_grid"]
    points = np.linspace(grid["start"], grid["stop"], grid["num"])
    return np.unique(np.concatenate([points, np.asarray(spec.get("epsilon_points", []), dtype=float)]))


def delta_vs_epsilon(spec: dict, config: dict, progress=None) -> pd.DataFrame:
    """delta(eps) of the samplers in ``spec['samplers']`` at fixed sigma and steps."""
    options = _options(config)
    eps = epsilon_grid(spec)
    fixed = {"sigma": float(spec["sigma"]), "steps": int(spec["steps"])}
    frames = []
    for sampler in spec["samplers"]:
        if progress:
            progress(f"{sampler}: {len(eps)} eps values")
        frames.append(_melt(delta_table(sampler, spec["sigma"], spec["steps"], eps, options=options), "delta", sampler, fixed))
    return pd.concat(frames, ignore_index=True)


def theorem_4_1_grid(spec: dict, config: dict, progress=None) -> pd.DataFrame:
    """delta_S lower bound next to delta_D over a (sigma, steps, epochs, eps) grid (Thm 4.1: lower <= delta_D)."""
    options = _options(config)
    grid = shuffle.c_grid(*options.c_grid)
    eps = np.linspace(spec["epsilon_grid"]["start"], spec["epsilon_grid"]["stop"], spec["epsilon_grid"]["num"])
    rows = []
    for sigma in spec["sigmas"]:
        if progress:
            progress(f"sigma={sigma}")
        for steps in spec["steps"]:
            for epochs in spec["epochs"]:
                lower = shuffle.shuffle_delta_lower(eps, sigma, steps, epochs, grid, options.refine_c)["max"]
                exact = deterministic.deterministic_delta(eps, sigma, epochs)
                rows.append(pd.DataFrame({"sigma": sigma, "steps": steps, "epochs": epochs, "epsilon": eps,
                                          "delta_shuffle_lower": lower, "delta_deterministic": exact}))
    frame = pd.concat(rows, ignore_index=True)
    # relative slack for floating point: both sides are computed to ~1e-12 relative precision
    frame["holds"] = frame["delta_shuffle_lower"] <= frame["delta_deterministic"] * (1 + 1e-9) + 1e-300
    return frame


def sign_changes(epsilon: np.ndarray, difference: np.ndarray, floor: float = 0.0) -> list[float]:
    """eps where ``difference`` changes sign (ignoring points where |difference| <= floor)."""
    keep = np.abs(difference) > floor
    eps, sign = np.asarray(epsilon)[keep], np.sign(np.asarray(difference)[keep])
    change = np.nonzero(sign[1:] != sign[:-1])[0]
    return [float((eps[i] + eps[i + 1]) / 2) for i in change]
