"""lebeda24 Conjecture 12: remove >= add for the Poisson subsampled Gaussian, searched over a grid of
(sigma, rate, k, eps) with the face's certified bounds of both directions (``dpsampling.Accountant``,
relative gap ``accuracy``; config ``lebeda24.conj12``).

Computed: ``conjecture12``; plot: ``plot``; claims: certain and apparent counterexamples.
"""

from __future__ import annotations

import pandas as pd

from dpsampling.accountants.frames import wide
from dpsampling.accountants.run import Phase
from dpsampling.lazy import lazy_import
from dpsampling.papers.lebeda24.cost import COARSENING, median, same_spec
from dpsampling.papers.lebeda24.grids import format_values, grid
from dpsampling.papers.lebeda24.subsampled import POISSON
from dpsampling.papers.lebeda24.workflow import lebeda24_experiment
from dpsampling.pipeline.claims.base import Claim
from dpsampling.pipeline.estimate import Rates, Work, cpu_seconds
from dpsampling.pipeline.plotting import departures_text, plt, save_figure

_accountant = lazy_import("dpsampling.accountants.accountant")  # the engine: loaded by the first query, not by the registry

EXPERIMENT_ID = "lebeda24_conj12"
RESULTS = ["grid.parquet"]
PLOT_INPUTS = {"grid": f"results/{EXPERIMENT_ID}/grid.parquet"}


RTOL, ATOL = 1e-6, 1e-12
"""Tolerances of an apparent counterexample: at eps = 0 both directions are the total variation
distance, and deltas below ~1e-14 are rounding noise."""


def conjecture12(spec: dict, progress=print) -> pd.DataFrame:
    """Conjecture 12 (Poisson Gaussian): delta_remove(eps) >= delta_add(eps) for eps >= 0?

    For each (sigma, rate, k) of the grid, the face's certified bounds of both directions at every
    eps (``wide``: ``remove_delta_{lower,upper}``, ``add_delta_{lower,upper}``, refined to relative
    gap ``spec["accuracy"]``). A row is an *apparent* counterexample when add_delta_upper >
    remove_delta_upper (1 + RTOL) + ATOL (the same bound for both directions) and a *certain* one
    when add_delta_lower > remove_delta_upper + ATOL (rigorous bounds)."""
    epsilons = grid(spec["epsilon_grid"])
    frames = []
    for sigma in spec["sigmas"]:
        flagged = 0
        for rate in spec["rates"]:
            for steps in spec["compositions"]:
                phase = Phase(POISSON, sigma, steps=steps, sampling_rate=rate)
                frame = wide(_accountant.Accountant(phase, accuracy=spec["accuracy"]).delta_bounds(epsilons))
                frame = frame.assign(sigma=sigma, sampling_rate=rate, steps=steps, accuracy=spec["accuracy"],
                                     rtol=RTOL, atol=ATOL)
                frame["apparent_counterexample"] = (frame["add_delta_upper"]
                                                    > frame["remove_delta_upper"] * (1 + RTOL) + ATOL)
                frame["certain_counterexample"] = frame["add_delta_lower"] > frame["remove_delta_upper"] + ATOL
                flagged += int((frame["apparent_counterexample"] | frame["certain_counterexample"]).sum())
                frames.append(frame)
        progress(f"sigma={sigma:g}: {len(spec['rates']) * len(spec['compositions']) * len(epsilons)} grid points, "
                 f"{flagged} flagged")
    return pd.concat(frames, ignore_index=True)


def plot(tables, pdf, png) -> None:
    """Conjecture 12: the largest ratio delta_add / delta_remove over eps, per grid point."""
    frame, meta = tables["grid"]
    spec = meta["parameters"]["spec"]
    data = frame[frame.remove_delta_upper > 1e-12].copy()
    data["ratio"] = data.add_delta_upper / data.remove_delta_upper
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
              + f"lebeda24_conj12: Poisson Gaussian, certified upper bounds (dpsampling.Accountant, relative gap "
              f"{spec['accuracy']}) of both directions on eps = {spec['epsilon_grid']}; points with "
              "delta_remove > 1e-12. No counterexample if every ratio is <= 1.")
    save_figure(fig, footer, pdf, png)


def _conj12(flag):
    def measure(frame):
        flagged = frame[frame[flag]]
        grid = (f"grid: sigma {format_values(frame['sigma'].unique())}, rate {format_values(frame['sampling_rate'].unique())}, "
                f"k {format_values(frame['steps'].unique())}, {frame['epsilon'].nunique()} eps in [{frame['epsilon'].min():g}, "
                f"{frame['epsilon'].max():g}], certified, relative gap {frame['accuracy'].iloc[0]:g}; {len(frame)} points")
        return float(len(flagged)), grid
    return measure


CLAIMS = [
    Claim("lebeda24_conj12_certain", "lebeda24_conj12",
          "grid points with a certain counterexample (add certified lower bound > remove certified upper bound)", "~", "0",
          _conj12("certain_counterexample"), result_file="grid.parquet", tolerance=0.0),
    Claim("lebeda24_conj12_apparent", "lebeda24_conj12",
          "grid points where the add certified upper bound exceeds the remove one (rtol 1e-6, atol 1e-12)", "~", "0",
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
                    accuracy=min(0.5, spec["accuracy"] * COARSENING))
        seconds, source = rates.calibrate(f"{experiment} (one (sigma, rate) cell, every k)",
                                          lambda: (cpu_seconds(lambda: conjecture12(cell, progress=lambda m: None)), 1.0))
        rate = seconds * COARSENING, source + f" x {COARSENING:g} (engine cost ~ 1/accuracy)"
    return Work(experiment, units, "(sigma, rate) cells, every k", *rate)


EXPERIMENT = lebeda24_experiment(__name__, RESULTS, CLAIMS, conjecture12_work, figure=True)
