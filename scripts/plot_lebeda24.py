"""Snakemake script: one lebeda24 figure from its Parquet tables (never recomputes)."""

import sys

from dpsampling.io import read_table
from dpsampling.plotting_lebeda24 import PLOTS

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
experiment = snakemake.params.experiment  # noqa: F821
tables = {name: read_table(path) for name, path in snakemake.input.items() if name != "code"}  # noqa: F821
PLOTS[experiment](tables, snakemake.output.pdf, snakemake.output.png)  # noqa: F821
