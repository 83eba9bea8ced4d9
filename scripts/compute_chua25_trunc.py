"""Snakemake script: the truncation table of chua25 App. C (Parquet, CSV, Markdown)."""

import sys
from pathlib import Path

from dpsampling.experiments.chua25_checks import truncation_markdown, truncation_table
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
table = truncation_table(spec)
write_table(table, snakemake.output.table, spec)  # noqa: F821
for output, text in ((snakemake.output.csv, table.to_csv(index=False)), (snakemake.output.markdown, truncation_markdown(table))):  # noqa: F821
    tmp = Path(output).with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(output)
print(table.to_string(), file=sys.stderr)
