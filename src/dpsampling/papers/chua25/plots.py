"""What the chua25 privacy figures (Figs. 2-4, epochs) share: curve styles, panels, footers, and
the one function that draws them (``plot_panels``); each experiment module passes its
``PanelFigure`` (its curves, titles, limits, footer). All read the summary tables only (never
recompute).

Every curve is the maximum over the two adjacency directions; legends say sampler, method and
whether a curve is an upper bound, a lower bound, an upper confidence bound or an estimate;
footers give sample counts, orders and beta.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpsampling.accountants.closed_form.shuffle import DEFAULT_C_GRID
from dpsampling.papers.chua25.privacy import CERTIFIED_METHOD
from dpsampling.pipeline.plotting import plt, save_figure
from dpsampling.samplers import BALLS_AND_BINS, DETERMINISTIC, POISSON, SHUFFLE

# the curves of the summary tables, by (sampler, method, bound)
P_UPPER, P_LOWER = (POISSON.name, "pld", "upper"), (POISSON.name, "pld", "lower")
S_LOWER = (SHUFFLE.name, "E_C sets", "lower")
D_EXACT = (DETERMINISTIC.name, "exact", "exact")
B_BOUND6 = (BALLS_AND_BINS.name, "bound (6)", "lower")
B_CERTIFIED_UPPER, B_CERTIFIED_LOWER = (BALLS_AND_BINS.name, CERTIFIED_METHOD, "upper"), (BALLS_AND_BINS.name,
                                                                                          CERTIFIED_METHOD, "lower")
B_NAIVE_MEAN, B_NAIVE_UCB = (BALLS_AND_BINS.name, "MC naive", "estimate"), (BALLS_AND_BINS.name, "MC naive", "upper")
B_ORDER_MEAN = (BALLS_AND_BINS.name, "MC order statistics", "estimate")
B_ORDER_UCB = (BALLS_AND_BINS.name, "MC order statistics", "upper")
B_IMPORTANCE_UCB = (BALLS_AND_BINS.name, "MC importance", "upper")
CERTIFIED = (B_CERTIFIED_UPPER, B_CERTIFIED_LOWER)

STYLE = {  # (sampler, method, bound) -> (label, color, linestyle, marker, z-order, line width)
    P_UPPER: ("P: certified upper bound (PLD)", POISSON.colour, "-", None, 5, 2.0),
    P_LOWER: ("P: certified lower bound (PLD; light dashes, on the upper where they agree)", "lightskyblue", "--", None,
              6, 1.0),
    S_LOWER: ("S: lower bound (sets E_C, chua24 eq. (3))", SHUFFLE.colour, "-", None, 4, 1.4),
    D_EXACT: ("D: exact", DETERMINISTIC.colour, "-", None, 3, 1.2),
    B_BOUND6: ("B: lower bound (6)", "darkgreen", ":", "x", 7, 1.4),
    B_CERTIFIED_UPPER: ("B: certified upper bound (PLD)", BALLS_AND_BINS.colour, "-", None, 5, 2.0),
    B_CERTIFIED_LOWER: ("B: certified lower bound (PLD; light dashes)", "lightgreen", "--", None, 6, 1.0),
    B_NAIVE_MEAN: ("B: estimate (MC mean, naive)", "tab:olive", "-", None, 3, 1.0),
    B_NAIVE_UCB: ("B: upper conf. bound (MC naive)", "tab:olive", "--", ".", 3, 1.0),
    B_ORDER_MEAN: ("B: estimate (MC mean, order statistics)", "tab:brown", "-", None, 3, 1.0),
    B_ORDER_UCB: ("B: upper conf. bound (MC order statistics)", "tab:brown", "--", ".", 3, 1.0),
    B_IMPORTANCE_UCB: ("B: upper conf. bound (MC importance, one set per eps)", "tab:cyan", "--", "o", 4, 1.0),
}


def _draw_curve(ax, rows: pd.DataFrame, key, label=None, color=None, linestyle=None):
    default_label, default_color, default_linestyle, marker, zorder, width = STYLE[key]
    linestyle = linestyle or default_linestyle
    rows = rows.sort_values("epsilon")
    y = rows["delta"].to_numpy(dtype=float)
    keep = np.isfinite(y) & (y > 0)
    if keep.any():
        ax.plot(rows["epsilon"].to_numpy()[keep], y[keep], linestyle=linestyle, marker=marker, ms=3,
                markevery=max(1, int(keep.sum()) // 10) if marker else None, color=color or default_color,
                lw=width, zorder=zorder, label=label or default_label)


def ucb_floor_line(ax, floor: float, samples: int) -> None:
    """The smallest UCB ``samples`` samples can give, log(1/beta)/m: below it Monte Carlo shows nothing."""
    ax.axhline(floor, color="grey", lw=0.8, ls="-.", zorder=1,
               label=f"MC floor log(1/beta)/m at {samples:,} samples (UCB cannot go below)")


def _select(summary, panel, sampler, method, bound, **extra) -> pd.DataFrame:
    rows = summary[(summary["panel"] == panel) & (summary["sampler"] == sampler) & (summary["method"] == method)
                   & (summary["bound"] == bound) & (summary["direction"] == "max")]
    for column, value in extra.items():
        rows = rows[rows[column] == value]
    return rows


def _finish(fig, axes, footer: str, path_pdf, path_png, bottom=0.12, shared_legend=False):
    """Log axes, legends (per panel, or with ``shared_legend`` one below the panels, for panels
    that draw the same series), footer, both files."""
    for ax in axes:
        ax.set_yscale("log")
        ax.set_xlabel("epsilon")
        ax.set_ylabel("delta (max over remove, add)")
        ax.grid(True, which="both", alpha=0.25)
        if not shared_legend:
            ax.legend(fontsize=6.5, loc="lower left")
    if shared_legend:
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=6.5, frameon=False,
                   bbox_to_anchor=(0.5, bottom * 0.45))
    save_figure(fig, footer, path_pdf, path_png, rect=(0, bottom, 1, 1))


def _set_limits(ax, summary, panel, floor=1e-16):
    values = summary.loc[(summary["panel"] == panel) & (summary["direction"] == "max") & (summary["delta"] > 0), "delta"]
    if not values.empty:
        ax.set_ylim(max(values.min(), floor) / 3, 1.5)


def settings_text(parameters: dict) -> str:
    settings = parameters.get("settings", {})
    pld = settings.get("pld", {})
    start, stop, step = DEFAULT_C_GRID
    return (f"P: certified engine (dpsampling.accountants.certified), rel. gap {pld.get('relative_accuracy', 0.01)} "
            f"(delta below ~1e-12 not resolved); S: C grid {start}..{stop} step {step}.")


def certified_text(parameters: dict) -> str:
    """How the certified B curves were computed, from the records in the result's metadata."""
    records = parameters.get("certified", [])
    if not records:
        return ""
    reached = max(float(r["accuracy_reached"]) for r in records)
    requested = sorted({float(r["accuracy_requested"]) for r in records})
    unconverged = [f"{r['panel']}" + (f" k={r['epochs']}" if int(r["epochs"]) > 1 else "") for r in records
                   if not r["converged"]]
    return (f" B certified: PLD of the random-allocation pair (dpsampling.Accountant, engine "
            f"v{records[0]['engine_version']}), max over directions; relative gap requested "
            f"{', '.join(f'{a:g}' for a in requested)}, reached <= {reached:.2g} (rows with delta > "
            f"{float(records[0]['accuracy_floor']):g})" + (f"; grid cap hit (gap above the request, bounds still valid): "
                                                          f"{', '.join(unconverged)}" if unconverged else "") + ".")


