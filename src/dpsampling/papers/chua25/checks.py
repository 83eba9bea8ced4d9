"""chua25 properties checked on a grid (chua25_props) and the truncation table (chua25_trunc).

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
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling.accountants import ballsbins as bb
from dpsampling.accountants.truncation import max_batch_size, truncation_delta
from dpsampling.papers.chua25.privacy import CERTIFIED_METHOD

Z = 4.5
RELATIVE_SLACK = 1e-9  # floating-point slack when comparing two deterministic bounds


def kl_lower_confidence_bound(mean, count, beta):
    """Smallest p in [0, mean] with count KL(mean || p) <= log(1/beta): 1 - UCB(1 - mean), since
    KL(q || p) = KL(1 - q || 1 - p); below delta with probability <= beta (Hoeffding, as Thm 4.1)."""
    mean = np.asarray(mean, dtype=float)
    return 1.0 - bb.kl_upper_confidence_bound(1.0 - mean, count, beta)


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
    for name, key in (("delta_D", ("deterministic", "exact", "exact")), ("delta_S_lower", ("shuffle", "E_C sets", "lower")),
                      ("delta_B_lower", ("balls_and_bins", "bound (6)", "lower")), ("delta_P_lower", ("poisson", "pld", "lower")),
                      ("delta_P_upper", ("poisson", "pld", "upper")),
                      ("delta_B_cert_lower", ("balls_and_bins", CERTIFIED_METHOD, "lower")),
                      ("delta_B_cert_upper", ("balls_and_bins", CERTIFIED_METHOD, "upper"))):
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


def truncation_table(spec: dict) -> pd.DataFrame:
    """Max batch size B with delta' = (1 + e^eps) T Pr[Bin(n, b/n) > B] <= delta (chua25 App. C),
    T = ceil(n / b), for every dataset size n and expected batch size b; with delta' at B and B - 1."""
    rows = []
    for dataset, n in spec["datasets"].items():
        for b in spec["batch_sizes"]:
            steps = math.ceil(n / b)
            size = max_batch_size(n, b, steps, spec["epsilon"], spec["delta"])
            rows.append({"dataset": dataset, "n": int(n), "batch_size": int(b), "steps": steps,
                         "max_batch_size": int(size),
                         "delta_prime": truncation_delta(n, b, size, steps, spec["epsilon"]),
                         "delta_prime_below": truncation_delta(n, b, size - 1, steps, spec["epsilon"]),
                         "epsilon": float(spec["epsilon"]), "delta_target": float(spec["delta"])})
    return pd.DataFrame(rows)


def truncation_markdown(table: pd.DataFrame) -> str:
    """The table as Markdown, one column per dataset."""
    wide = table.pivot(index="batch_size", columns="dataset", values="max_batch_size")
    lines = [f"# Max batch size B (chua25 App. C): (1 + e^eps) T Pr[Bin(n, b/n) > B] <= "
             f"{table['delta_target'].iloc[0]:g} at eps = {table['epsilon'].iloc[0]:g}, T = ceil(n / b)", "",
             "| expected batch b | " + " | ".join(f"{d} (n = {int(table.loc[table.dataset == d, 'n'].iloc[0]):,})"
                                                  for d in wide.columns) + " |",
             "|---|" + "---|" * len(wide.columns)]
    for b, row in wide.iterrows():
        lines.append(f"| {b} | " + " | ".join(str(int(v)) for v in row) + " |")
    return "\n".join(lines) + "\n"
