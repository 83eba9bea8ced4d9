"""Snakemake script: one lebeda24 figure from its Parquet tables (never recomputes)."""

import sys

from dpsampling.io import read_table
from dpsampling.papers.lebeda24.plots import PLOTS

sys.stderr = open(snakemake.log[0], "w", buffering=1)
experiment = snakemake.params.experiment
tables = {name: read_table(path) for name, path in snakemake.input.items() if name != "code"}
PLOTS[experiment](tables, snakemake.output.pdf, snakemake.output.png)
