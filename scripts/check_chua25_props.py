"""Snakemake script: the property checks of chua25_props as a table (Parquet and Markdown)."""

import sys

from dpsampling.io import read_table, write_table, write_text_atomically
from dpsampling.papers.chua25.props import property_checks, property_markdown

sys.stderr = open(snakemake.log[0], "w", buffering=1)
summary, document = read_table(snakemake.input.summary)
delta, _ = read_table(snakemake.input.delta)
table = property_checks(summary, delta)
write_table(table, snakemake.output.table, document["parameters"])
write_text_atomically(snakemake.output.markdown, property_markdown(table))
