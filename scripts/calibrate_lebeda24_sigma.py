"""Snakemake script: one sigma-vs-rate curve of lebeda24 Fig. 2 (one sampler, one eps)."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.lebeda24.sigma_vs_rate import sigma_vs_rate_curve

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
sampler, epsilon = snakemake.wildcards.sampler, float(snakemake.wildcards.epsilon)
frame = sigma_vs_rate_curve(spec, sampler, epsilon, progress=lambda m: print(f"[lebeda24_sigma_vs_rate] {m}", file=sys.stderr))
write_table(frame, snakemake.output[0], {"experiment": "lebeda24_sigma_vs_rate", "spec": spec,
                                         "sampler": sampler, "epsilon": epsilon})
