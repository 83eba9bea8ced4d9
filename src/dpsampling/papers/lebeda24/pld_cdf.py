"""lebeda24 ICLR Fig. 2: the CDFs of both PLDs of the subsampled Laplace mechanism (add and remove),
with their atoms (one at -ln(0.1 + 0.9/e)), exact for one step and empirical from the
``lebeda24_addremove`` shards for k steps (config ``lebeda24.pld_cdf``).

Computed: ``pld_cdf``; plot: ``plot``; claim: the largest atom of the WOR add PLD.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling import DIRECTIONS
from dpsampling.papers.lebeda24 import laplace_mechanism as laplace
from dpsampling.papers.lebeda24.grids import grid
from dpsampling.papers.lebeda24.plots import DIRECTION_COLOR
from dpsampling.papers.lebeda24.subsampled import WOR
from dpsampling.papers.lebeda24.workflow import lebeda24_experiment
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.pipeline.estimate import Rates, Work, cpu_seconds
from dpsampling.pipeline.plotting import departures_text, plt, save_figure

EXPERIMENT_ID = "lebeda24_pld_cdf"
RESULTS = ["cdf.parquet", "atoms.parquet"]
PLOT_INPUTS = {"cdf": f"results/{EXPERIMENT_ID}/cdf.parquet", "atoms": f"results/{EXPERIMENT_ID}/atoms.parquet"}
ICLR_ATOM = -math.log(0.1 + 0.9 / math.e)


def pld_cdf(spec: dict, addremove: dict, curves: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cdf, atoms). cdf rows: sampler, direction, compositions, method (exact | monte_carlo),
    loss, cdf. Exact single-step CDFs (atoms included, right-continuous) on the loss grid plus
    the points just left and right of each atom; empirical CDFs of the k-fold loss for every
    curve in ``curves`` ({(sampler, direction, k): samples}). atoms: the single-step atoms with
    their exact mass and the fraction of k = 1 samples within 1e-9 of each (when k = 1 is there)."""
    losses = grid(spec["loss_grid"])
    rate = addremove["sampling_rate"]
    frames, atom_rows = [], []
    for sampler in addremove["samplers"]:
        scale = addremove["laplace_scale"][sampler]
        for direction in DIRECTIONS:
            atoms = laplace.pld_atoms(sampler, direction, scale, rate)
            points = np.unique(np.concatenate([losses, *[[v - 1e-9, v, v + 1e-9] for v, _ in atoms]]))
            frames.append(pd.DataFrame({"sampler": sampler, "direction": direction, "compositions": 1,
                                        "method": "exact", "loss": points,
                                        "cdf": laplace.exact_pld_cdf(points, sampler, direction, scale, rate)}))
            single = curves.get((sampler, direction, 1))
            for value, mass in atoms:
                share = math.nan if single is None else float(np.mean(np.abs(single - value) <= 1e-9))
                atom_rows.append({"sampler": sampler, "direction": direction, "loss": value, "mass": mass,
                                  "mc_share": share, "mc_samples": 0 if single is None else single.size})
    for (sampler, direction, k), samples in sorted(curves.items()):
        frames.append(pd.DataFrame({"sampler": sampler, "direction": direction, "compositions": k,
                                    "method": "monte_carlo", "loss": losses,
                                    "cdf": laplace.empirical_pld_cdf(samples, losses)}))
    return pd.concat(frames, ignore_index=True), pd.DataFrame(atom_rows)


def plot(tables, pdf, png) -> None:
    """ICLR Fig. 2: CDFs of the remove and add PLDs (exact single step; MC for k-fold), atoms marked."""
    cdf, meta = tables["cdf"]
    atoms, _ = tables["atoms"]
    ks = sorted(cdf["compositions"].unique())
    fig, axes = plt.subplots(1, len(ks), figsize=(5.2 * len(ks), 3.8), squeeze=False)
    for ax, k in zip(axes.flat, ks):
        for direction in ("remove", "add"):
            color = DIRECTION_COLOR[direction]
            for method, style in (("exact", "-"), ("monte_carlo", "--")):
                part = cdf[(cdf.sampler == WOR) & (cdf.direction == direction) & (cdf.compositions == k)
                           & (cdf.method == method)].sort_values("loss")
                if part.empty:
                    continue
                label = f"WOR {direction}: {'exact' if method == 'exact' else 'MC estimate'}"
                ax.step(part.loss, part.cdf, where="post", ls=style, color=color, lw=1.3 if method == "exact" else 0.9,
                        label=label)
        if k == 1:
            for row in atoms[atoms.sampler == WOR].itertuples():
                ax.axvline(row.loss, color=DIRECTION_COLOR[row.direction], lw=0.5, alpha=0.6)
        ax.axvline(ICLR_ATOM, color="black", ls=":", lw=1.0, label=f"-ln(0.1 + 0.9/e) = {ICLR_ATOM:.4f}")
        ax.set_title(f"PLD of k = {k} step{'s' if k > 1 else ''}", fontsize=10)
        ax.set_xlabel("privacy loss")
        ax.set_ylabel("CDF")
        ax.grid(True, alpha=0.25)
        ax.legend(fontsize=7, loc="upper left")
    addremove = meta["parameters"]["addremove"]
    paper_n = 3_342_306  # App. B.2's N per curve
    footer = (departures_text([f"N = {addremove['samples']:,} samples per curve (the paper: {paper_n:,})"]
                              if addremove["samples"] != paper_n else [])
              + f"lebeda24_pld_cdf: subsampled Laplace, WOR, rate {addremove['sampling_rate']}, scale "
              f"{addremove['laplace_scale'][WOR]} (distance 2). Jumps of the CDF are atoms (thin vertical lines, "
              f"k = 1). MC CDFs from the cached addremove samples (N = {addremove['samples']:,}).")
    save_figure(fig, footer, pdf, png)


def _atom(frame):
    rows = frame[(frame["sampler"] == WOR) & (frame["direction"] == "add")]
    if rows.empty:
        raise Missing("no WOR add atoms")
    largest = rows.loc[rows["mass"].idxmax()]
    return float(largest["loss"]), (f"mass {largest['mass']:.6f} (Monte Carlo share of k = 1 samples at it: "
                                     f"{largest['mc_share']:.6f} of {int(largest['mc_samples']):,}); the other atom "
                                     f"at {rows['loss'].min():.6f}")


CLAIMS = [
    Claim("lebeda24_pld_cdf_atom", "lebeda24_pld_cdf", "largest atom of the WOR add PLD, -ln(0.1 + 0.9/e)", "~",
          f"{ICLR_ATOM:.12f}", _atom, result_file="atoms.parquet"),
]


def pld_cdf_work(experiment: str, config: dict, rates: Rates) -> Work:
    addremove = config["lebeda24"]["addremove"]
    spec = config["lebeda24"]["pld_cdf"]
    units = float(len(addremove["samplers"]) * 2 * len(spec["compositions"]) * addremove["samples"])
    rate = rates.calibrate("sorting 1,000,000 losses", lambda: (cpu_seconds(
        lambda: np.sort(np.random.default_rng(0).standard_normal(1_000_000))), 1_000_000.0))
    return Work(experiment, units, "loss samples sorted", *rate)


EXPERIMENT = lebeda24_experiment(__name__, RESULTS, CLAIMS, pld_cdf_work, figure=True)
