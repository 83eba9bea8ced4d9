"""Snakemake script: check every registered claim; write results/claims.csv and claims.md."""

import sys
from pathlib import Path

from dpsampling.papers.registry import CLAIMS
from dpsampling.pipeline.claims import check_claims, claims_markdown

sys.stderr = open(snakemake.log[0], "w", buffering=1)
table = check_claims(CLAIMS, snakemake.params.results_dir)
for output, text in ((snakemake.output.csv, table.to_csv(index=False)), (snakemake.output.md, claims_markdown(table))):
    tmp = Path(output).with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(output)
print(table["verdict"].value_counts().to_string(), file=sys.stderr)
