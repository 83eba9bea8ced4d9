"""Snakemake script: the property checks of chua25_props as a table (Parquet and Markdown)."""

import sys
from pathlib import Path

from dpsampling.experiments.chua25_checks import property_checks, property_markdown
from dpsampling.io import read_table, write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
summary, document = read_table(snakemake.input.summary)  # noqa: F821
delta, _ = read_table(snakemake.input.delta)  # noqa: F821
table = property_checks(summary, delta)
write_table(table, snakemake.output.table, document["parameters"])  # noqa: F821
tmp = Path(snakemake.output.markdown).with_suffix(".tmp")  # noqa: F821
tmp.write_text(property_markdown(table))
tmp.replace(snakemake.output.markdown)  # noqa: F821
