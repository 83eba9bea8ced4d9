"""Snakemake script: the truncation table of chua25 App. C (Parquet, CSV, Markdown)."""

import sys

from dpsampling.io import write_table, write_text_atomically
from dpsampling.papers.chua25.trunc import truncation_markdown, truncation_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
table = truncation_table(spec)
write_table(table, snakemake.output.table, spec)
for output, text in ((snakemake.output.csv, table.to_csv(index=False)), (snakemake.output.markdown, truncation_markdown(table))):
    write_text_atomically(output, text)
print(table.to_string(), file=sys.stderr)
