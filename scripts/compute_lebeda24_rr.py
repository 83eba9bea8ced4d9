"""Snakemake script: randomized-response counterexample (lebeda24 App. B.1) in exact fractions."""

import sys

from dpsampling.io import write_table, write_text_atomically
from dpsampling.papers.lebeda24 import rr

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
frame = rr.randomized_response_table(spec)
write_table(frame, snakemake.output.parquet, {"experiment": "lebeda24_rr", "spec": spec})
lines = ["| alpha | H_alpha(P\\|\\|Q) | H_alpha(Q\\|\\|P) |", "|---|---|---|"]
lines += [f"| {r.alpha} | {r.H_P_Q} | {r.H_Q_P} |" for r in frame.itertuples()]
write_text_atomically(snakemake.output.md, "\n".join(lines) + "\n")
