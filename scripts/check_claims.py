"""Snakemake script: check every registered claim; write results/claims.csv and claims.md."""

import sys

from dpsampling.io import write_text_atomically
from dpsampling.papers.registry import CLAIMS
from dpsampling.pipeline.claims import check_claims, claims_markdown

sys.stderr = open(snakemake.log[0], "w", buffering=1)
table = check_claims(CLAIMS, snakemake.params.results_dir)
for output, text in ((snakemake.output.csv, table.to_csv(index=False)), (snakemake.output.md, claims_markdown(table))):
    write_text_atomically(output, text)
print(table["verdict"].value_counts().to_string(), file=sys.stderr)
