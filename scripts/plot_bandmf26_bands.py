"""Snakemake script: bandmf26_bands' figure from its table (never recomputes)."""

import sys

from dpsampling.io import atomic_paths, read_table
from dpsampling.papers.bandmf26 import bands

sys.stderr = open(snakemake.log[0], "w", buffering=1)
frame, metadata = read_table(snakemake.input.table)
with atomic_paths(snakemake.output.pdf, snakemake.output.png) as (pdf, png):  # never a half-written figure
    bands.plot(frame, metadata["parameters"]["spec"], pdf, png)
