"""lebeda24 Conjecture 12: remove >= add for the Poisson subsampled Gaussian, searched over a grid of
(sigma, rate, k, eps) with PLD bounds of both directions (config ``lebeda24.conj12``).

Computed: ``conjecture12``; plot: ``plot``; claims: certain and apparent counterexamples.
"""

from __future__ import annotations

import pandas as pd

from dpsampling.papers.lebeda24 import gaussian_search as gaussian
from dpsampling.papers.lebeda24.cost import COARSENING, median, same_spec
from dpsampling.papers.lebeda24.grids import format_values, grid
from dpsampling.papers.lebeda24.workflow import lebeda24_experiment
from dpsampling.pipeline.claims.base import Claim
from dpsampling.pipeline.estimate import Rates, Work, cpu_seconds
from dpsampling.pipeline.plotting import departures_text, plt, save_figure

EXPERIMENT_ID = "lebeda24_conj12"
RESULTS = ["grid.parquet"]
PLOT_INPUTS = {"grid": f"results/{EXPERIMENT_ID}/grid.parquet"}


def conjecture12(spec: dict, progress=print) -> pd.DataFrame:
    """Every (sigma, rate, k, eps) of the grid with both directions' upper and lower deltas and the
    counterexample flags of ``gaussian_search.conjecture12_search``."""
    frames = []
    for sigma in spec["sigmas"]:
        table, bad = gaussian.conjecture12_search([sigma], spec["rates"], spec["compositions"],
                                                  grid(spec["epsilon_grid"]), spec["discretization"])
        frames.append(table)
        progress(f"sigma={sigma:g}: {len(table)} grid points, {len(bad)} flagged")
    return pd.concat(frames, ignore_index=True)


def plot(tables, pdf, png) -> None:
    """Conjecture 12: the largest ratio delta_add / delta_remove over eps, per grid point."""
    frame, meta = tables["grid"]
    spec = meta["parameters"]["spec"]
    data = frame[frame.delta_remove_upper > 1e-12].copy()
    data["ratio"] = data.delta_add_upper / data.delta_remove_upper
    worst = data.groupby(["sigma", "sampling_rate", "steps"])["ratio"].max().reset_index()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for (sigma, rate), part in worst.groupby(["sigma", "sampling_rate"]):
        ax.plot(part.steps, part.ratio, marker="o", ms=3, lw=0.8, label=f"sigma={sigma:g}, q={rate:g}")
    ax.axhline(1.0, color="black", lw=1.0, ls="--", label="conjecture: ratio <= 1")
    ax.set_xscale("log")
    ax.set_xlabel("compositions k")
    ax.set_ylabel("max over eps of delta_add / delta_remove")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=5.5, ncol=3)
    footer = (departures_text([], "the paper states Conjecture 12 without a search; the grid is ours")
              + f"lebeda24_conj12: Poisson Gaussian, PLD upper bounds (pessimistic, discretization "
              f"{spec['discretization']}) of both directions on eps = {spec['epsilon_grid']}; points with "
              "delta_remove > 1e-12. No counterexample if every ratio is <= 1.")
    save_figure(fig, footer, pdf, png)


def _conj12(flag):
    def measure(frame):
        flagged = frame[frame[flag]]
        grid = (f"grid: sigma {format_values(frame['sigma'].unique())}, rate {format_values(frame['sampling_rate'].unique())}, "
                f"k {format_values(frame['steps'].unique())}, {frame['epsilon'].nunique()} eps in [{frame['epsilon'].min():g}, "
                f"{frame['epsilon'].max():g}], discretization {frame['discretization'].iloc[0]:g}; {len(frame)} points")
        return float(len(flagged)), grid
    return measure


CLAIMS = [
    Claim("lebeda24_conj12_certain", "lebeda24_conj12",
          "grid points with a certain counterexample (add PLD lower bound > remove PLD upper bound)", "~", "0",
          _conj12("certain_counterexample"), result_file="grid.parquet", tolerance=0.0),
    Claim("lebeda24_conj12_apparent", "lebeda24_conj12",
          "grid points where the add PLD upper bound exceeds the remove one (rtol 1e-6, atol 1e-12)", "~", "0",
          _conj12("apparent_counterexample"), result_file="grid.parquet", tolerance=0.0),
]


def conjecture12_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Its cost model entry (see dpsampling.papers.lebeda24.cost)."""
    spec = config["lebeda24"]["conj12"]
    units = float(len(spec["sigmas"]) * len(spec["rates"]))
    rate = rates.measured(experiment, "grid.parquet", lambda parameters: float(
        len(parameters["spec"]["sigmas"]) * len(parameters["spec"]["rates"])), same_spec(spec))
    if rate is None:
        cell = dict(spec, sigmas=[median(spec["sigmas"])], rates=[median(spec["rates"])],
                    discretization=spec["discretization"] * COARSENING)
        seconds, source = rates.calibrate(f"{experiment} (one (sigma, rate) cell, every k)",
                                          lambda: (cpu_seconds(lambda: conjecture12(cell, progress=lambda m: None)), 1.0))
        rate = seconds * COARSENING, source + f" x {COARSENING:g} (PLD cost ~ 1/discretization)"
    return Work(experiment, units, "(sigma, rate) cells, every k", *rate)


EXPERIMENT = lebeda24_experiment(__name__, RESULTS, CLAIMS, conjecture12_work, figure=True)
