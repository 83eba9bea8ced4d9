"""Snakemake script: check every registered claim; write results/claims.csv and claims.md."""

import sys
from pathlib import Path

from dpsampling.claims import check_claims, claims_markdown

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
table = check_claims(snakemake.params.results_dir)  # noqa: F821
for output, text in ((snakemake.output.csv, table.to_csv(index=False)), (snakemake.output.md, claims_markdown(table))):  # noqa: F821
    tmp = Path(output).with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(output)
print(table["verdict"].value_counts().to_string(), file=sys.stderr)
