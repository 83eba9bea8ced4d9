"""Snakemake script: draw chua25 Fig. 1 from the combined runs."""

import sys

from dpsampling.io import atomic_paths, read_table
from dpsampling.papers.chua25.fig1 import plot

sys.stderr = open(snakemake.log[0], "w", buffering=1)
runs, document = read_table(snakemake.input[0], snakemake.params.expected)
with atomic_paths(snakemake.output.pdf, snakemake.output.png) as (pdf, png):  # never a half-written figure
    plot(runs, document["parameters"], pdf, png)
