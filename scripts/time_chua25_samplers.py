"""Snakemake script: the interleaved CPU-time ratios of one chua25 experiment's timing claims (its module's ``timing``)."""

import sys
from importlib import import_module

from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
module = import_module(snakemake.params.module)  # dpsampling.papers.chua25.fig3 or fig4
spec = dict(snakemake.params.spec)
frame = module.timing(spec)
write_table(frame, snakemake.output[0], {"experiment": snakemake.wildcards.experiment, "spec": spec})
print(frame.groupby("comparison")["ratio"].describe().to_string(), file=sys.stderr)
