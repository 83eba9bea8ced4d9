"""lebeda24 Fig. 1: the subsampled Laplace mechanism under add and under remove, k = 1, 2, 5, 10
compositions, Poisson and WOR, rate 0.9 (config ``lebeda24.addremove``).

Sampled: Monte Carlo of the k-fold privacy loss (App. B.2; N from Hoeffding + a union bound over
the eps grid), sharded (``dpsampling.papers.lebeda24.shards``: seeds, one shard; ``shard_files``
here: which shards). Computed: exact curves for k <= 2 (``exact_addremove``) and the paper's N
against its formula (``sample_size``); the merge script pools the shards. Plot: ``plot``.
Claims: Monte Carlo claims use the Hoeffding bands of the merged curves (each band holds with
probability >= 1 - beta; a claim over two curves errs with probability <= 2 beta): a crossing
counts only where the two bands separate.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling import DIRECTIONS
from dpsampling.papers.lebeda24 import laplace_mechanism as laplace
from dpsampling.papers.lebeda24.grids import format_values, grid
from dpsampling.papers.lebeda24.plots import DIRECTION_COLOR, SAMPLER_NAME
from dpsampling.papers.lebeda24.shards import sample_shard, shard_parameters
from dpsampling.papers.lebeda24.subsampled import POISSON, WOR
from dpsampling.papers.lebeda24.workflow import lebeda24_experiment
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.pipeline.estimate import Rates, Work, cpu_seconds
from dpsampling.pipeline.plotting import departures_text, plt, save_figure

EXPERIMENT_ID = "lebeda24_addremove"
RESULTS = ["delta_mc.parquet", "delta_exact.parquet", "sample_size.parquet"]
PLOT_INPUTS = {"mc": f"results/{EXPERIMENT_ID}/delta_mc.parquet", "exact": f"results/{EXPERIMENT_ID}/delta_exact.parquet"}

# --- what is sampled ------------------------------------------------------------------------


def shard_files(config: dict, compositions) -> list[str]:
    """Every Monte Carlo shard file of the addremove curves with k in ``compositions``."""
    spec = config["lebeda24"]["addremove"]
    return [f"results/lebeda24_addremove/samples/{sampler}/{direction}/k{k}/shard-{shard}.parquet"
            for sampler in spec["samplers"] for direction in ("remove", "add") for k in compositions
            for shard in range(spec["shards"])]


def shard_parameters_of(config: dict):
    """The sampling rule's param: wildcards -> what one shard depends on (its canonical parameters
    and the algorithm version, ``shards.shard_parameters``)."""

    def parameters(wildcards):
        return shard_parameters(config["lebeda24"]["addremove"], config["seed"], "lebeda24_addremove",
                                wildcards.sampler, wildcards.direction, int(wildcards.k), int(wildcards.shard))

    return parameters


# --- what is computed -----------------------------------------------------------------------

EXACT_COMPOSITIONS = (1, 2)
PAPER_SAMPLE_SIZE = {"alpha": 1e-3, "beta": 0.01, "n_epsilons": 40, "n_samples": 3_342_306}
"""Appendix B.2: the stated alpha, beta, |E| and the stated N."""


def exact_addremove(spec: dict, progress=print) -> pd.DataFrame:
    """Exact delta(eps) of both directions for every sampler and k in compositions with k <= 2.

    Columns: sampler, direction, compositions, epsilon, delta_exact, laplace_scale, sampling_rate.
    """
    eps = grid(spec["epsilon_grid"])
    frames = []
    for sampler in spec["samplers"]:
        scale = spec["laplace_scale"][sampler]
        for k in [k for k in spec["compositions"] if k in EXACT_COMPOSITIONS]:
            for direction in DIRECTIONS:
                values = laplace.exact_delta(eps, sampler, direction, scale, spec["sampling_rate"], k)
                frames.append(pd.DataFrame({"sampler": sampler, "direction": direction, "compositions": k,
                                            "epsilon": eps, "delta_exact": values}))
                progress(f"exact {sampler}/{direction}/k{k}: {eps.size} eps")
    frame = pd.concat(frames, ignore_index=True)
    frame["laplace_scale"] = frame["sampler"].map(spec["laplace_scale"]).astype(float)
    frame["sampling_rate"] = spec["sampling_rate"]
    return frame


def sample_size(spec: dict) -> pd.DataFrame:
    """N = ceil(ln(2|E| / beta) / (2 alpha^2)) at the paper's (alpha, beta, |E|), the stated N,
    the (|E|, beta) that give the stated N, and this config's alpha at its N."""
    alpha, beta, size = PAPER_SAMPLE_SIZE["alpha"], PAPER_SAMPLE_SIZE["beta"], PAPER_SAMPLE_SIZE["n_epsilons"]
    rows = [
        {"case": "formula at the paper's alpha, beta, |E|", "alpha": alpha, "beta": beta, "n_epsilons": size,
         "n_samples": laplace.monte_carlo_sample_size(alpha, beta, size)},
        {"case": "beta = 0.1 (10x the stated)", "alpha": alpha, "beta": 0.1, "n_epsilons": size,
         "n_samples": laplace.monte_carlo_sample_size(alpha, 0.1, size)},
        {"case": "|E| = 4 (1/10 of the stated)", "alpha": alpha, "beta": beta, "n_epsilons": 4,
         "n_samples": laplace.monte_carlo_sample_size(alpha, beta, 4)},
        {"case": "stated by the paper", "alpha": alpha, "beta": beta, "n_epsilons": size,
         "n_samples": PAPER_SAMPLE_SIZE["n_samples"]},
        {"case": "this run: alpha at its N", "alpha": laplace.hoeffding_alpha(spec["samples"], spec["beta"],
                                                                              spec["epsilon_grid"]["num"]),
         "beta": spec["beta"], "n_epsilons": spec["epsilon_grid"]["num"], "n_samples": spec["samples"]},
    ]
    frame = pd.DataFrame(rows)
    frame["ln_2E_over_beta"] = np.log(2 * frame["n_epsilons"] / frame["beta"])
    return frame


