"""Snakemake script: the chua25_b_vs_p map (PDF and PNG) from its grid table; never recomputes."""

import sys

from dpsampling.io import atomic_paths, read_table
from dpsampling.papers.chua25.b_vs_p import plot_b_vs_p

sys.stderr = open(snakemake.log[0], "w", buffering=1)
table, document = read_table(snakemake.input.table)
with atomic_paths(snakemake.output.pdf, snakemake.output.png) as (pdf, png):  # never a half-written figure
    plot_b_vs_p(table, document["parameters"], pdf, png)
