"""Snakemake script: the deterministic curves of one chua25 privacy experiment -> bounds.parquet."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.chua25.privacy import bounds_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
parameters = dict(snakemake.params.bounds)
name = parameters["experiment"].removeprefix("chua25_")
frame = bounds_table(name, parameters["settings_list"], parameters["epsilons"], parameters["settings"],
                     lambda m: print(m, file=sys.stderr))
write_table(frame, snakemake.output[0], dict(parameters, certified=frame.attrs.get("certified", [])))
print(f"wrote {len(frame)} rows", file=sys.stderr)
