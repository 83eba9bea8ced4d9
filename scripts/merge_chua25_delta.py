"""Snakemake script: evaluate every eps on the cached shards (pooled exactly) -> delta.parquet."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.chua25.privacy import merge_delta
from dpsampling.papers.chua25.samples import SampleSet

sys.stderr = open(snakemake.log[0], "w", buffering=1)
params = dict(snakemake.params.merge)
sets = [SampleSet(**s) for s in params["sets"]]
frame = merge_delta(sets, params["seed"], params["epsilons"], params["error_prob"], lambda m: print(m, file=sys.stderr))
write_table(frame, snakemake.output[0], dict(params, experiment=snakemake.wildcards.experiment))
print(f"wrote {len(frame)} rows", file=sys.stderr)
