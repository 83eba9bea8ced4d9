"""Snakemake script: draw one chua25 privacy figure from its summary table."""

import sys

from dpsampling.io import read_table
from dpsampling.plotting_chua25 import PLOTS

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
summary, document = read_table(snakemake.input[0])  # noqa: F821
name = snakemake.wildcards.experiment.removeprefix("chua25_")  # noqa: F821
PLOTS[name](summary, document["parameters"], snakemake.output.pdf, snakemake.output.png)  # noqa: F821
