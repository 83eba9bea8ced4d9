"""Snakemake script: draw one shard of privacy-loss samples and write it with its metadata."""

import sys

import numba

from dpsampling.papers.chua25.samples import sample_shard, write_shard

sys.stderr = open(snakemake.log[0], "w", buffering=1)
numba.set_num_threads(snakemake.threads)
parameters = dict(snakemake.params.sampling)
print(f"sampling {parameters}", file=sys.stderr)
samples, timing = sample_shard(parameters)
write_shard(samples, parameters, timing, snakemake.threads, snakemake.output[0])
print(f"{samples.count} samples: {timing} on {snakemake.threads} thread(s)", file=sys.stderr)
