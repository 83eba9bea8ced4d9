"""Snakemake script: one Monte Carlo shard of the subsampled Laplace privacy loss (lebeda24 App. B.2)."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.lebeda24.shards import sample_shard

sys.stderr = open(snakemake.log[0], "w", buffering=1)
parameters = dict(snakemake.params.sampling)
frame = sample_shard(parameters)
write_table(frame, snakemake.output[0], parameters)
print(f"[lebeda24_addremove] {parameters}: {len(frame)} samples", file=sys.stderr)
