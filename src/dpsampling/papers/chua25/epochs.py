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
    B_CERTIFIED_LOWER,
    B_CERTIFIED_UPPER,
    B_NAIVE_MEAN,
    B_NAIVE_UCB,
    P_UPPER,
    Curve,
    PanelFigure,
    certified_text,
    mc_info,
    plot_panels,
    settings_text,
)
from dpsampling.papers.chua25.privacy import BOUND6_CURVE, CERTIFIED_CURVE
from dpsampling.papers.chua25.samples import SampleSet, name_of, series_sets
from dpsampling.papers.chua25.workflow import chua25_tests, monte_carlo_experiment
from dpsampling.pipeline.plotting import departures_text
from dpsampling.samplers import DETERMINISTIC, POISSON

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

CURVES = (POISSON.name, DETERMINISTIC.name, BOUND6_CURVE, CERTIFIED_CURVE)


def bounds_settings(spec: dict) -> list[dict]:
    """(panel, sigma, steps, epochs) of every curve set: each sigma at each k."""
    return [{"panel": f"sigma{float(sigma):g}", "sigma": float(sigma), "steps": int(spec["steps"]), "epochs": int(k)}
            for sigma in spec["sigmas"] for k in spec["epochs"]]


# --- the figure ----------------------------------------------------------------------------


def _title(summary, panel) -> str:
    row = summary[summary["panel"] == panel].iloc[0]
    return f"sigma = {row['sigma']:g}, T = {int(row['steps']):,} per epoch, k epochs"


def _footer(summary, parameters) -> str:
    info = mc_info(summary, summary["panel"].iloc[0], "MC naive")
    return (departures_text([], "chua25 App. B.4 states the k-epoch estimator without a figure")
            + f"chua25_epochs. B: naive Monte Carlo over k epochs (Alg. 11: sum of k independent losses), "
            f"{int(info['samples']):,} samples per direction and k; UCB at beta = {info['error_prob']:g} (pointwise). "
            "P: Poisson with rate 1/T over k T steps. " + settings_text(parameters) + certified_text(parameters))


FIGURE = PanelFigure((Curve(B_NAIVE_UCB, "B: upper conf. bound (MC naive)", "--"),
                      Curve(B_NAIVE_MEAN, "B: estimate (MC mean)", "-"),
                      Curve(P_UPPER, "P: certified upper bound (PLD)", ":"),
                      Curve(B_CERTIFIED_UPPER, "B: certified upper bound (PLD)", "-."),
                      Curve(B_CERTIFIED_LOWER, "B: certified lower bound (PLD)", (0, (3, 1, 1, 1, 1, 1)))),
                     _footer, title=_title, floor=1e-13, bottom=0.3, shared_legend=True, by_epochs=True)
"""Every curve once per k, coloured by k; no y limit below 1e-13, where the PLD is dominated by its
1e-15 tail truncation; one legend below the panels."""


def plot(summary: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
    """delta_B (MC, k epochs, Alg. 11) next to delta_P (PLD, k epochs) for every sigma: ``FIGURE``."""
    plot_panels(FIGURE, summary, parameters, path_pdf, path_png)


EXPERIMENT = monte_carlo_experiment(sys.modules[__name__], (), chua25_tests(
    "test_chua25_experiments.py", "test_chua25_certified.py", "test_chua25_privacy.py", "test_chua25_workflow.py"))
