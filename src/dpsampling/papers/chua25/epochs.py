"""chua25 epochs (beyond Fig. 2): delta_B over k epochs (naive Monte Carlo of Alg. 11, the sum of k
independent losses) next to delta_P with rate 1/T over k T steps and the certified delta_B bounds
(config ``chua25.epochs``).

Sampled: one naive sample set per sigma, k and direction. Curves: ``CURVES`` at (sigma, T, k).
Plot: ``plot``. No stated number of the paper: no claims.
"""

from __future__ import annotations

import sys

import pandas as pd

from dpsampling.papers.chua25.plots import (
    CERTIFIED,
    certified_text,
    draw_curve,
    finish,
    mc_info,
    panel_grid,
    select,
    set_limits,
    settings_text,
)
from dpsampling.papers.chua25.samples import SampleSet, name_of, series_sets
from dpsampling.papers.chua25.workflow import chua25_tests, monte_carlo_experiment
from dpsampling.pipeline.plotting import departures_text, plt

EXPERIMENT_ID = "chua25_epochs"

# --- what is sampled ------------------------------------------------------------------------


def sample_sets(spec: dict) -> list[SampleSet]:
    """Per sigma (panel sigma<sigma>), k of ``epochs`` and direction: naive over k epochs (series naive_k<k>)."""
    sets: list[SampleSet] = []
    for sigma in spec["sigmas"]:
        setting = {"sigma": sigma, "steps": spec["steps"]}
        for k in spec["epochs"]:
            sets += series_sets(EXPERIMENT_ID, f"sigma{name_of(sigma)}", setting, f"naive_k{k}", "naive",
                                spec["naive"], epochs=k)
    return sets


# --- the deterministic curves beside them ---------------------------------------------------

CURVES = ("poisson", "deterministic", "bound6", "certified")


def bounds_settings(spec: dict) -> list[dict]:
    """(panel, sigma, steps, epochs) of every curve set: each sigma at each k."""
    return [{"panel": f"sigma{float(sigma):g}", "sigma": float(sigma), "steps": int(spec["steps"]), "epochs": int(k)}
            for sigma in spec["sigmas"] for k in spec["epochs"]]


# --- the figure ----------------------------------------------------------------------------


def plot(summary: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
    """delta_B (MC, k epochs, Alg. 11) next to delta_P (PLD, k epochs) for every sigma."""
    panels = list(dict.fromkeys(summary["panel"]))
    fig, axes = panel_grid(len(panels))
    colors = plt.get_cmap("viridis")
    epochs = sorted(summary["epochs"].unique())
    for ax, panel in zip(axes, panels):
        for i, k in enumerate(epochs):
            color = colors(i / max(len(epochs) - 1, 1))
            for key, text, linestyle in ((("balls_and_bins", "MC naive", "upper"), "B: upper conf. bound (MC naive)", "--"),
                                         (("balls_and_bins", "MC naive", "estimate"), "B: estimate (MC mean)", "-"),
                                         (("poisson", "pld", "upper"), "P: certified upper bound (PLD)", ":"),
                                         (CERTIFIED[0], "B: certified upper bound (PLD)", "-."),
                                         (CERTIFIED[1], "B: certified lower bound (PLD)", (0, (3, 1, 1, 1, 1, 1)))):
                draw_curve(ax, select(summary, panel, *key, epochs=k), key, label=f"{text}, k = {k}", color=color,
                      linestyle=linestyle)
        row = summary[summary["panel"] == panel].iloc[0]
        ax.set_title(f"sigma = {row['sigma']:g}, T = {int(row['steps']):,} per epoch, k epochs", fontsize=9)
        set_limits(ax, summary, panel, floor=1e-13)  # below, the PLD is dominated by its 1e-15 tail truncation
    info = mc_info(summary, panels[0], "MC naive")
    footer = (departures_text([], "chua25 App. B.4 states the k-epoch estimator without a figure")
              + f"chua25_epochs. B: naive Monte Carlo over k epochs (Alg. 11: sum of k independent losses), "
              f"{int(info['samples']):,} samples per direction and k; UCB at beta = {info['error_prob']:g} (pointwise). "
              "P: Poisson with rate 1/T over k T steps. " + settings_text(parameters) + certified_text(parameters))
    finish(fig, axes, footer, path_pdf, path_png, bottom=0.3, shared_legend=True)




EXPERIMENT = monte_carlo_experiment(sys.modules[__name__], (), chua25_tests(
    "test_chua25_experiments.py", "test_chua25_certified.py", "test_chua25_privacy.py", "test_chua25_workflow.py"))
