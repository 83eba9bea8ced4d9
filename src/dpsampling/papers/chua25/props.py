"""chua25_props: chua25 Prop. 3.3, Thm 3.4 and the estimators' own ordering, checked on a (sigma, T)
grid with naive Monte Carlo beside every deterministic bound (config ``chua25.props``). A table of
checks (``property_checks``), no figure.

Properties (chua25 Prop. 3.3, Thm 3.4, and the estimators' own ordering), per (sigma, T, eps,
direction). We have delta_D exactly, delta_S only from below (chua24 E_C sets; its only upper
bound is delta_D, chua24 Thm 4.1), delta_B from below (bound (6)) and from Monte Carlo (mean,
standard error, KL upper and lower confidence bounds at beta), delta_P from both sides (PLD).
What can therefore be checked:

- delta_B <= delta_S <= delta_D can be *contradicted* only by a lower bound on delta_B (bound
  (6), or the MC lower confidence bound) or on delta_S above delta_D (``contradicts_b_s_d``);
  delta_B <= delta_S is *certified* where the UCB of delta_B is below the lower bound on
  delta_S (``certifies_b_below_s``); it cannot be contradicted by our bounds at all, because we
  have no upper bound on delta_S other than delta_D.
- Thm 3.4 (delta_B < delta_P for large eps) is certified where the UCB of delta_B is below the
  PLD lower bound of delta_P (``certifies_b_below_p``).
- lower bound (6) <= MC mean <= UCB: ``lower_above_mean`` flags bound (6) > mean + Z se (a
  one-sided z-test, Z = 4.5) where the mean is resolved (relative standard error <= 0.1, so that
  the normal approximation holds; elsewhere only the UCB test is meaningful), ``lower_above_ucb`` flags bound (6) > UCB (probability <= beta
  per point if bound (6) and the UCB are right), ``mean_above_ucb`` flags mean > UCB (never,
  by construction, unless the code is wrong).
- certified bounds on delta_B (PLD of the random-allocation pair, ``delta_B_cert_lower`` and
  ``delta_B_cert_upper``), the chain bound (6) <= certified lower <= MC mean <= certified upper:
  ``lower6_above_cert_lower`` flags bound (6) > certified lower (both are valid lower bounds, so
  this is not a contradiction: bound (6) is then the tighter of the two; it is what the chain
  states), ``lower6_above_cert_upper`` flags bound (6) > certified upper (a contradiction: one of
  them is wrong), ``cert_lower_above_upper`` flags certified lower > upper (a contradiction);
  ``cert_lower_above_mc`` flags certified lower > MC mean + Z se where the mean is resolved (as
  above) or > the UCB anywhere, and ``cert_upper_below_mc`` flags certified upper < MC mean - Z se
  where resolved or < the KL lower confidence bound (remove/add only) anywhere: the Monte Carlo
  and the certified bracket disagree beyond the MC error (false alarm <= beta + 3.4e-6 per point
  if both are right).

Claims, with their criteria:

- chua25_props, certified bracket (``checks.py``): the number of grid points where bound (6) >
  certified lower bound (the chain bound (6) <= certified lower as stated; not a contradiction
  when it fails), where the certified bounds contradict themselves or bound (6), and where the MC
  mean lies outside [certified lower, certified upper] by more than its error (z = 4.5 where the
  mean is resolved, KL confidence bounds at beta elsewhere).
- chua25_props, Thm 3.4: among the (panel, eps) where the PLD lower bound of delta_P exceeds
  delta_D (so delta_B <= delta_D < delta_P there) and 1e-12, the number where the certified upper
  bound of delta_B is not below it. Judged with the certified bound (not the Monte Carlo UCB,
  whose verdict at sigma 0.5, T 10, eps 9.5 depends on the seed at 1e5 samples: UCB 1.56e-4
  against delta_P 1.53e-4 in about one seed in ten); the UCB's count is in the note.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from dpsampling.accountants.ballsbins.estimates import kl_upper_confidence_bound
from dpsampling.papers.chua25.plots import (
    B_BOUND6,
    B_CERTIFIED_LOWER,
    B_CERTIFIED_UPPER,
    D_EXACT,
    P_LOWER,
    P_UPPER,
    S_LOWER,
)
from dpsampling.papers.chua25.privacy import BOUND6_CURVE, CERTIFIED_CURVE
from dpsampling.papers.chua25.samples import SampleSet, name_of, series_sets
from dpsampling.papers.chua25.workflow import BOUNDS_SCRIPT, chua25_tests, monte_carlo_experiment
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.samplers import DETERMINISTIC, POISSON, SHUFFLE

EXPERIMENT_ID = "chua25_props"

# --- what is sampled ------------------------------------------------------------------------


def sample_sets(spec: dict) -> list[SampleSet]:
    """One naive sample set per (sigma, T) of the grid (panel sigma<sigma>_T<T>) and direction."""
    sets: list[SampleSet] = []
    for sigma in spec["sigmas"]:
        for steps in spec["steps"]:
            setting = {"sigma": sigma, "steps": steps}
            sets += series_sets(EXPERIMENT_ID, f"sigma{name_of(sigma)}_T{steps}", setting, "naive", "naive",
                                spec["naive"])
    return sets


# --- the deterministic curves beside them ---------------------------------------------------

CURVES = (POISSON.name, SHUFFLE.name, DETERMINISTIC.name, BOUND6_CURVE, CERTIFIED_CURVE)


def bounds_settings(spec: dict) -> list[dict]:
    """(panel, sigma, steps, epochs = 1) of every (sigma, T) of the grid."""
    return [{"panel": f"sigma{float(sigma):g}_T{steps}", "sigma": float(sigma), "steps": int(steps), "epochs": 1}
            for sigma in spec["sigmas"] for steps in spec["steps"]]


# --- the checks (instead of a figure) ---------------------------------------------------------

Z = 4.5
RELATIVE_SLACK = 1e-9  # floating-point slack when comparing two deterministic bounds


def kl_lower_confidence_bound(mean, count, beta):
    """Smallest p in [0, mean] with count KL(mean || p) <= log(1/beta): 1 - UCB(1 - mean), since
    KL(q || p) = KL(1 - q || 1 - p); below delta with probability <= beta (Hoeffding, as Thm 4.1)."""
    mean = np.asarray(mean, dtype=float)
    return 1.0 - kl_upper_confidence_bound(1.0 - mean, count, beta)


def _curve(summary, sampler, method, bound):
    rows = summary[(summary["sampler"] == sampler) & (summary["method"] == method) & (summary["bound"] == bound)]
    return rows.set_index(["panel", "direction", "epsilon"])["delta"]


def property_checks(summary: pd.DataFrame, delta: pd.DataFrame) -> pd.DataFrame:
    """One row per (panel, direction, eps) with the values and the check columns above."""
    mc = delta.set_index(["panel", "direction", "epsilon"])
    table = mc[["sigma", "steps", "count", "mean", "standard_error", "ucb", "error_prob"]].copy()
    weights = np.exp(delta.set_index(["panel", "direction", "epsilon"])["log_weight"].fillna(0.0))
    raw_mean = (table["mean"] / weights).clip(0, 1)
    lcb = weights * kl_lower_confidence_bound(raw_mean.to_numpy(), table["count"].to_numpy(), float(table["error_prob"].iloc[0]))
    table["lcb"] = np.where(table.index.get_level_values("direction") == "max", np.nan, lcb)
    for name, key in (("delta_D", D_EXACT), ("delta_S_lower", S_LOWER), ("delta_B_lower", B_BOUND6),
                      ("delta_P_lower", P_LOWER), ("delta_P_upper", P_UPPER), ("delta_B_cert_lower", B_CERTIFIED_LOWER),
                      ("delta_B_cert_upper", B_CERTIFIED_UPPER)):
        curve = _curve(summary, *key)
        if name == "delta_D":  # delta_D is the same in both directions (stored once, as max)
            curve = curve.reset_index("direction", drop=True)
            table[name] = curve.reindex(table.index.droplevel("direction")).to_numpy()
        else:
            table[name] = curve.reindex(table.index).to_numpy()
    above_d = table["delta_D"] * (1 + RELATIVE_SLACK)
    table["contradicts_b_s_d"] = ((table["delta_B_lower"] > above_d) | (table["lcb"] > above_d)
                                  | (table["delta_S_lower"] > above_d))
    is_max = table.index.get_level_values("direction") == "max"  # Prop. 3.3 and Thm 3.4 are about the max
    table["certifies_b_below_s"] = is_max & (table["ucb"] < table["delta_S_lower"])
    table["certifies_b_below_p"] = is_max & (table["ucb"] < table["delta_P_lower"])
    resolved = (table["mean"] > 0) & (table["standard_error"] <= 0.1 * table["mean"])  # normal approximation usable
    table["lower_above_mean"] = resolved & (table["delta_B_lower"] > table["mean"] + Z * table["standard_error"])
    table["lower_above_ucb"] = table["delta_B_lower"] > table["ucb"] * (1 + RELATIVE_SLACK)
    table["mean_above_ucb"] = table["mean"] > table["ucb"]
    slack = 1 + RELATIVE_SLACK
    table["lower6_above_cert_lower"] = table["delta_B_lower"] > table["delta_B_cert_lower"] * slack
    table["lower6_above_cert_upper"] = table["delta_B_lower"] > table["delta_B_cert_upper"] * slack
    table["cert_lower_above_upper"] = table["delta_B_cert_lower"] > table["delta_B_cert_upper"] * slack
    table["cert_lower_above_mc"] = ((resolved & (table["delta_B_cert_lower"] > table["mean"] + Z * table["standard_error"]))
                                    | (table["delta_B_cert_lower"] > table["ucb"] * slack))
    table["cert_upper_below_mc"] = ((resolved & (table["delta_B_cert_upper"] < table["mean"] - Z * table["standard_error"]))
                                    | (table["delta_B_cert_upper"] * slack < table["lcb"]))
    return table.reset_index()


CHECKS = {"contradicts_b_s_d": "bound (6), MC lower conf. bound of B, or E_C bound of S above delta_D",
          "certifies_b_below_s": "UCB of B below the E_C lower bound of S (max direction)",
          "certifies_b_below_p": "UCB of B below the PLD lower bound of P (max direction)",
          "lower_above_mean": f"bound (6) above MC mean + {Z} standard errors (where the mean is resolved to 10%)",
          "lower_above_ucb": "bound (6) above the UCB",
          "mean_above_ucb": "MC mean above the UCB",
          "lower6_above_cert_lower": "bound (6) above the certified (PLD) lower bound of B (not a contradiction: "
                                     "bound (6) is the tighter lower bound there)",
          "lower6_above_cert_upper": "bound (6) above the certified upper bound of B (a contradiction)",
          "cert_lower_above_upper": "certified lower bound of B above its certified upper bound (a contradiction)",
          "cert_lower_above_mc": f"certified lower bound above MC mean + {Z} standard errors (where resolved) or "
                                 "above the UCB",
          "cert_upper_below_mc": f"certified upper bound below MC mean - {Z} standard errors (where resolved) or "
                                 "below the KL lower confidence bound"}


def property_markdown(table: pd.DataFrame) -> str:
    """Counts of every check per (sigma, T) panel."""
    beta = float(table["error_prob"].iloc[0])
    lines = ["# chua25 properties on a grid (chua25_props)", "",
             f"Points: (panel, direction, eps); MC confidence bounds at beta = {beta:g}. Columns count the points "
             "where each check is true:", ""]
    lines += [f"- `{name}`: {text}" for name, text in CHECKS.items()]
    lines += ["", "| panel | points | " + " | ".join(CHECKS) + " |", "|---|---|" + "---|" * len(CHECKS)]
    for panel, rows in table.groupby("panel", sort=False):
        lines.append(f"| {panel} | {len(rows)} | " + " | ".join(str(int(rows[c].sum())) for c in CHECKS) + " |")
    return "\n".join(lines) + "\n"


# --- the claims ----------------------------------------------------------------------------


def _props_count(columns, detail):
    def measure(frame):
        flagged = frame[columns].any(axis=1)
        where = frame.loc[flagged, ["panel", "direction", "epsilon"]].head(5).to_dict("records")
        return float(flagged.sum()), detail(frame) + (f"; first: {where}" if where else "")
    return measure


def _props_contradictions_detail(frame):
    certified = int(frame["certifies_b_below_s"].sum())
    maxima = int((frame["direction"] == "max").sum())
    return (f"{len(frame)} points (panel, direction, eps); delta_B <= delta_S certified (UCB_B < E_C lower bound "
            f"of delta_S) at {certified} of {maxima} max-direction points; it cannot be contradicted by our bounds "
            "(no upper bound on delta_S but delta_D)")


CERTIFIED_FLOOR = 1e-12  # below it the certified engine's bounds are not resolved (its accuracy floor)


def _thm34(frame):
    """Thm 3.4 judged with the certified upper bound of delta_B (deterministic: the same verdict on
    every run and seed); the Monte Carlo UCB's count is in the note."""
    beyond = (frame["direction"] == "max") & (frame["delta_P_lower"] > frame["delta_D"])
    rows = frame[beyond & (frame["delta_P_lower"] > CERTIFIED_FLOOR)]
    if rows.empty:
        raise Missing("no grid point where delta_P's PLD lower bound exceeds delta_D above 1e-12 (extend the props "
                      "grid: small T, large eps)")
    failing = rows[~(rows["delta_B_cert_upper"] < rows["delta_P_lower"])]
    floor = np.log(1 / frame["error_prob"]) / frame["count"]
    resolvable = rows[rows["delta_P_lower"] > floor.reindex(rows.index)]
    panels = sorted(set(frame["panel"]) - set(rows["panel"]))
    worst = (rows["delta_B_cert_upper"] / rows["delta_P_lower"]).max()
    note = (f"{len(rows)} (panel, eps) points where delta_P's PLD lower bound exceeds delta_D (so delta_B <= delta_D "
            f"< delta_P there, Thm 3.4's argument) and 1e-12; the certified upper bound on delta_B is below it at "
            f"{len(rows) - len(failing)} (largest ratio {worst:.3g}); panels without any: {', '.join(panels) or 'none'}. "
            f"Monte Carlo alone (UCB at beta = {float(frame['error_prob'].iloc[0]):g}, {int(frame['count'].max()):,} "
            f"samples) certifies {int(resolvable['certifies_b_below_p'].sum())} of the {len(resolvable)} above its "
            f"floor log(1/beta)/m = {floor.max():.2g}: at 1e5 samples that count depends on the seed, the certified "
            "one does not")
    return float(len(failing)), note


