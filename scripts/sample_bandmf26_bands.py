"""Snakemake script: the Monte Carlo eps points of one sampler of bandmf26_bands (cached by its parameters)."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.bandmf26 import bands

sys.stderr = open(snakemake.log[0], "w", buffering=1)
parameters = dict(snakemake.params.parameters)
frame = bands.monte_carlo_points(parameters, progress=lambda m: print(f"[bandmf26_bands] {m}", file=sys.stderr))
write_table(frame, snakemake.output[0], parameters)
