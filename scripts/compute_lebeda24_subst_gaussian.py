"""Snakemake script: WOR Gaussian under substitution, Appendix D bounds and RDP (Fig. 4)."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.lebeda24 import subst_gaussian

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
composed, single = subst_gaussian.subst_gaussian(spec)
parameters = {"experiment": "lebeda24_subst_gaussian", "spec": spec}
write_table(composed, snakemake.output.composed, parameters)
write_table(single, snakemake.output.single_step, parameters)
print(composed.to_string(), file=sys.stderr)
