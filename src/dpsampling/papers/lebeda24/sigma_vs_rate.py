"""lebeda24 Fig. 2: the smallest sigma for (eps, delta = 1e-6) after 10,000 steps against the sampling
rate, Poisson and WOR, one curve per (sampler, eps): the face's calibration (``dpsampling.calibrate_sigma``,
the certified upper bound on eps at delta; config ``lebeda24.sigma_vs_rate``).

Computed: one curve per rule job (``sigma_vs_rate_curve``, files ``curve_files``), combined;
plot: ``plot``; claims: WOR needs twice Poisson's sigma (Prop. 9), the hinges, small and high rates.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling.accountants.run import Phase
from dpsampling.lazy import lazy_import
from dpsampling.papers.lebeda24.plots import SAMPLER_NAME
from dpsampling.papers.lebeda24.subsampled import POISSON, WOR
from dpsampling.papers.lebeda24.workflow import lebeda24_experiment
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.pipeline.estimate import Rates, Work, cpu_seconds
from dpsampling.pipeline.plotting import departures_text, plt, save_figure

_calibrate = lazy_import("dpsampling.accountants.calibrate")  # the engine: loaded by the first calibration

EXPERIMENT_ID = "lebeda24_sigma_vs_rate"
RESULTS = ["sigma.parquet"]
PLOT_INPUTS = {"sigma": f"results/{EXPERIMENT_ID}/sigma.parquet"}


def curve_files(config: dict) -> list[str]:
    """One file per sigma-vs-rate curve: results/lebeda24_sigma_vs_rate/curves/<sampler>_eps<eps>.parquet."""
    spec = config["lebeda24"]["sigma_vs_rate"]
    curves = [(POISSON, e) for e in spec["poisson_epsilons"]] + [(WOR, e) for e in spec["wor_epsilons"]]
    return [f"results/lebeda24_sigma_vs_rate/curves/{s}_eps{float(e):g}.parquet" for s, e in curves]


RELATION = "add_or_remove"


def sigma_vs_rate_curve(spec: dict, sampler: str, epsilon: float, progress=print) -> pd.DataFrame:
    """Smallest sigma shown sufficient for (eps, delta) (add_or_remove) at every rate of the spec:
    ``calibrate_sigma`` to relative width rtol, the certified engine at its default accuracy,
    refined in the direction the relation reads (the others are not needed here).
    ``sigma`` is the sigma shown sufficient, ``sigma_low`` the largest not shown sufficient.

    WOR is Poisson's pair at sigma / 2 (the registry's distance), so with the face's one bisection
    start sigma_W = 2 sigma_P holds to the last bit; the claim checks that the two curves keep it.
    """
    rows = []
    for rate in sorted(spec["rates"]):
        phase = Phase(sampler, 1.0, steps=spec["steps"], sampling_rate=rate)
        found = _calibrate.calibrate_sigma(phase, epsilon, spec["delta"], relation=RELATION, rtol=spec["rtol"], refine="relation")
        rows.append({"sampler": sampler, "relation": RELATION, "bound": "upper", "epsilon": epsilon,
                     "delta": spec["delta"], "sampling_rate": rate, "steps": spec["steps"], "rtol": spec["rtol"],
                     "accuracy": found.accuracy, "method": found.method, "sigma": found.sigma,
                     "sigma_low": found.sigma_not_shown_sufficient, "sigma_high": found.sigma,
                     "evaluations": found.evaluations})
        progress(f"{sampler} eps={epsilon:g} rate={rate:g}: sigma = {found.sigma:.5g} "
                 f"({found.evaluations} evaluations)")
    return pd.DataFrame(rows)


def plot(tables, pdf, png) -> None:
    """Fig. 2: smallest sigma for (eps, delta) vs sampling rate, log-log."""
    frame, meta = tables["sigma"]
    spec = meta["parameters"]["spec"]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, ((sampler, eps), part) in enumerate(frame.groupby(["sampler", "epsilon"])):
        part = part.sort_values("sampling_rate")
        ax.plot(part.sampling_rate, part.sigma, "--" if sampler == WOR else "-", marker="o", ms=3,
                color="black" if sampler == WOR else colors[i % len(colors)],
                label=f"{SAMPLER_NAME[sampler]}, eps = {eps:g}: PLD upper bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sampling rate")
    ax.set_ylabel("smallest sigma")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7)
    paper = {"delta": 1e-6, "steps": 10000}
    footer = (departures_text([f"{k} = {spec[k]:g} (the paper's {v:g})" for k, v in paper.items() if spec[k] != v])
              + f"{len(spec['rates'])} rates, joined by straight lines (config/paper.yaml: 17). "
              + f"lebeda24_sigma_vs_rate: add_or_remove, delta = {spec['delta']}, {spec['steps']:,} steps; the smallest "
              f"sigma shown sufficient, bisection on "
              f"log sigma to relative width {spec['rtol']} (dpsampling.calibrate_sigma: eps from the certified upper "
              f"bound, relative gap {float(frame['accuracy'].iloc[0]):g}).")
    save_figure(fig, footer, pdf, png)


def _sigma(frame, sampler, epsilon):
    rows = frame[(frame["sampler"] == sampler) & np.isclose(frame["epsilon"], epsilon)].sort_values("sampling_rate")
    if rows.empty:
        raise Missing(f"no {sampler} curve at eps={epsilon}")
    return rows.set_index("sampling_rate")


def _wor_twice(frame):
    wor_rows, poisson_rows = _sigma(frame, WOR, 10.0), _sigma(frame, POISSON, 10.0)
    ratio = (wor_rows["sigma"] / (2 * poisson_rows["sigma"])).dropna()
    rtol = float(wor_rows["rtol"].iloc[0])
    width = 2 * rtol + rtol**2
    return float((ratio - 1).abs().max() / width), (f"sigma_W / (2 sigma_P) in [{ratio.min():.5f}, {ratio.max():.5f}] "
                                                    f"over {len(ratio)} rates; bisection tolerance {width:.2e}")


def hinge_sigma(rows) -> float:
    """sigma where the log-log slope d log sigma / d log rate crosses 1/2 (slopes of consecutive
    rates placed at the log-midpoints, interpolated linearly in log rate and log sigma)."""
    log_rate, log_sigma = np.log(rows.index.to_numpy()), np.log(rows["sigma"].to_numpy())
    slope = np.diff(log_sigma) / np.diff(log_rate)
    middle = (log_rate[1:] + log_rate[:-1]) / 2
    above = np.nonzero(slope >= 0.5)[0]
    if above.size == 0 or above[0] == 0:
        return math.nan
    i = above[0]
    where = middle[i - 1] + (0.5 - slope[i - 1]) * (middle[i] - middle[i - 1]) / (slope[i] - slope[i - 1])
    return float(np.exp(np.interp(where, log_rate, log_sigma)))


def _hinge(sampler):
    def measure(frame):
        epsilons = sorted(frame.loc[frame["sampler"] == sampler, "epsilon"].unique())
        values = {e: hinge_sigma(_sigma(frame, sampler, e)) for e in epsilons}
        detail = ", ".join(f"eps={e:g}: {v:.3f}" for e, v in values.items())
        return float(np.nanmedian(list(values.values()))), f"hinge sigma per curve: {detail} (slope-1/2 point)"
    return measure


def _small_rates(frame):
    wor_rows, poisson_rows = _sigma(frame, WOR, 10.0), _sigma(frame, POISSON, 1.0)
    rate = wor_rows.index.min()
    return float(wor_rows.loc[rate, "sigma"] / poisson_rows.loc[rate, "sigma"]), \
        f"at rate {rate:g}: sigma_W(10) = {wor_rows.loc[rate, 'sigma']:.4f}, sigma_P(1) = {poisson_rows.loc[rate, 'sigma']:.4f}"


def _high_rates(frame):
    wor_rows = _sigma(frame, WOR, 10.0)
    rate = wor_rows.index.max()
    target = math.log(wor_rows.loc[rate, "sigma"])
    distances = {}
    for eps in sorted(frame.loc[frame["sampler"] == POISSON, "epsilon"].unique()):
        distances[eps] = abs(math.log(_sigma(frame, POISSON, eps).loc[rate, "sigma"]) - target)
    nearest = min(distances, key=distances.get)
    return float(nearest), (f"at rate {rate:g}, |log sigma_P(eps) - log sigma_W(10)|: "
                            + ", ".join(f"eps={e:g}: {d:.3f}" for e, d in distances.items()))


CLAIMS = [
    Claim("lebeda24_sigma_vs_rate_wor_twice", "lebeda24_sigma_vs_rate",
          "max over rates |sigma_W / (2 sigma_P) - 1| at eps = 10, in units of the bisection tolerance (Prop. 9)",
          "<=", "1", _wor_twice, result_file="sigma.parquet", tolerance=0.0),
    Claim("lebeda24_sigma_vs_rate_hinge_poisson", "lebeda24_sigma_vs_rate",
          "hinge sigma (slope-1/2 point of log sigma vs log rate), Poisson, median over eps ('slightly less than 1')",
          "<=", "1", _hinge(POISSON), result_file="sigma.parquet", tolerance=0.0,
          why="by the slope-1/2 reading the hinge lies at or slightly above sigma = 1; the paper's 'slightly less "
              "than 1' is a visual reading of its figure and depends on how the hinge is defined"),
    Claim("lebeda24_sigma_vs_rate_hinge_wor", "lebeda24_sigma_vs_rate",
          "hinge sigma (slope-1/2 point), WOR eps = 10 ('slightly less than 2')", "<=", "2", _hinge(WOR),
          result_file="sigma.parquet", tolerance=0.0,
          why="twice the Poisson eps = 10 hinge, which by the slope-1/2 reading is slightly above 1"),
    Claim("lebeda24_sigma_vs_rate_small_rates", "lebeda24_sigma_vs_rate",
          "sigma_W(eps = 10) / sigma_P(eps = 1) at the smallest rate (WOR eps = 10 needs more noise)", ">", "1",
          _small_rates, result_file="sigma.parquet", tolerance=0.0),
    Claim("lebeda24_sigma_vs_rate_high_rates", "lebeda24_sigma_vs_rate",
          "Poisson eps whose sigma is nearest (log scale) to sigma_W(eps = 10) at the largest rate ('roughly "
          "matches eps = 5')", "~", "5", _high_rates, result_file="sigma.parquet", tolerance=0.0),
]


def sample_cells(curves: list, rates: list) -> list[tuple]:
    """One (curve, rate) cell per curve, the rates spread over the sorted grid (first curve at the
    smallest rate, last at the largest): the cells sigma_vs_rate_work times."""
    ordered = sorted(rates)
    where = np.rint(np.linspace(0, len(ordered) - 1, len(curves))).astype(int)
    return [(*curve, ordered[i]) for curve, i in zip(curves, where)]


def sigma_vs_rate_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Its cost model entry (see dpsampling.papers.lebeda24.cost). A bisection's cost depends on the
    rate and on the curve (quick config, 2026-11-29: the five jobs took 13 to 33 CPU s for the same
    9 rates), so one bisection per curve is timed, at rates spread over the grid (``sample_cells``),
    and their mean is the cost of every bisection (one bisection at the median rate said 0.70x)."""
    spec = config["lebeda24"]["sigma_vs_rate"]
    curves = [(POISSON, e) for e in spec["poisson_epsilons"]] + [(WOR, e) for e in spec["wor_epsilons"]]
    units = float(len(spec["rates"]) * len(curves))
    cells = sample_cells(curves, spec["rates"])

    def timing():
        seconds = sum(cpu_seconds(lambda s=sampler, e=epsilon, r=rate: sigma_vs_rate_curve(
            dict(spec, rates=[r]), s, e, progress=lambda m: None)) for sampler, epsilon, rate in cells)
        return seconds, float(len(cells))

    rate = rates.calibrate(f"{experiment} ({len(cells)} bisections, one per curve, rates spread over the grid)", timing)
    return Work(experiment, units, "sigma bisections", *rate)


PAPER = {"steps": 10000, "delta": 1e-6}  # the paper's setting: claims are judged only there
EXPERIMENT = lebeda24_experiment(__name__, RESULTS, CLAIMS, sigma_vs_rate_work, figure=True, paper=PAPER)
