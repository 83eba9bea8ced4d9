"""Snakemake script: the deterministic curves of one chua25 privacy experiment -> bounds.parquet."""

import sys

from dpsampling.experiments.chua25_privacy import bounds_table
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
parameters = dict(snakemake.params.bounds)  # noqa: F821
name = parameters["experiment"].removeprefix("chua25_")
frame = bounds_table(name, parameters["settings_list"], parameters["epsilons"], parameters["settings"],
                     lambda m: print(m, file=sys.stderr))
write_table(frame, snakemake.output[0], parameters)  # noqa: F821
print(f"wrote {len(frame)} rows", file=sys.stderr)
