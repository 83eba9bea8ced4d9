"""lebeda24 Table 1: eps of Poisson and WOR subsampling at sigma 0.8, rate 0.001, 10,000 steps, for
four delta, through the library's face (``dpsampling.Accountant``, in ``papers.accounting``'s table)
(relation add_or_remove), next to the paper's values (config ``lebeda24.table1``). A table, no figure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.papers.accounting import epsilon_table, paper_phase
from dpsampling.papers.lebeda24.cost import whole_work
from dpsampling.papers.lebeda24.subsampled import POISSON, WOR
from dpsampling.papers.lebeda24.workflow import lebeda24_experiment
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.pipeline.estimate import Rates, Work

EXPERIMENT_ID = "lebeda24_table1"
RESULTS = ["table1.parquet", "table1.csv", "table1.md"]


TABLE1_PAPER = {1e-7: (1.19, 17.48), 1e-6: (0.96, 15.26), 1e-5: (0.80, 12.98), 1e-4: (0.64, 10.62)}
"""Table 1 of the paper: delta -> (eps Poisson, eps WOR) at sigma 0.8, rate 0.001, 10,000 steps."""


def table1(spec: dict, progress=print) -> pd.DataFrame:
    """eps(delta) bounds of Poisson and WOR (both directions, RDP) next to the paper's values."""
    frames = []
    for i, sampler in enumerate((POISSON, WOR)):
        phase = paper_phase(sampler, spec["sigma"], spec["steps"], sampling_rate=spec["sampling_rate"])
        frame = epsilon_table(phase, spec["deltas"], relation="add_or_remove", accuracy=spec["relative_accuracy"])
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
        for sampler in (POISSON, WOR):
            row = wide.loc[(delta, sampler)]
            cells += [f"{row['paper_epsilon']:.2f}", f"{row['epsilon_upper']:.4f}", f"{row['epsilon_lower']:.4f}"]
        lines.append("| " + " | ".join(cells) + " |")
    first = frame.iloc[0]
    lines.append("")
    lines.append(f"sigma = {first['sigma']}, sampling rate = {first['sampling_rate']}, steps = {first['steps']}; "
                 "certified engine (dpsampling.accountants.certified; upper: convex-order law, lower: Jensen law), "
                 f"final grid step {', '.join(f'{v:.3g}' for v in sorted(frame['pld_discretization'].unique()))}; "
                 "relation add_or_remove (max of the two directions).")
    return "\n".join(lines) + "\n"


TABLE1_WHY = ("every paper value lies between the true eps (ours converged) and it + 0.02, as an accountant's error "
              "margin would: Opacus' PRV ('PLD') accountant at its default eps_error = 0.01 (Opacus 1.4-1.6, WOR as "
              "Poisson at sigma/2) gives 1.1809, 0.9573, 0.7925, 0.6387 (Poisson) and 17.4740, 15.2626, 12.9870, "
              "10.6281 (WOR), matching 3 of 8 cells to 2 decimals; no single eps_error reproduces all 8 (the WOR column "
              "needs >= 0.012 at 1e-7 and < 0.008 at 1e-4), so the exact setting behind Table 1 is not identifiable")


def _table1_cell(sampler, delta):
    def measure(frame):
        rows = frame[(frame["sampler"] == sampler) & np.isclose(frame["delta"], delta)]
        if rows.empty:
            raise Missing(f"delta={delta:g} is not in the results")
        row = rows.iloc[0]
        return float(row["epsilon_upper"]), (f"PLD upper {row['epsilon_upper']:.4f}, lower {row['epsilon_lower']:.4f} "
                                             f"(remove {row['remove_epsilon_upper']:.4f}, add {row['add_epsilon_upper']:.4f}),"
                                             f" certified, grid step {row['pld_discretization']:.3g}")
    return measure


def _wor_lower(frame):
    rows = frame[frame["sampler"] == WOR]
    if rows.empty:
        raise Missing("no WOR rows")
    row = rows.loc[rows["delta"].idxmax()]
    return float(row["epsilon_lower"]), f"WOR at delta = {row['delta']:g}: certified lower bound"


CLAIMS = [
    *[Claim(f"lebeda24_table1_{sampler}_delta{delta:g}", "lebeda24_table1",
            f"eps {sampler} (PLD upper, add_or_remove) at delta = {delta:g}, sigma 0.8, rate 0.001, 10,000 steps", "~",
            f"{TABLE1_PAPER[delta][i]:.2f}", _table1_cell(sampler, delta), result_file="table1.parquet", why=TABLE1_WHY)
      for delta in TABLE1_PAPER for i, sampler in enumerate((POISSON, WOR))],
    Claim("lebeda24_table1_wor_above_10", "lebeda24_table1",
          "eps WOR lower bound at the largest delta of the table (abstract: eps > 10 for WOR)", ">", "10", _wor_lower,
          result_file="table1.parquet", tolerance=0.0),
]


def table1_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Its cost model entry (see dpsampling.papers.lebeda24.cost)."""
    spec = config["lebeda24"]["table1"]
    # probed at coarser accuracies within the budget (a 4x coarser one, x 4, said 2.2x the quick run:
    # 4.7 CPU s at 4x coarser, 5.0 at its own, 2026-11-29; the engine's exponent is 0.5, not 1)
    return whole_work(experiment, spec, rates, "table1.parquet", lambda: table1(spec, progress=lambda m: None),
                      "evaluations of Table 1",
                      probe=("relative_accuracy", lambda probed: table1(probed, progress=lambda m: None)))


PAPER = {"sigma": 0.8, "sampling_rate": 0.001, "steps": 10000}  # the paper's setting: claims are judged only there
EXPERIMENT = lebeda24_experiment(__name__, RESULTS, CLAIMS, table1_work, figure=False, paper=PAPER)
