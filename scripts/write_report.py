"""Snakemake script: write results/REPORT.md from the claims table and every result present."""

import sys

import pandas as pd

from dpsampling.report import write_report

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
path = write_report(snakemake.output[0], root=".", targets=dict(snakemake.params.targets),  # noqa: F821
                    claims=pd.read_csv(snakemake.input.claims), configfiles=list(snakemake.params.configfiles))  # noqa: F821
print(f"wrote {path}", file=sys.stderr)
