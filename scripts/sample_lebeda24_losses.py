"""Snakemake script: one Monte Carlo shard of the subsampled Laplace privacy loss (lebeda24 App. B.2)."""

import sys

from dpsampling.io import write_table
from dpsampling.lebeda.shards import sample_shard

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821 (snakemake injects it)
w = snakemake.wildcards  # noqa: F821
frame, parameters = sample_shard(dict(snakemake.params.spec), snakemake.params.seed, "lebeda24_addremove",  # noqa: F821
                                 w.sampler, w.direction, int(w.k), int(w.shard))
write_table(frame, snakemake.output[0], parameters)  # noqa: F821
print(f"[lebeda24_addremove] {w.sampler}/{w.direction}/k{w.k} shard {w.shard}: {len(frame)} samples", file=sys.stderr)
