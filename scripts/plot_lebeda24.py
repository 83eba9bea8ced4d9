"""Snakemake script: one lebeda24 figure from its Parquet tables (its module's ``plot``; never recomputes)."""

import sys
from importlib import import_module

from dpsampling.io import atomic_paths, read_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
module = import_module(snakemake.params.module)  # dpsampling.papers.lebeda24.<name>
tables = {name: read_table(path) for name, path in snakemake.input.items() if name != "code"}
with atomic_paths(snakemake.output.pdf, snakemake.output.png) as (pdf, png):  # never a half-written figure
    module.plot(tables, pdf, png)
