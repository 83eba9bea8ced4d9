"""Snakemake script: the three substitution divergences of lebeda24 Section 7 (Fig. 3)."""

import sys

from dpsampling.experiments import lebeda24
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
frame = lebeda24.substitution_laplace(spec)
write_table(frame, snakemake.output[0], {"experiment": "lebeda24_substitution", "spec": spec})  # noqa: F821
print(frame["largest"].value_counts().to_string(), file=sys.stderr)
