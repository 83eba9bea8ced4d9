"""Snakemake script: lebeda24 Table 1 (eps of Poisson vs WOR) as Parquet, CSV and Markdown."""

import sys

from dpsampling.io import write_table, write_text_atomically
from dpsampling.papers.lebeda24 import table1

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
frame = table1.table1(spec, progress=lambda m: print(f"[lebeda24_table1] {m}", file=sys.stderr))
write_table(frame, snakemake.output.parquet, {"experiment": "lebeda24_table1", "spec": spec})
for output, text in ((snakemake.output.csv, frame.to_csv(index=False)),
                     (snakemake.output.md, table1.table1_markdown(frame))):
    write_text_atomically(output, text)
