"""chua25 Fig. 1: what each batch sampler costs in model quality. One epoch of (DP-)SGD with shuffle,
Poisson and balls-and-bins batches (``dpsampling.papers.chua25.utility``, the shared training
machinery), test AUC over seeds, per panel: non-private, and DP at each batch size of
``dp_batch_sizes`` (config ``chua25.fig1``; rules in workflow/rules/chua25_utility.smk: train one
panel -> combine -> plot).

Claims, with their criteria (inputs: results/chua25_fig1/auc.parquet, every run, the selected
learning rate flagged):
- "non-private: B ~ S": at every batch size a two-sided Welch t-test of equal mean test AUC
  (3 seeds each) does not reject at level 0.01 / (number of batch sizes) (Bonferroni).
- "non-private: S and B better than P": one-sided sign test over batch sizes that the mean AUC
  of S (resp. B) exceeds that of P; reproduced when p < 0.01 for both.
- "DP with sigma >= 0.1: all three similar": one-way ANOVA over the three generators at every
  (batch, sigma >= 0.1) setting does not reject at level 0.01 / (number of settings).
Under the null hypotheses these tests hold their level only approximately (3 seeds, Welch/ANOVA
normality); the verdicts are as strong as that.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.lazy import lazy_import
from dpsampling.papers.chua25.cost import chua25_fig1_work
from dpsampling.papers.chua25.workflow import UTILITY_RULES, chua25_tests
from dpsampling.papers.experiment import Experiment, figure_files
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.pipeline.plotting import SAMPLER_COLOR, SAMPLER_LETTER, departures_text, plt, save_figure
from dpsampling.samplers import BALLS_AND_BINS, POISSON, SHUFFLE

_utility = lazy_import("dpsampling.papers.chua25.utility")  # the training code: loaded by the plot job

stats = lazy_import("scipy.stats")  # loaded by the first test (~0.4 CPU s): the registry imports this module

EXPERIMENT_ID = "chua25_fig1"


def panels(config: dict) -> list[str]:
    """Panel ids: nonprivate and dp_b<batch> per DP batch size (one training rule job each)."""
    return ["nonprivate"] + [f"dp_b{b}" for b in config["chua25"]["fig1"]["dp_batch_sizes"]]


# --- the figure ----------------------------------------------------------------------------


def plot(runs: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
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
    departs = ([f"{data.get('source')} data (the paper: Criteo pCTR and Search Conversion Log)"]
               if not str(data.get("source", "")).startswith("criteo") else [])
    departs += [f"{_utility.model_of(spec).label} (the paper: a five-layer network with embeddings)"] \
        if spec.get("model", "logistic") == "logistic" else []
    footer = (departures_text(departs) + f"chua25_fig1 on {data.get('source')} data ({int(runs['train_rows'].iloc[0]):,} training rows), 1 epoch, "
              f"{seeds} seeds, {_utility.model_of(spec).label}, {spec.get('optimizer')} with learning rate chosen per point from "
              f"{spec.get('learning_rates')} on validation AUC; clip norm {spec.get('clip_norm')}; P and B truncated to B "
              f"with delta' <= {spec.get('truncation', {}).get('delta')} at eps = {spec.get('truncation', {}).get('epsilon')}.")
    save_figure(fig, footer, path_pdf, path_png, rect=(0, 0.07, 1, 1))


# --- the claims ----------------------------------------------------------------------------




LEVEL = 0.01


def _chosen(frame):
    chosen = frame[frame["selected"]]
    if chosen.empty:
        raise Missing("no selected runs in the results")
    return chosen


def _nonprivate(frame):
    chosen = _chosen(frame)
    rows = chosen[chosen["panel"] == "nonprivate"]
    if rows.empty:
        raise Missing("the nonprivate panel was not run")
    return rows


def _b_like_s(frame):
    rows = _nonprivate(frame)
    sizes = sorted(rows["batch_size"].unique())
    p_values = []
    for size in sizes:
        part = rows[rows["batch_size"] == size]
        p_values.append(stats.ttest_ind(part.loc[part.generator == BALLS_AND_BINS.name, "test_auc"],
                                        part.loc[part.generator == SHUFFLE.name, "test_auc"], equal_var=False).pvalue)
    rejected = int(np.sum(np.array(p_values) < LEVEL / len(sizes)))
    return float(rejected), f"Welch p-values by batch size: {', '.join(f'{p:.2g}' for p in p_values)}; " \
                            f"threshold {LEVEL}/{len(sizes)}"


def _better_than_poisson(frame):
    rows = _nonprivate(frame)
    means = rows.groupby(["batch_size", "generator"])["test_auc"].mean().unstack()
    notes, worst = [], 0.0
    for other in (SHUFFLE.name, BALLS_AND_BINS.name):
        wins = int((means[other] > means[POISSON.name]).sum())
        p_value = stats.binomtest(wins, len(means), 0.5, alternative="greater").pvalue
        worst = max(worst, p_value)
        notes.append(f"{other} > poisson at {wins}/{len(means)} batch sizes (sign test p = {p_value:.2g})")
    return float(worst), "; ".join(notes)


def _similar_under_dp(frame):
    chosen = _chosen(frame)
    rows = chosen[(chosen["panel"] != "nonprivate") & (chosen["sigma"] >= 0.1)]
    if rows.empty:
        raise Missing("no DP setting with sigma >= 0.1 was run")
    settings = rows.groupby(["batch_size", "sigma"])
    p_values = {key: stats.f_oneway(*[g["test_auc"].to_numpy() for _, g in part.groupby("generator")]).pvalue
                for key, part in settings}
    threshold = LEVEL / len(p_values)
    rejected = [key for key, p in p_values.items() if p < threshold]
    detail = ", ".join(f"b={b} sigma={s:g}" for b, s in rejected) or "none"
    means = rows.groupby(["batch_size", "sigma", "generator"])["test_auc"].mean().unstack()
    spread = float((means.max(axis=1) - means.min(axis=1)).max())
    seed_std = float(rows.groupby(["batch_size", "sigma", "generator"])["test_auc"].std().median())
    return float(len(rejected)), f"ANOVA rejections (threshold {threshold:.2g}): {detail}; " \
                                 f"min p = {min(p_values.values()):.2g} over {len(p_values)} settings; largest " \
                                 f"spread of mean AUC {spread:.4f} against a median seed std of {seed_std:.4f}"


SYNTHETIC = "measured on the configured data (synthetic by default, not Criteo)"

CLAIMS = [
    Claim("chua25_fig1_nonprivate_B_like_S", "chua25_fig1", "batch sizes where Welch's test rejects AUC(B) = AUC(S), "
          "non-private", "~", "0", _b_like_s, result_file="auc.parquet", tolerance=0.0,
          why="B and S differ significantly at some batch size; " + SYNTHETIC),
    Claim("chua25_fig1_nonprivate_beat_P", "chua25_fig1", "sign-test p-value that S and B beat P over batch sizes, "
          "non-private (criterion p < 0.01)", "<", "0.01", _better_than_poisson, result_file="auc.parquet",
          tolerance=0.0, why="P is not consistently worse; " + SYNTHETIC),
    Claim("chua25_fig1_dp_similar", "chua25_fig1", "DP settings with sigma >= 0.1 where ANOVA rejects equal AUC of "
          "S, P, B", "~", "0", _similar_under_dp, result_file="auc.parquet", tolerance=0.0,
          why="the generators differ significantly at some sigma >= 0.1; " + SYNTHETIC),
]

EXPERIMENT = Experiment(EXPERIMENT_ID, __name__, UTILITY_RULES,
                        ("scripts/train_chua25_fig1.py", "scripts/combine_chua25_fig1.py", "scripts/plot_chua25_fig1.py"),
                        (*chua25_tests("test_chua25_fig1.py"), "tests/training/test_training.py",
                         "tests/training/test_training_mlp.py"),
                        outputs=lambda config: [f"results/{EXPERIMENT_ID}/auc.parquet", *figure_files(EXPERIMENT_ID)],
                        claims=tuple(CLAIMS), cost=chua25_fig1_work)
