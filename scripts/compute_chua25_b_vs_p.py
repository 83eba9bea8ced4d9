"""Snakemake script: chua25_b_vs_p, certified B vs P on a grid -> grid.parquet and grid.md."""

import sys

from dpsampling.io import write_table, write_text_atomically
from dpsampling.papers.chua25.b_vs_p import b_vs_p_grid, b_vs_p_markdown

sys.stderr = open(snakemake.log[0], "w", buffering=1)
parameters = dict(snakemake.params.grid)
table = b_vs_p_grid(parameters["spec"], parameters["certified"], lambda m: print(m, file=sys.stderr))
write_table(table, snakemake.output.table, dict(parameters, certified=table.attrs["certified"]))
write_text_atomically(snakemake.output.markdown, b_vs_p_markdown(table))