def _ordering_detail(frame):
    beta = float(frame["error_prob"].iloc[0])
    points = len(frame)
    return (f"{points} points; false-failure probability <= {points} x (beta = {beta:g} + 3.4e-6) "
            f"= {points * (beta + 3.4e-6):.2g} (union bound; bound (6) vs UCB at beta, vs mean by a one-sided z = 4.5)")


def _cert_detail(frame):
    points = len(frame)
    resolved = int(((frame["mean"] > 0) & (frame["standard_error"] <= 0.1 * frame["mean"])).sum())
    gap = ((frame["delta_B_cert_upper"] - frame["delta_B_cert_lower"]) / frame["delta_B_cert_upper"])[
        frame["delta_B_cert_upper"] > 1e-12]
    return (f"{points} points (panel, direction, eps), {resolved} with the MC mean resolved to 10% (z = 4.5 test there, "
            f"one-sided, 3.4e-6 per point; KL confidence bounds at beta = {float(frame['error_prob'].iloc[0]):g} "
            f"everywhere); largest relative gap of the certified bracket {gap.max():.3g}")


def _lower6_detail(frame):
    flagged = frame["lower6_above_cert_lower"]
    measured = flagged & (frame["delta_B_cert_upper"] > 1e-12)  # the certified engine's accuracy floor
    excess = ((frame["delta_B_lower"] - frame["delta_B_cert_lower"]) / frame["delta_B_cert_upper"])[measured]
    return (f"{len(frame)} points; bound (6) exceeds the certified lower bound at {int(measured.sum())} points with "
            f"delta > 1e-12, by at most {excess.max() if measured.any() else 0.0:.2g} of the certified upper bound "
            f"(inside the certified bracket), and at {int((flagged & ~measured).sum())} below 1e-12 (certified lower "
            f"0 there); bound (6) above the certified upper bound at {int(frame['lower6_above_cert_upper'].sum())} "
            "points")


