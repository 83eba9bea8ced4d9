"""chua24 curves as long tables, shared by the chua24 experiment modules: one row per (parameter,
sampler, bound, direction).

Columns of every table: ``sampler`` (deterministic / poisson / shuffle), ``method`` (exact,
pld, rdp, E_C sets, Thm 4.1), ``bound`` (exact / lower / upper), ``direction`` (max / remove /
add) and the value (``epsilon`` or ``delta``), next to the parameters (sigma, steps, delta or
epsilon, pld_discretization, pld_accuracy and pld_converged where they apply). Plots and claims read these tables only.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling.accountants.closed_form import gaussian, shuffle
from dpsampling.papers.accounting import delta_table, epsilon_table, exact, paper_phase
from dpsampling.samplers import DETERMINISTIC, POISSON, SHUFFLE, sampler_entry

D, P, S = DETERMINISTIC.name, POISSON.name, SHUFFLE.name
"""The paper's samplers' names, from the registry: deterministic, Poisson and shuffled batches."""

DIRECTIONS = ("max", "remove", "add")
BRACKET_METHODS = ("E_C sets", "Thm 4.1 (delta_D)")
"""The methods of a sampler bracketed by closed forms (no dominating pair: shuffle, chua24 Sec. 4)."""


def table_methods(sampler: str) -> tuple[str, str]:
    """(lower, upper) method labels of the tables: exact, pld (the certified engine) or the bracket."""
    if exact(sampler):
        return "exact", "exact"
    return ("pld", "pld") if sampler_entry(sampler).composable else BRACKET_METHODS


def _melt(wide: pd.DataFrame, quantity: str, sampler: str, fixed: dict) -> pd.DataFrame:
    """Wide accounting table -> long rows (bound x direction, plus RDP for Poisson)."""
    key = "delta" if quantity == "epsilon" else "epsilon"
    lower_method, upper_method = table_methods(sampler)
    is_exact = exact(sampler)
    rows = []
    for record in wide.to_dict("records"):
        base = dict(fixed, **{key: record[key]})
        for extra in ("pld_discretization", "pld_accuracy", "pld_converged"):
            if extra in record:
                base[extra] = record[extra]
        for direction in DIRECTIONS:
            prefix = "" if direction == "max" else f"{direction}_"
            for bound, method in (("lower", lower_method), ("upper", upper_method)):
                label = "exact" if is_exact else bound
                if is_exact and bound == "upper":
                    continue
                rows.append(dict(base, sampler=sampler, method=method, bound=label, direction=direction,
                                 **{quantity: record[f"{prefix}{quantity}_{bound}"]}))
        if f"{quantity}_upper_rdp" in record:
            rows.append(dict(base, sampler=sampler, method="rdp", bound="upper", direction="max",
                             **{quantity: record[f"{quantity}_upper_rdp"]}))
    return pd.DataFrame(rows)


def _accuracy(config: dict) -> float:
    """The relative accuracy the certified bounds are refined to (config ``pld.relative_accuracy``)."""
    return float(config.get("pld", {}).get("relative_accuracy", 1e-3))


def epsilon_vs_sigma(spec: dict, config: dict, progress=None) -> pd.DataFrame:
    """eps(delta) of D, P and S over ``spec['sigmas']`` at ``spec['steps']`` (and any ``compare_steps``)."""
    accuracy = _accuracy(config)
    frames = []
    for steps in [spec["steps"], *spec.get("compare_steps", [])]:
        sigmas = spec["sigmas"] if steps == spec["steps"] else spec.get("compare_sigmas", spec["sigmas"])
        for i, sigma in enumerate(sigmas):
            if progress:
                progress(f"steps={steps} sigma={sigma} ({i + 1}/{len(sigmas)})")
            fixed = {"sigma": float(sigma), "steps": int(steps)}
            for sampler in (D, P, S):
                wide = epsilon_table(paper_phase(sampler, sigma, steps), [spec["delta"]], accuracy=accuracy)
                frames.append(_melt(wide, "epsilon", sampler, fixed))
    return pd.concat(frames, ignore_index=True)


def epsilon_grid(spec: dict) -> np.ndarray:
    """The eps grid of a delta-vs-eps experiment: linspace(start, stop, num) plus the claimed points."""
    grid = spec["epsilon_grid"]
    points = np.linspace(grid["start"], grid["stop"], grid["num"])
    return np.unique(np.concatenate([points, np.asarray(spec.get("epsilon_points", []), dtype=float)]))


def delta_vs_epsilon(spec: dict, config: dict, progress=None) -> pd.DataFrame:
    """delta(eps) of the samplers in ``spec['samplers']`` at fixed sigma and steps."""
    accuracy = _accuracy(config)
    eps = epsilon_grid(spec)
    fixed = {"sigma": float(spec["sigma"]), "steps": int(spec["steps"])}
    frames = []
    for sampler in spec["samplers"]:
        if progress:
            progress(f"{sampler}: {len(eps)} eps values")
        wide = delta_table(paper_phase(sampler, spec["sigma"], spec["steps"]), eps, accuracy=accuracy)
        frames.append(_melt(wide, "delta", sampler, fixed))
    return pd.concat(frames, ignore_index=True)


def theorem_4_1_grid(spec: dict, config: dict, progress=None) -> pd.DataFrame:
    """delta_S lower bound next to delta_D over a (sigma, steps, epochs, eps) grid (Thm 4.1: lower <= delta_D),
    both from their closed forms (``accountants.closed_form``; the face clips the lower bound at the
    upper one, which would make the check trivial)."""
    eps = np.linspace(spec["epsilon_grid"]["start"], spec["epsilon_grid"]["stop"], spec["epsilon_grid"]["num"])
    rows = []
    for sigma in spec["sigmas"]:
        if progress:
            progress(f"sigma={sigma}")
        for steps in spec["steps"]:
            for epochs in spec["epochs"]:
                lower = shuffle.shuffle_delta_lower(eps, sigma, steps, epochs)["max"]
                exact = gaussian.gaussian_delta(eps, sigma, math.sqrt(epochs))
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
