"""lebeda24 Appendix B.1: randomized response, the hockey-stick divergences in exact fractions
(``dpsampling.papers.lebeda24.randomized_response``; config ``lebeda24.rr``). A table, no figure.
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from dpsampling.papers.lebeda24 import randomized_response
from dpsampling.papers.lebeda24.cost import whole_work
from dpsampling.papers.lebeda24.workflow import lebeda24_experiment
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.pipeline.estimate import Rates, Work

EXPERIMENT_ID = "lebeda24_rr"
RESULTS = ["rr.parquet", "rr.md"]


def _fraction(pair) -> Fraction:
    return Fraction(int(pair[0]), int(pair[1]))


def randomized_response_table(spec: dict) -> pd.DataFrame:
    """Appendix B.1 in exact rationals: per alpha, H_alpha(P||Q) and H_alpha(Q||P) as
    numerator/denominator integers, as text and as floats."""
    rows = randomized_response.randomized_response_divergences(
        [_fraction(a) for a in spec["alphas"]], _fraction(spec["sampling_rate"]), spec["runs"],
        _fraction(spec["keep_probability"]))
    out = []
    for row in rows:
        record = {"alpha": str(row["alpha"]), "alpha_value": float(row["alpha"]), "runs": spec["runs"],
                  "sampling_rate": str(_fraction(spec["sampling_rate"]))}
        for name in ("H_P_Q", "H_Q_P"):
            value = row[name]
            record.update({name: str(value), f"{name}_numerator": value.numerator,
                           f"{name}_denominator": value.denominator, f"{name}_value": float(value)})
        out.append(record)
    return pd.DataFrame(out)


def _rr(alpha: Fraction, column: str, paper: Fraction):
    def measure(frame):
        rows = frame[frame["alpha"] == str(alpha)]
        if rows.empty:
            raise Missing(f"alpha = {alpha} is not in the results")
        row = rows.iloc[0]
        ours = Fraction(int(row[f"{column}_numerator"]), int(row[f"{column}_denominator"]))
        return float(ours - paper), f"ours = {ours} exactly (paper: {paper})"
    return measure


CLAIMS = [
    *[Claim(f"lebeda24_rr_{name}", "lebeda24_rr", f"{label} minus {paper} (exact rationals)", "~", "0",
            _rr(alpha, column, paper), result_file="rr.parquet", tolerance=0.0)
      for name, label, alpha, column, paper in (
          ("h43_pq", "H_{4/3}(P||Q)", Fraction(4, 3), "H_P_Q", Fraction(11, 48)),
          ("h43_qp", "H_{4/3}(Q||P)", Fraction(4, 3), "H_Q_P", Fraction(1, 6)),
          ("h2_pq", "H_2(P||Q)", Fraction(2), "H_P_Q", Fraction(1, 16)),
          ("h2_qp", "H_2(Q||P)", Fraction(2), "H_Q_P", Fraction(1, 8)))],
]


def randomized_response_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Its cost model entry (see dpsampling.papers.lebeda24.cost)."""
    spec = config["lebeda24"]["rr"]
    return whole_work(experiment, spec, rates, "rr.parquet", lambda: randomized_response_table(spec), "evaluations")


EXPERIMENT = lebeda24_experiment(__name__, RESULTS, CLAIMS, randomized_response_work, figure=False)
