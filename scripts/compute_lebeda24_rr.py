"""Snakemake script: randomized-response counterexample (lebeda24 App. B.1) in exact fractions."""

import sys
from pathlib import Path

from dpsampling.experiments import lebeda24
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
frame = lebeda24.randomized_response_table(spec)
write_table(frame, snakemake.output.parquet, {"experiment": "lebeda24_rr", "spec": spec})  # noqa: F821
lines = ["| alpha | H_alpha(P\\|\\|Q) | H_alpha(Q\\|\\|P) |", "|---|---|---|"]
lines += [f"| {r.alpha} | {r.H_P_Q} | {r.H_Q_P} |" for r in frame.itertuples()]
tmp = Path(snakemake.output.md).with_suffix(".tmp")  # noqa: F821
tmp.write_text("\n".join(lines) + "\n")
tmp.replace(snakemake.output.md)  # noqa: F821