def panel_title(summary, panel) -> str:
    row = summary[summary["panel"] == panel].iloc[0]
    return f"{panel}: sigma = {row['sigma']:g}, T = {int(row['steps']):,}"


def mc_info(summary, panel, method) -> pd.Series:
    rows = summary[(summary["panel"] == panel) & (summary["method"] == method) & (summary["direction"] == "remove")]
    return rows.iloc[0]


def _panel_grid(count: int):
    columns = 2 if count > 1 else 1
    rows = -(-count // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.6 * columns, 4.0 * rows + 0.6), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:count])


@dataclass(frozen=True)
class Curve:
    """One curve of a panel: its ``key`` in ``STYLE``, with the label and line style of ``STYLE``
    unless given."""

    key: tuple[str, str, str]
    label: str | None = None
    linestyle: object = None


@dataclass(frozen=True)
class PanelFigure:
    """What one chua25 panel figure draws (``plot_panels``): its ``curves`` in each panel (once per
    k of the summary's epochs, coloured along viridis and labelled ', k = <k>', with ``by_epochs``),
    then ``decorate(ax, summary, panel)``, the title ``title(summary, panel)`` and the y limits
    (none below ``floor``); ``heading(summary)`` above the panels, ``footer(summary, parameters)``
    below them, ``bottom`` and ``shared_legend`` as in ``_finish``."""

    curves: tuple[Curve, ...]
    footer: Callable[[pd.DataFrame, dict], str]
    title: Callable[[pd.DataFrame, str], str] = panel_title
    floor: float = 1e-16
    bottom: float = 0.12
    shared_legend: bool = False
    by_epochs: bool = False
    decorate: Callable | None = None
    heading: Callable[[pd.DataFrame], str] | None = None


def _series(summary: pd.DataFrame, by_epochs: bool) -> list[tuple[dict, str, object]]:
    """(row filter, label suffix, colour) of each series of curves a panel draws: one, or one per k."""
    if not by_epochs:
        return [({}, "", None)]
    epochs = sorted(summary["epochs"].unique())
    colors = plt.get_cmap("viridis")
    return [({"epochs": k}, f", k = {k}", colors(i / max(len(epochs) - 1, 1))) for i, k in enumerate(epochs)]


def plot_panels(figure: PanelFigure, summary: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
    """Draw ``figure`` (a ``PanelFigure``) from ``summary``, one panel per panel of the table in its
    order, and write both files."""
    panels = list(dict.fromkeys(summary["panel"]))
    fig, axes = _panel_grid(len(panels))
    for ax, panel in zip(axes, panels):
        for extra, suffix, color in _series(summary, figure.by_epochs):
            for curve in figure.curves:
                label = f"{curve.label or STYLE[curve.key][0]}{suffix}" if suffix else curve.label
                _draw_curve(ax, _select(summary, panel, *curve.key, **extra), curve.key, label=label, color=color,
                            linestyle=curve.linestyle)
        if figure.decorate:
            figure.decorate(ax, summary, panel)
        ax.set_title(figure.title(summary, panel), fontsize=9)
        _set_limits(ax, summary, panel, floor=figure.floor)
    if figure.heading:
        fig.suptitle(figure.heading(summary), fontsize=10)
    _finish(fig, axes, figure.footer(summary, parameters), path_pdf, path_png, bottom=figure.bottom,
            shared_legend=figure.shared_legend)
