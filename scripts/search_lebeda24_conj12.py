"""Snakemake script: grid search for a counterexample to lebeda24 Conjecture 12."""

import sys

from dpsampling.experiments import lebeda24_gaussian
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
frame = lebeda24_gaussian.conjecture12(spec, progress=lambda m: print(f"[lebeda24_conj12] {m}", file=sys.stderr))
write_table(frame, snakemake.output[0], {"experiment": "lebeda24_conj12", "spec": spec})  # noqa: F821
