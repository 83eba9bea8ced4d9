"""Figures from result tables only (never recomputes). Log scales; every legend entry names the
sampler, the method and whether the curve is an upper bound, a lower bound, exact or an estimate."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.pipeline.plotting import SAMPLER_COLOR, SAMPLER_LETTER, plt, save_figure

METHOD_TEXT = {"exact": "exact (Prop. 3.1)", "pld": "certified PLD", "rdp": "RDP", "E_C sets": "sets E_C, eq. (3)"}
LINESTYLE = {("exact", "exact"): "-", ("pld", "upper"): "-", ("pld", "lower"): "--", ("rdp", "upper"): ":",
             ("E_C sets", "lower"): "-"}


def curve_label(sampler: str, method: str, bound: str) -> str:
    """e.g. 'P: upper bound (PLD)', 'S: lower bound (sets E_C, eq. (3))', 'D: exact (Prop. 3.1)'."""
    letter = SAMPLER_LETTER.get(sampler, sampler)
    if bound == "exact":
        return f"{letter}: {METHOD_TEXT.get(method, method)}"
    return f"{letter}: {bound} bound ({METHOD_TEXT.get(method, method)})"


def _curves(frame: pd.DataFrame):
    """(sampler, method, bound, sub-frame) for the max-over-directions curves worth drawing."""
    data = frame[frame["direction"] == "max"]
    for (sampler, method, bound), part in data.groupby(["sampler", "method", "bound"], sort=False):
        if sampler == "shuffle" and bound == "upper":
            continue  # equals delta_D (Thm 4.1), drawn as D
        yield sampler, method, bound, part


def _finish(fig, ax, footer: str, path_pdf, path_png):
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="best")
    save_figure(fig, footer, path_pdf, path_png, rect=(0, 0.06, 1, 1))


def _footer(parameters: dict) -> str:
    pld = parameters.get("pld", {})
    grid = parameters.get("shuffle", {}).get("c_grid", {})
    return (f"{parameters.get('experiment', '')}: both adjacency directions, max shown. P: certified engine "
            f"(dpsampling.accountants.certified), refined to rel. gap {pld.get('relative_accuracy')}; "
            f"C grid {grid.get('start')}..{grid.get('stop')} step {grid.get('step')}. dp-accounting RDP with default orders. "
            "Upper bounds include tail and rounding terms (delta below ~1e-12 is not resolved).")


def plot_epsilon_vs_sigma(frame: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
    """eps(delta) against sigma at the experiment's main T."""
    spec = parameters["spec"]
    frame = frame[frame["steps"] == spec["steps"]]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for sampler, method, bound, part in _curves(frame):
        part = part.sort_values("sigma")
        y = part["epsilon"].to_numpy()
        keep = y > 0
        ax.plot(part["sigma"].to_numpy()[keep], y[keep], LINESTYLE.get((method, bound), "-"), marker=".",
                color=SAMPLER_COLOR[sampler], label=curve_label(sampler, method, bound))
    ax.set_xlabel("noise multiplier sigma")
    ax.set_ylabel("epsilon")
    ax.set_title(f"eps vs sigma: delta = {spec['delta']:g}, T = {spec['steps']:,}")
    _finish(fig, ax, _footer(parameters), path_pdf, path_png)


def plot_delta_vs_epsilon(frame: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
    """delta(eps) against eps at the experiment's sigma and T."""
    spec = parameters["spec"]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for sampler, method, bound, part in _curves(frame):
        part = part.sort_values("epsilon")
        y = part["delta"].to_numpy()
        keep = y > 0
        ax.plot(part["epsilon"].to_numpy()[keep], y[keep], LINESTYLE.get((method, bound), "-"),
                color=SAMPLER_COLOR[sampler], label=curve_label(sampler, method, bound))
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta")
    ax.set_title(f"delta vs eps: sigma = {spec['sigma']:g}, T = {spec['steps']:,}")
    lowest = np.nanmin(np.where(frame["delta"] > 0, frame["delta"], np.nan))
    ax.set_ylim(max(lowest, 1e-16) / 2, 1.5)
    _finish(fig, ax, _footer(parameters), path_pdf, path_png)
