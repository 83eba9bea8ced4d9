"""Snakemake script: one sigma-vs-rate curve of lebeda24 Fig. 2 (one sampler, one eps)."""

import sys

from dpsampling.experiments.lebeda24_gaussian import sigma_vs_rate_curve
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
sampler, epsilon = snakemake.wildcards.sampler, float(snakemake.wildcards.epsilon)  # noqa: F821
frame = sigma_vs_rate_curve(spec, sampler, epsilon, progress=lambda m: print(f"[lebeda24_sigma_vs_rate] {m}", file=sys.stderr))
write_table(frame, snakemake.output[0], {"experiment": "lebeda24_sigma_vs_rate", "spec": spec,  # noqa: F821
                                         "sampler": sampler, "epsilon": epsilon})
