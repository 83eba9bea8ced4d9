"""chua25 Fig. 1 (utility of DP-SGD per batch sampler) from its runs table; never retrains."""

from __future__ import annotations

import pandas as pd

from dpsampling.papers.chua25.utility import model_of
from dpsampling.pipeline.plotting import SAMPLER_COLOR, SAMPLER_LETTER, plt, save_figure


def plot_utility(runs: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
    """chua25 Fig. 1: test AUC (mean +- std over seeds, learning rate chosen on validation AUC)."""
    chosen = runs[runs["selected"]]
    summary = (chosen.groupby(["panel", "generator", "batch_size", "sigma"], as_index=False)["test_auc"]
               .agg(mean="mean", std="std"))
    panel_names = ["nonprivate"] + sorted((p for p in summary["panel"].unique() if p != "nonprivate"),
                                          key=lambda p: int(p.removeprefix("dp_b")))
    fig, axes = plt.subplots(1, len(panel_names), figsize=(4.2 * len(panel_names), 3.8), squeeze=False)
    for ax, panel in zip(axes[0], panel_names):
        part = summary[summary["panel"] == panel]
        x_column = "batch_size" if panel == "nonprivate" else "sigma"
        for generator, rows in part.groupby("generator"):
            rows = rows.sort_values(x_column)
            ax.errorbar(rows[x_column], rows["mean"], yerr=rows["std"].fillna(0), marker="o", ms=3, capsize=2,
                        color=SAMPLER_COLOR.get(generator, "gray"),
                        label=f"{SAMPLER_LETTER.get(generator, generator)}: test AUC, mean +- std (estimate)")
        if panel == "nonprivate":
            ax.set_xscale("log", base=2)
            ax.set_title("non-private SGD")
            ax.set_xlabel("batch size")
        else:
            ax.set_xscale("symlog", linthresh=0.1, linscale=1.0)
            ax.axvline(0.1, color="gray", ls=":", lw=0.8)
            ax.set_title(f"DP-SGD, expected batch {panel.removeprefix('dp_b')}")
            ax.set_xlabel("sigma (log left of 0.1, linear right)")
        ax.set_ylabel("test AUC")
        ax.grid(True, alpha=0.25)
        ax.legend(fontsize=7)
    spec = parameters.get("spec", {})
    data = spec.get("data", {})
    seeds = int(chosen["seed"].nunique()) if not chosen.empty else 0
    footer = (f"chua25_fig1 on {data.get('source')} data ({int(runs['train_rows'].iloc[0]):,} training rows), 1 epoch, "
              f"{seeds} seeds, {model_of(spec).label}, {spec.get('optimizer')} with learning rate chosen per point from "
              f"{spec.get('learning_rates')} on validation AUC; clip norm {spec.get('clip_norm')}; P and B truncated to B "
              f"with delta' <= {spec.get('truncation', {}).get('delta')} at eps = {spec.get('truncation', {}).get('epsilon')}.")
    save_figure(fig, footer, path_pdf, path_png, rect=(0, 0.07, 1, 1))