# --- the figure ----------------------------------------------------------------------------


def plot(tables, pdf, png) -> None:
    """Fig. 1: delta(eps) under remove and add per k; MC mean with its band, exact for k <= 2."""
    mc, meta = tables["mc"]
    exact, _ = tables["exact"]
    ks = sorted(mc["compositions"].unique())
    columns = min(2, len(ks))
    rows = math.ceil(len(ks) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.6 * rows + 1.6), squeeze=False)
    for ax, k in zip(axes.flat, ks):
        for sampler, style in ((WOR, "-"), (POISSON, "--")):
            for direction in ("remove", "add"):
                part = mc[(mc.sampler == sampler) & (mc.direction == direction) & (mc.compositions == k)]
                if part.empty:
                    continue
                color = DIRECTION_COLOR[direction]
                same = " (own samples; the same curve as WOR by construction)" if sampler == POISSON else ""
                ax.plot(part.epsilon, part.delta_mc, style, color=color, lw=1.4 if sampler == WOR else 0.9,
                        zorder=3 if sampler == POISSON else 2, label=f"{SAMPLER_NAME[sampler]} {direction}: MC estimate{same}")
                if sampler == WOR:
                    ax.fill_between(part.epsilon, part.delta_mc_low, part.delta_mc_high, color=color, alpha=0.25,
                                    lw=0, label=f"{SAMPLER_NAME[sampler]} {direction}: MC band (+-alpha)")
                ex = exact[(exact.sampler == sampler) & (exact.direction == direction) & (exact.compositions == k)]
                if sampler == WOR and not ex.empty:
                    ax.plot(ex.epsilon, ex.delta_exact, ":", color="black", lw=1.0,
                            label="exact (atoms + quadrature)" if direction == "remove" else None)
        ax.set_title(f"k = {k} compositions", fontsize=10)
        ax.set_xlabel("eps")
        ax.set_ylabel("delta(eps)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.25)
    for ax in list(axes.flat)[len(ks):]:
        ax.axis("off")
    handles, labels = max((ax.get_legend_handles_labels() for ax in axes.flat), key=lambda hl: len(hl[1]))
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=7, frameon=False, bbox_to_anchor=(0.5, 0.06))
    spec = meta["parameters"]["spec"]
    first = mc.iloc[0]
    paper_n = PAPER_SAMPLE_SIZE["n_samples"]
    departs = departures_text([f"N = {int(first.n_samples):,} Monte Carlo samples per curve (the paper: {paper_n:,}), so "
                               "the band is wider"] if int(first.n_samples) != paper_n else [])
    footer = (f"{departs}lebeda24_addremove: subsampled Laplace, rate {spec['sampling_rate']}, Laplace scale "
              f"{spec['laplace_scale']} (distance/scale = 1 for both samplers: the curves coincide). Monte Carlo of the "
              f"PLD (App. B.2): N = {int(first.n_samples):,} per curve, |E| = {spec['epsilon_grid']['num']}, "
              f"beta = {first.beta} per curve, alpha = {first.alpha:.2e} (Hoeffding + union bound). Linear y axis.")
    save_figure(fig, footer, pdf, png, rect=(0, 0.2, 1, 1))


