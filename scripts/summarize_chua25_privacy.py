"""Snakemake script: bounds and Monte Carlo rows in one long table -> summary.parquet."""

import sys

from dpsampling.experiments.chua25_privacy import summary_table
from dpsampling.io import read_table, write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
delta, delta_document = read_table(snakemake.input.delta)  # noqa: F821
bounds, bounds_document = read_table(snakemake.input.bounds)  # noqa: F821
parameters = dict(delta_document["parameters"], settings=bounds_document["parameters"]["settings"])
write_table(summary_table(delta, bounds), snakemake.output[0], parameters)  # noqa: F821
