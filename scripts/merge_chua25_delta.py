"""Snakemake script: evaluate every eps on the cached shards (pooled exactly) -> delta.parquet."""

import sys

from dpsampling.experiments.chua25_privacy import merge_delta
from dpsampling.experiments.chua25_samples import SampleSet
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
params = dict(snakemake.params.merge)  # noqa: F821
sets = [SampleSet(**s) for s in params["sets"]]
frame = merge_delta(sets, params["seed"], params["epsilons"], params["error_prob"], lambda m: print(m, file=sys.stderr))
write_table(frame, snakemake.output[0], dict(params, experiment=snakemake.wildcards.experiment))  # noqa: F821
print(f"wrote {len(frame)} rows", file=sys.stderr)