# --- the claims ----------------------------------------------------------------------------

MC = "delta_mc.parquet"


def _curve(frame, sampler, direction, k):
    rows = frame[(frame["sampler"] == sampler) & (frame["direction"] == direction) & (frame["compositions"] == k)]
    if rows.empty:
        raise Missing(f"{sampler} {direction} k={k} is not in the results")
    return rows.sort_values("epsilon").set_index("epsilon")


def _separated_signs(frame, sampler, k):
    """+1 where remove is significantly above add (bands apart), -1 where add is, 0 elsewhere."""
    remove, add = _curve(frame, sampler, "remove", k), _curve(frame, sampler, "add", k)
    sign = np.where(remove["delta_mc_low"] > add["delta_mc_high"], 1, 0)
    sign = np.where(add["delta_mc_low"] > remove["delta_mc_high"], -1, sign)
    return remove.index.to_numpy(), sign, remove, add


def _no_crossing_exact(sampler, k):
    def measure(frame):
        remove, add = _curve(frame, sampler, "remove", k), _curve(frame, sampler, "add", k)
        if remove["delta_exact"].isna().all():
            raise Missing(f"no exact curve for k={k}")
        above = remove.index[(add["delta_exact"] > remove["delta_exact"] + 1e-12).to_numpy()]
        return float(len(above)), (f"exact curves on {len(remove)} eps in [{remove.index.min():g}, "
                                   f"{remove.index.max():g}]; add above remove at {format_values(above)}")
    return measure


def _significant_crossings(sampler, k):
    def measure(frame):
        eps, sign, remove, add = _separated_signs(frame, sampler, k)
        nonzero = sign[sign != 0]
        changes = int(np.sum(nonzero[1:] != nonzero[:-1]))
        add_above = eps[sign == -1]
        return float(changes), (f"add significantly above remove at eps {format_values(add_above)}, remove above "
                                f"add at {int(np.sum(sign == 1))} eps; N = {int(remove['n_samples'].iloc[0]):,}, "
                                f"alpha = {remove['alpha'].iloc[0]:.2e}, error probability <= 2 beta = "
                                f"{2 * remove['beta'].iloc[0]:g}")
    return measure


def _fades(sampler):
    def measure(frame):
        ks = sorted(frame["compositions"].unique())
        notes = []
        for k in ks:
            eps, sign, remove, add = _separated_signs(frame, sampler, k)
            excess = float((add["delta_mc"] - remove["delta_mc"]).max())
            notes.append(f"k={k}: max(add - remove) = {excess:.4f}, significant at {int(np.sum(sign == -1))} eps")
        eps, sign, _, _ = _separated_signs(frame, sampler, ks[-1])
        return float(np.sum(sign == -1)), "; ".join(notes)
    return measure


def _mc_within_alpha(frame):
    rows = frame[frame["delta_exact"].notna()]
    if rows.empty:
        raise Missing("no exact curve (k <= 2) next to the Monte Carlo")
    error = (rows["delta_mc"] - rows["delta_exact"]).abs()
    worst = float((error - rows["alpha"]).max())
    return worst, (f"max |MC - exact| = {error.max():.2e} over {rows.groupby(['sampler', 'direction', 'compositions']).ngroups}"
                   f" curves (k <= 2) x {rows['epsilon'].nunique()} eps; alpha = {rows['alpha'].iloc[0]:.2e} "
                   f"(beta = {rows['beta'].iloc[0]:g} per curve)")


