"""Snakemake script: grid search for a counterexample to lebeda24 Conjecture 12."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.lebeda24 import conj12

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
frame = conj12.conjecture12(spec, progress=lambda m: print(f"[lebeda24_conj12] {m}", file=sys.stderr))
write_table(frame, snakemake.output[0], {"experiment": "lebeda24_conj12", "spec": spec})
