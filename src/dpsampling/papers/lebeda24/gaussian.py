"""lebeda24 experiments on the subsampled Gaussian mechanism (Sections 5-7, Appendix D).

* lebeda24_sigma_vs_rate (Fig. 2): smallest sigma for (eps, delta) per sampling rate, one curve
  per (sampler, eps), by bisection on the PLD upper bound (``accountants.gaussian.calibrate_sigma_at_rate``).
* lebeda24_table1 (Table 1): eps(delta) of Poisson and WOR through the library's entry point
  ``dpsampling.accountants.tables.epsilon_table`` (relation add_or_remove).
* lebeda24_subst_gaussian (Fig. 4): WOR under substitution, Appendix D bounds and two RDP curves.
* lebeda24_conj12 (Conjecture 12): remove >= add for the Poisson Gaussian, over a grid.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.accountants import gaussian, substitution, wor
from dpsampling.accountants.tables import AccountingOptions, epsilon_table
from dpsampling.papers.lebeda24.experiments import grid

TABLE1_PAPER = {1e-7: (1.19, 17.48), 1e-6: (0.96, 15.26), 1e-5: (0.80, 12.98), 1e-4: (0.64, 10.62)}
"""Table 1 of the paper: delta -> (eps Poisson, eps WOR) at sigma 0.8, rate 0.001, 10,000 steps."""


FIRST_SIGMA = {"poisson": 1.0, "wor": 1.3}
"""First bisection start per sampler: deliberately not in ratio 2, so that the WOR and Poisson
bisections probe different sigmas and sigma_W = 2 sigma_P (Prop. 9) is checked, not built in."""


def sigma_vs_rate_curve(spec: dict, sampler: str, epsilon: float, progress=print) -> pd.DataFrame:
    """Smallest sigma with delta_upper(eps) <= delta (add_or_remove) at every rate of the spec.

    Rates are visited in increasing order; each bisection starts from the previous sigma scaled
    by the rate ratio (the linear regime), which only saves evaluations: every result is its own
    bisection, to relative width rtol.
    """
    rows, previous = [], None
    for rate in sorted(spec["rates"]):
        start = FIRST_SIGMA[sampler] if previous is None else max(previous[1], previous[1] * rate / previous[0] / 2)
        search = gaussian.SigmaSearch(rtol=spec["rtol"], sigma_start=start, discretization=spec["discretization"])
        result = gaussian.calibrate_sigma_at_rate(sampler, epsilon, spec["delta"], rate, spec["steps"], "add_or_remove",
                                                  "upper", search)
        rows.append(result)
        previous = (rate, result["sigma"])
        progress(f"{sampler} eps={epsilon:g} rate={rate:g}: sigma = {result['sigma']:.5g} "
                 f"({result['evaluations']} evaluations)")
    return pd.DataFrame(rows)


def table1(spec: dict, progress=print) -> pd.DataFrame:
    """eps(delta) bounds of Poisson and WOR (both directions, RDP) next to the paper's values."""
    options = AccountingOptions(pld_discretization=spec["discretization"],
                                pld_relative_accuracy=spec["relative_accuracy"],
                                pld_min_discretization=spec["min_discretization"],
                                sampling_rate=spec["sampling_rate"])
    frames = []
    for i, sampler in enumerate(("poisson", "wor")):
        frame = epsilon_table(sampler, spec["sigma"], spec["steps"], spec["deltas"], 1, options, "add_or_remove")
        frame.insert(0, "sampler", sampler)
        frame["paper_epsilon"] = [TABLE1_PAPER.get(float(d), (np.nan, np.nan))[i] for d in frame["delta"]]
        frames.append(frame)
        progress(f"{sampler}: eps_upper = {', '.join(f'{v:.4f}' for v in frame['epsilon_upper'])}")
    out = pd.concat(frames, ignore_index=True)
    out["sampling_rate"] = spec["sampling_rate"]
    out["sigma"] = spec["sigma"]
    out["steps"] = spec["steps"]
    return out


def table1_markdown(frame: pd.DataFrame) -> str:
    """Table 1 as Markdown: paper vs ours (PLD upper and lower bound, max over directions)."""
    lines = ["| delta | eps Poisson (paper) | Poisson upper (ours) | Poisson lower (ours) | eps WOR (paper) | "
             "WOR upper (ours) | WOR lower (ours) |", "|---|---|---|---|---|---|---|"]
    wide = frame.set_index(["delta", "sampler"])
    for delta in sorted(frame["delta"].unique()):
        cells = [f"{delta:g}"]
        for sampler in ("poisson", "wor"):
            row = wide.loc[(delta, sampler)]
            cells += [f"{row['paper_epsilon']:.2f}", f"{row['epsilon_upper']:.4f}", f"{row['epsilon_lower']:.4f}"]
        lines.append("| " + " | ".join(cells) + " |")
    first = frame.iloc[0]
    lines.append("")
    lines.append(f"sigma = {first['sigma']}, sampling rate = {first['sampling_rate']}, steps = {first['steps']}; "
                 "dp-accounting PLD (upper: pessimistic connect-the-dots, lower: optimistic), "
                 f"discretization {', '.join(f'{v:g}' for v in sorted(frame['pld_discretization'].unique()))}; "
                 "relation add_or_remove (max of the two directions).")
    return "\n".join(lines) + "\n"


def subst_gaussian(spec: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(composed, single_step). composed: epsilon, delta_upper (pointwise-max dominating pair),
    {remove,add}_{upper,lower} (the two dataset pairs; their optimistic PLDs are lower bounds),
    delta_lower (max of those), rdp_wor_substitution (dp-accounting's WOR replace-one bound),
    rdp_pair (RDP of the remove/add pair, the caption's 'RDP for scale'). single_step: the two
    single-step curves and their maximum over a grid of eps that includes negative values."""
    eps = grid(spec["epsilon_grid"])
    run = wor.WorAccounting(spec["sigma"], spec["steps"], 1, spec["sampling_rate"])
    bounds = wor.substitution_delta(eps, run, spec["discretization"])
    composed = pd.DataFrame({"epsilon": eps, "delta_upper": bounds["upper"], "delta_lower": bounds["lower"]})
    for direction in ("remove", "add"):
        for bound in ("upper", "lower"):
            composed[f"{direction}_{bound}"] = bounds[f"{direction}_{bound}"]
    composed["rdp_wor_substitution"] = bounds["rdp"]
    composed["rdp_pair"] = substitution.rdp_pair_delta(eps, spec["sigma"], spec["sampling_rate"], spec["steps"])
    single = substitution.gaussian_single_step_curves(grid(spec["single_step_grid"]), spec["sigma"],
                                                      spec["sampling_rate"])
    for frame in (composed, single):
        frame["sigma"] = spec["sigma"]
        frame["sampling_rate"] = spec["sampling_rate"]
        frame["discretization"] = spec["discretization"]
    composed["steps"] = spec["steps"]
    return composed, single


def conjecture12(spec: dict, progress=print) -> pd.DataFrame:
    """Every (sigma, rate, k, eps) of the grid with both directions' upper and lower deltas and the
    counterexample flags of ``lebeda.gaussian.conjecture12_search``."""
    frames = []
    for sigma in spec["sigmas"]:
        table, bad = gaussian.conjecture12_search([sigma], spec["rates"], spec["compositions"],
                                                  grid(spec["epsilon_grid"]), spec["discretization"])
        frames.append(table)
        progress(f"sigma={sigma:g}: {len(table)} grid points, {len(bad)} flagged")
    return pd.concat(frames, ignore_index=True)
