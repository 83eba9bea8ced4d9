"""Snakemake script: draw one chua25 privacy figure from its summary table (its module's ``plot``)."""

import sys
from importlib import import_module

from dpsampling.io import atomic_paths, read_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
module = import_module(snakemake.params.module)  # dpsampling.papers.chua25.<name>
summary, document = read_table(snakemake.input[0])
with atomic_paths(snakemake.output.pdf, snakemake.output.png) as (pdf, png):  # never a half-written figure
    module.plot(summary, document["parameters"], pdf, png)
