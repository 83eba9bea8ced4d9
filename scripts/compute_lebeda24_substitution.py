"""Snakemake script: the three substitution divergences of lebeda24 Section 7 (Fig. 3)."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.lebeda24 import substitution

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
frame = substitution.substitution_laplace(spec)
write_table(frame, snakemake.output[0], {"experiment": "lebeda24_substitution", "spec": spec})
print(frame["largest"].value_counts().to_string(), file=sys.stderr)
