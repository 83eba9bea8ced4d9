"""Snakemake script: exact add/remove curves (k <= 2) and the sample-size check of lebeda24 App. B.2."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.lebeda24 import addremove

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
parameters = {"experiment": "lebeda24_addremove", "spec": spec}
frame = addremove.exact_addremove(spec, progress=lambda m: print(f"[lebeda24_addremove] {m}", file=sys.stderr))
write_table(frame, snakemake.output.exact, parameters)
write_table(addremove.sample_size(spec), snakemake.output.sample_size, parameters)
