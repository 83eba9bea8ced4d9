"""Snakemake script: lebeda24 Table 1 (eps of Poisson vs WOR) as Parquet, CSV and Markdown."""

import sys
from pathlib import Path

from dpsampling.experiments import lebeda24_gaussian
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
frame = lebeda24_gaussian.table1(spec, progress=lambda m: print(f"[lebeda24_table1] {m}", file=sys.stderr))
write_table(frame, snakemake.output.parquet, {"experiment": "lebeda24_table1", "spec": spec})  # noqa: F821
for output, text in ((snakemake.output.csv, frame.to_csv(index=False)),  # noqa: F821
                     (snakemake.output.md, lebeda24_gaussian.table1_markdown(frame))):  # noqa: F821
    tmp = Path(output).with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(output)
