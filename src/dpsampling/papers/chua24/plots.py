"""Figures from result tables only (never recomputes). Log scales; every legend entry names the
sampler, the method and whether the curve is an upper bound, a lower bound, exact or an estimate.

chua24's question is how much shuffling (S) costs against Poisson (P): the S lower bound and the
certified P bounds are drawn first (legend and z-order), D and RDP after. eps_S (delta_S) is only
known to lie between the E_C lower bound and eps_D (delta_D, Thm 4.1): that band is shaded, so where
the lower bound falls below P's upper bound (a loose lower bound, e.g. chua24 Fig. 4 at sigma >= 1.6)
the figure shows an interval that holds P, not "S better than P". The footer names the setting that
ran and every departure from the paper's (``paper``: the paper's setting, ``notes``: the paper's own
inconsistencies, e.g. a caption against its text).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.accountants.closed_form.shuffle import DEFAULT_C_GRID
from dpsampling.papers.accounting import exact
from dpsampling.papers.chua24.curves import D, P, S
from dpsampling.pipeline.plotting import SAMPLER_COLOR, SAMPLER_LETTER, plt, save_figure
from dpsampling.samplers import sampler_entry

METHOD_TEXT = {"exact": "exact (Prop. 3.1)", "pld": "certified PLD", "rdp": "RDP", "E_C sets": "sets E_C, eq. (3)"}
# (sampler, method, bound) -> (linestyle, marker, z-order, legend rank): the paper's question first
STYLE = {(S, "E_C sets", "lower"): ("-", "^", 6, 0), (P, "pld", "upper"): ("-", "o", 5, 1),
         (P, "pld", "lower"): ("--", None, 7, 2), (D, "exact", "exact"): ("-", "s", 8, 3), (P, "rdp", "upper"): (":", "x", 3, 4)}
S_BAND = "S: the true value lies in the band (lower bound .. D, Thm 4.1)"


def curve_label(sampler: str, method: str, bound: str) -> str:
    """e.g. 'P: upper bound (PLD)', 'S: lower bound (sets E_C, eq. (3))', 'D: exact (Prop. 3.1)'."""
    letter = SAMPLER_LETTER.get(sampler, sampler)
    if bound == "exact":
        return f"{letter}: {METHOD_TEXT.get(method, method)}"
    return f"{letter}: {bound} bound ({METHOD_TEXT.get(method, method)})"


def _curves(frame: pd.DataFrame):
    """(sampler, method, bound, sub-frame) of the max-over-directions curves worth drawing, the
    paper's question first."""
    data = frame[frame["direction"] == "max"]
    found = []
    for (sampler, method, bound), part in data.groupby(["sampler", "method", "bound"], sort=False):
        if not sampler_entry(sampler).tight and bound == "upper":
            continue  # shuffle's upper bound equals delta_D (Thm 4.1), drawn as D
        found.append((STYLE.get((sampler, method, bound), ("-", None, 2, 9))[3], sampler, method, bound, part))
    for _, sampler, method, bound, part in sorted(found, key=lambda item: item[0]):
        yield sampler, method, bound, part


def departures(spec: dict, paper: dict | None) -> list[str]:
    """'delta = 1e-05 (the paper's 1e-06)' for every key of the paper's setting that ran otherwise."""
    out = []
    for key, value in (paper or {}).items():
        ran = spec.get(key)
        if ran is None or not np.isclose(float(ran), float(value), rtol=1e-9, atol=0):
            out.append(f"{key} = {ran:g} (the paper's {value:g})" if ran is not None else f"{key} not set (the paper's {value:g})")
    return out


def setting_text(parameters: dict, paper: dict | None, notes: tuple = ()) -> str:
    """The footer's first sentence: the setting that ran, its departures from the paper, the notes."""
    spec = parameters.get("spec", {})
    ran = ", ".join(f"{k} = {spec[k]:g}" for k in (paper or {}) if k in spec)
    moved = departures(spec, paper)
    text = (f"{parameters.get('experiment', '')}: ran at {ran}; "
            + (f"DEPARTS from the paper: {'; '.join(moved)}. " if moved else "the paper's setting. "))
    return text + "".join(f"{note} " for note in notes)


def _finish(fig, ax, footer: str, path_pdf, path_png):
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper left", ncol=1, frameon=False, bbox_to_anchor=(0.0, -0.12))
    save_figure(fig, footer, path_pdf, path_png, rect=(0, 0.1, 1, 1))


def _footer(parameters: dict, paper: dict | None, notes: tuple) -> str:
    pld = parameters.get("pld", {})
    start, stop, step = DEFAULT_C_GRID
    return (setting_text(parameters, paper, notes)
            + "Both adjacency directions, max shown. P: certified engine "
            f"(dpsampling.accountants.certified), refined to rel. gap {pld.get('relative_accuracy')}; "
            f"C grid {start}..{stop} step {step}. dp-accounting RDP with default orders. "
            "Upper bounds include tail and rounding terms (delta below ~1e-12 is not resolved).")


