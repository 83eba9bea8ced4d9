"""Snakemake script: WOR Gaussian under substitution, Appendix D bounds and RDP (Fig. 4)."""

import sys

from dpsampling.experiments import lebeda24_gaussian
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
composed, single = lebeda24_gaussian.subst_gaussian(spec)
parameters = {"experiment": "lebeda24_subst_gaussian", "spec": spec}
write_table(composed, snakemake.output.composed, parameters)  # noqa: F821
write_table(single, snakemake.output.single_step, parameters)  # noqa: F821
print(composed.to_string(), file=sys.stderr)
