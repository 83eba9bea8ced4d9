"""Snakemake script: randomized-response counterexample (lebeda24 App. B.1) in exact fractions."""

import sys
from pathlib import Path

from dpsampling.io import write_table
from dpsampling.papers.lebeda24 import rr

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
frame = rr.randomized_response_table(spec)
write_table(frame, snakemake.output.parquet, {"experiment": "lebeda24_rr", "spec": spec})
lines = ["| alpha | H_alpha(P\\|\\|Q) | H_alpha(Q\\|\\|P) |", "|---|---|---|"]
lines += [f"| {r.alpha} | {r.H_P_Q} | {r.H_Q_P} |" for r in frame.itertuples()]
tmp = Path(snakemake.output.md).with_suffix(".tmp")
tmp.write_text("\n".join(lines) + "\n")
tmp.replace(snakemake.output.md)
