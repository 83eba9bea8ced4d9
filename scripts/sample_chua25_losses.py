"""Snakemake script: draw one shard (losses or their statistics) on the config's device and write it
with its metadata (the device that ran is recorded there, not in the shard's params)."""

import sys

import numba

from dpsampling.papers.chua25.samples import sample_shard, write_shard

sys.stderr = open(snakemake.log[0], "w", buffering=1)
numba.set_num_threads(snakemake.threads)
parameters = dict(snakemake.params.sampling)
device = snakemake.config.get("device", "cpu")
print(f"sampling {parameters} (device {device})", file=sys.stderr)
result, timing = sample_shard(parameters, device)
write_shard(result, parameters, timing, snakemake.threads, snakemake.output[0])
print(f"{parameters['samples']} samples ({parameters.get('storage', 'samples')} kept): {timing} "
      f"on {snakemake.threads} thread(s)", file=sys.stderr)