CLAIMS = [
    Claim("chua25_props_prop33", EXPERIMENT_ID, "grid points where our bounds contradict delta_B <= delta_S <= delta_D "
          "(Prop. 3.3)", "~", "0", _props_count(["contradicts_b_s_d"], _props_contradictions_detail),
          result_file="checks.parquet", tolerance=0.0, why="a lower bound on delta_B or delta_S exceeds delta_D"),
    Claim("chua25_props_thm34", EXPERIMENT_ID, "grid points with delta_P > delta_D (PLD lower, > 1e-12) where the "
          "certified upper bound on delta_B is not below delta_P (Thm 3.4)", "~", "0", _thm34, result_file="checks.parquet", tolerance=0.0,
          why="the certified upper bound on delta_B is not below delta_P's PLD lower bound at some point where "
              "delta_P > delta_D"),
    Claim("chua25_props_ordering", EXPERIMENT_ID, "grid points violating bound (6) <= MC mean <= UCB", "~", "0",
          _props_count(["lower_above_mean", "lower_above_ucb", "mean_above_ucb"], _ordering_detail),
          result_file="checks.parquet", tolerance=0.0, why="bound (6), the MC mean and the UCB are out of order"),
    Claim("chua25_props_cert_lower6", EXPERIMENT_ID, "grid points where bound (6) > the certified lower bound of B "
          "(chain bound (6) <= certified lower)", "~", "0", _props_count(["lower6_above_cert_lower"], _lower6_detail),
          result_file="checks.parquet", tolerance=0.0,
          why="bound (6) is above the certified (PLD) lower bound at some points: both are valid lower bounds, so this "
              "is no contradiction; there bound (6) is the tighter one (the certified lower bound is within its "
              "accuracy of delta_B, and bound (6) is closer still at large eps)"),
    Claim("chua25_props_cert_consistent", EXPERIMENT_ID, "grid points where the certified bounds of B contradict "
          "themselves or bound (6) (certified lower > upper, or bound (6) > certified upper)", "~", "0",
          _props_count(["cert_lower_above_upper", "lower6_above_cert_upper"], _cert_detail),
          result_file="checks.parquet", tolerance=0.0, why="a certified bound or bound (6) is wrong"),
    Claim("chua25_props_cert_lower_mc", EXPERIMENT_ID, "grid points where the certified lower bound of B is above "
          "the MC mean beyond its error (certified lower <= MC mean)", "~", "0",
          _props_count(["cert_lower_above_mc"], _cert_detail), result_file="checks.parquet", tolerance=0.0,
          why="the Monte Carlo and the certified lower bound disagree beyond the MC error"),
    Claim("chua25_props_cert_upper_mc", EXPERIMENT_ID, "grid points where the certified upper bound of B is below "
          "the MC mean beyond its error (MC mean <= certified upper)", "~", "0",
          _props_count(["cert_upper_below_mc"], _cert_detail), result_file="checks.parquet", tolerance=0.0,
          why="the Monte Carlo and the certified upper bound disagree beyond the MC error"),
]

EXPERIMENT = monte_carlo_experiment(sys.modules[__name__], CLAIMS, chua25_tests(
    "test_chua25_certified.py", "test_chua25_experiments.py", "test_chua25_privacy.py", "test_chua25_workflow.py",
    "test_stable_verdicts.py"),
                                    outputs=[f"results/{EXPERIMENT_ID}/checks.parquet", f"results/{EXPERIMENT_ID}/checks.md"],
                                    scripts=(BOUNDS_SCRIPT, "scripts/check_chua25_props.py"))
