"""What the chua25 privacy figures (Figs. 2-4, epochs) share: curve styles, panels, footers. Each
figure's ``plot`` is in its experiment module; all read the summary tables only (never recompute).

Every curve is the maximum over the two adjacency directions; legends say sampler, method and
whether a curve is an upper bound, a lower bound, an upper confidence bound or an estimate;
footers give sample counts, orders and beta.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.accountants.closed_form.shuffle import DEFAULT_C_GRID
from dpsampling.papers.chua25.privacy import CERTIFIED_METHOD
from dpsampling.pipeline.plotting import SAMPLER_COLOR, plt, save_figure

CERTIFIED = (("balls_and_bins", CERTIFIED_METHOD, "upper"), ("balls_and_bins", CERTIFIED_METHOD, "lower"))

STYLE = {  # (sampler, method, bound) -> (label, color, linestyle, marker, z-order, line width)
    ("poisson", "pld", "upper"): ("P: certified upper bound (PLD)", SAMPLER_COLOR["poisson"], "-", None, 5, 2.0),
    ("poisson", "pld", "lower"): ("P: certified lower bound (PLD; light dashes, on the upper where they agree)",
                                  "lightskyblue", "--", None, 6, 1.0),
    ("shuffle", "E_C sets", "lower"): ("S: lower bound (sets E_C, chua24 eq. (3))", SAMPLER_COLOR["shuffle"], "-", None,
                                       4, 1.4),
    ("deterministic", "exact", "exact"): ("D: exact", SAMPLER_COLOR["deterministic"], "-", None, 3, 1.2),
    ("balls_and_bins", "bound (6)", "lower"): ("B: lower bound (6)", "darkgreen", ":", "x", 7, 1.4),
    ("balls_and_bins", CERTIFIED_METHOD, "upper"): ("B: certified upper bound (PLD)", SAMPLER_COLOR["balls_and_bins"],
                                                    "-", None, 5, 2.0),
    ("balls_and_bins", CERTIFIED_METHOD, "lower"): ("B: certified lower bound (PLD; light dashes)", "lightgreen", "--",
                                                    None, 6, 1.0),
    ("balls_and_bins", "MC naive", "estimate"): ("B: estimate (MC mean, naive)", "tab:olive", "-", None, 3, 1.0),
    ("balls_and_bins", "MC naive", "upper"): ("B: upper conf. bound (MC naive)", "tab:olive", "--", ".", 3, 1.0),
    ("balls_and_bins", "MC order statistics", "estimate"): ("B: estimate (MC mean, order statistics)", "tab:brown", "-",
                                                            None, 3, 1.0),
    ("balls_and_bins", "MC order statistics", "upper"): ("B: upper conf. bound (MC order statistics)", "tab:brown",
                                                         "--", ".", 3, 1.0),
    ("balls_and_bins", "MC importance", "upper"): ("B: upper conf. bound (MC importance, one set per eps)", "tab:cyan",
                                                   "--", "o", 4, 1.0),
}


def draw_curve(ax, rows: pd.DataFrame, key, label=None, color=None, linestyle=None):
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


def select(summary, panel, sampler, method, bound, **extra) -> pd.DataFrame:
    rows = summary[(summary["panel"] == panel) & (summary["sampler"] == sampler) & (summary["method"] == method)
                   & (summary["bound"] == bound) & (summary["direction"] == "max")]
    for column, value in extra.items():
        rows = rows[rows[column] == value]
    return rows


def finish(fig, axes, footer: str, path_pdf, path_png, bottom=0.12, shared_legend=False):
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


def set_limits(ax, summary, panel, floor=1e-16):
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


def panel_grid(count: int):
    columns = 2 if count > 1 else 1
    rows = -(-count // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.6 * columns, 4.0 * rows + 0.6), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:count])