def _draw(ax, x, y, sampler, method, bound):
    linestyle, marker, zorder, _ = STYLE.get((sampler, method, bound), ("-", None, 2, 9))
    color, width, label = SAMPLER_COLOR[sampler], 1.4, curve_label(sampler, method, bound)
    if (sampler, method, bound) == (P, "pld", "lower"):  # on top of the upper bound, within 1% of it
        color, width, label = "lightskyblue", 1.0, label + " (light dashes on the upper)"
    hollow = exact(sampler)  # deterministic: thin, on top: visible where the S lower bound meets it (Fig. 3)
    ax.plot(x, y, linestyle=linestyle, marker=marker, ms=3.5 if hollow else 3, mfc="none" if hollow else None,
            markevery=max(1, len(x) // 12) if marker else None, color=color, lw=0.9 if hollow else width,
            zorder=zorder, label=label)


def _shuffle_band(ax, x, lower, exact):
    """Shade where eps_S (delta_S) may lie: between the E_C lower bound and D (Thm 4.1)."""
    ax.fill_between(x, lower, exact, color=SAMPLER_COLOR[S], alpha=0.10, lw=0, zorder=1, label=S_BAND)


def _band_edges(frame, along, value):
    data = frame[frame["direction"] == "max"]
    lower = data[(data["sampler"] == S) & (data["method"] == "E_C sets")].set_index(along)[value]
    exact = data[data["sampler"] == D].set_index(along)[value]
    both = pd.concat([lower.rename("lower"), exact.rename("exact")], axis=1).dropna().sort_index()
    return both[(both["lower"] > 0) & (both["exact"] > 0)]


def _loose_shuffle(ax, frame, along, value):
    """Mark where the S lower bound falls below P's certified upper bound (a loose lower bound)."""
    data = frame[frame["direction"] == "max"]
    lower = data[(data["sampler"] == S) & (data["method"] == "E_C sets")].set_index(along)[value]
    upper = data[(data["sampler"] == P) & (data["method"] == "pld") & (data["bound"] == "upper")].set_index(along)[value]
    loose = (lower < upper.reindex(lower.index)) & (lower > 0)
    if loose.any():
        first = loose[loose].index.min()
        ax.plot(lower[loose].index, lower[loose], "v", ms=5, mfc="none", color=SAMPLER_COLOR[S], zorder=8,
                label="S lower bound < P upper bound: loose, not S better than P")
        return first
    return None


def plot_epsilon_vs_sigma(frame: pd.DataFrame, parameters: dict, path_pdf, path_png, paper: dict | None = None,
                          notes: tuple = ()) -> None:
    """eps(delta) against sigma at the experiment's main T."""
    spec = parameters["spec"]
    frame = frame[frame["steps"] == spec["steps"]]
    fig, ax = plt.subplots(figsize=(6.4, 6.6))
    for sampler, method, bound, part in _curves(frame):
        part = part.sort_values("sigma")
        y = part["epsilon"].to_numpy()
        keep = y > 0
        _draw(ax, part["sigma"].to_numpy()[keep], y[keep], sampler, method, bound)
    band = _band_edges(frame, "sigma", "epsilon")
    if not band.empty:
        _shuffle_band(ax, band.index.to_numpy(), band["lower"].to_numpy(), band["exact"].to_numpy())
    first = _loose_shuffle(ax, frame, "sigma", "epsilon")
    ax.set_xlabel("noise multiplier sigma")
    ax.set_ylabel("epsilon")
    ax.set_title(f"eps vs sigma: delta = {spec['delta']:g}, T = {spec['steps']:,}")
    extra = (f"From sigma = {first:g} the S lower bound is below P's upper bound: there it shows only that eps_S lies "
             f"in the band, which holds P's value. ",) if first is not None else ()
    _finish(fig, ax, _footer(parameters, paper, tuple(notes) + extra), path_pdf, path_png)


def plot_delta_vs_epsilon(frame: pd.DataFrame, parameters: dict, path_pdf, path_png, paper: dict | None = None,
                          notes: tuple = ()) -> None:
    """delta(eps) against eps at the experiment's sigma and T."""
    spec = parameters["spec"]
    fig, ax = plt.subplots(figsize=(6.4, 6.6))
    for sampler, method, bound, part in _curves(frame):
        part = part.sort_values("epsilon")
        y = part["delta"].to_numpy()
        keep = y > 0
        _draw(ax, part["epsilon"].to_numpy()[keep], y[keep], sampler, method, bound)
    band = _band_edges(frame, "epsilon", "delta")
    if not band.empty:
        _shuffle_band(ax, band.index.to_numpy(), band["lower"].to_numpy(), band["exact"].to_numpy())
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta")
    ax.set_title(f"delta vs eps: sigma = {spec['sigma']:g}, T = {spec['steps']:,}")
    lowest = np.nanmin(np.where(frame["delta"] > 0, frame["delta"], np.nan))
    ax.set_ylim(max(lowest, 1e-16) / 2, 1.5)
    _finish(fig, ax, _footer(parameters, paper, tuple(notes)), path_pdf, path_png)
