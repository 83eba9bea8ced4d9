"""Snakemake script: the deterministic curves of one chua25 privacy experiment (its module's CURVES)
-> bounds.parquet."""

import sys
from importlib import import_module

from dpsampling.io import write_table
from dpsampling.papers.chua25.privacy import bounds_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
module = import_module(snakemake.params.module)  # dpsampling.papers.chua25.<name>
parameters = dict(snakemake.params.bounds)
frame = bounds_table(module.CURVES, parameters["settings_list"], parameters["epsilons"], parameters["settings"],
                     lambda m: print(m, file=sys.stderr))
write_table(frame, snakemake.output[0], dict(parameters, certified=frame.attrs.get("certified", [])))
print(f"wrote {len(frame)} rows", file=sys.stderr)
