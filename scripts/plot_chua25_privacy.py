"""Snakemake script: draw one chua25 privacy figure from its summary table."""

import sys

from dpsampling.io import read_table
from dpsampling.papers.chua25.plots import PLOTS

sys.stderr = open(snakemake.log[0], "w", buffering=1)
summary, document = read_table(snakemake.input[0])
name = snakemake.wildcards.experiment.removeprefix("chua25_")
PLOTS[name](summary, document["parameters"], snakemake.output.pdf, snakemake.output.png)