def _sample_size(frame):
    row = frame[frame["case"] == "formula at the paper's alpha, beta, |E|"].iloc[0]
    others = frame[frame["case"].str.startswith(("beta", "|E|"))]
    detail = "; ".join(f"{r.case}: N = {int(r.n_samples):,}" for r in others.itertuples())
    return float(row["n_samples"]), f"formula with alpha = {row['alpha']:g}, beta = {row['beta']:g}, |E| = " \
                                    f"{int(row['n_epsilons'])}; {detail}"


def _claims_addremove():
    claims = []
    for sampler in (WOR, POISSON):
        extra = "" if sampler == WOR else " (the paper: 'can be extended to M_Poisson')"
        claims += [
            Claim(f"lebeda24_addremove_k1_no_crossing_{sampler}", "lebeda24_addremove",
                  f"eps >= 0 where delta_add > delta_remove, k = 1, {sampler}, exact{extra}", "~", "0",
                  _no_crossing_exact(sampler, 1), result_file=MC, tolerance=0.0),
            Claim(f"lebeda24_addremove_k2_crossing_{sampler}", "lebeda24_addremove",
                  f"significant sign changes of delta_remove - delta_add in eps >= 0, k = 2, {sampler}, MC{extra}",
                  ">=", "1", _significant_crossings(sampler, 2), result_file=MC, tolerance=0.0),
            Claim(f"lebeda24_addremove_k2_crossing_exact_{sampler}", "lebeda24_addremove",
                  f"eps >= 0 where delta_add > delta_remove, k = 2, {sampler}, exact", ">=", "1",
                  _no_crossing_exact(sampler, 2), result_file=MC, tolerance=0.0),
            Claim(f"lebeda24_addremove_crossing_fades_{sampler}", "lebeda24_addremove",
                  f"eps where add is significantly above remove at the largest k (10), {sampler}", "~", "0",
                  _fades(sampler), result_file=MC, tolerance=0.0),
        ]
    claims += [
        Claim("lebeda24_addremove_mc_within_alpha", "lebeda24_addremove",
              "max over k <= 2, samplers, directions, eps of |MC - exact| - alpha (App. B.2 guarantee)", "<=", "0",
              _mc_within_alpha, result_file=MC, tolerance=0.0,
              why="a Monte Carlo estimate is outside its Hoeffding band (probability <= beta per curve)"),
        Claim("lebeda24_addremove_sample_size", "lebeda24_addremove",
              "N = ceil(ln(2|E|/beta) / (2 alpha^2)) at alpha = 1e-3, beta = 0.01, |E| = 40", "~",
              str(PAPER_SAMPLE_SIZE["n_samples"]), _sample_size, result_file="sample_size.parquet",
              why="the formula gives 4,493,599 at the stated alpha, beta, |E|; the stated 3,342,306 = "
                  "ceil(ln(800) / (2e-6)), i.e. 2|E|/beta = 800: beta = 0.1 with |E| = 40 (a 90%, not 99%, "
                  "guarantee) or |E| = 4 with beta = 0.01; the paper contradicts its own formula"),
    ]
    return claims


CLAIMS = _claims_addremove()


def _addremove_draws(spec: dict) -> float:
    return float(len(spec["samplers"]) * 2 * sum(spec["compositions"]) * spec["samples"])


def addremove_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Its cost model entry (see dpsampling.papers.lebeda24.cost)."""
    spec = config["lebeda24"]["addremove"]
    rate = rates.measured(experiment, "delta_mc.parquet", lambda parameters: _addremove_draws(parameters["spec"]),
                          lambda parameters: parameters.get("spec", {}).get("sampling_rate") == spec["sampling_rate"])
    if rate is None:
        small = dict(spec, samples=100_000, shards=1)
        rate = rates.calibrate(f"{experiment} (100,000 draws)",
                               lambda: (cpu_seconds(lambda: sample_shard(shard_parameters(
                                   small, 0, experiment, spec["samplers"][0], "remove", 1, 0))), 100_000.0))
    return Work(experiment, _addremove_draws(spec), "single-step loss draws", *rate)


PAPER = {"sampling_rate": 0.9}  # the paper's setting: claims are judged only there
EXPERIMENT = lebeda24_experiment(__name__, RESULTS, CLAIMS, addremove_work, figure=True, paper=PAPER)
