"""Snakemake script: write results/REPORT.md from the claims table and every result present."""

import sys

import pandas as pd

from dpsampling.papers.messages import MESSAGES
from dpsampling.pipeline.report import write_report

sys.stderr = open(snakemake.log[0], "w", buffering=1)
path = write_report(snakemake.output[0], root=".", targets=dict(snakemake.params.targets),
                    claims=pd.read_csv(snakemake.input.claims), configfiles=list(snakemake.params.configfiles), messages=MESSAGES)
print(f"wrote {path}", file=sys.stderr)
