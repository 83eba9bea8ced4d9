"""Snakemake script: bounds and Monte Carlo rows in one long table -> summary.parquet."""

import sys

from dpsampling.io import read_table, write_table
from dpsampling.papers.chua25.privacy import summary_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
delta, delta_document = read_table(snakemake.input.delta)
bounds, bounds_document = read_table(snakemake.input.bounds)
parameters = dict(delta_document["parameters"], settings=bounds_document["parameters"]["settings"],
                  certified=bounds_document["parameters"].get("certified", []))
write_table(summary_table(delta, bounds), snakemake.output[0], parameters)
