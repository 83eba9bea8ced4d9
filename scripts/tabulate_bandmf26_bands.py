"""Snakemake script: bandmf26_bands' table (Parquet, CSV): certified points and references, Monte Carlo points."""

import sys

from dpsampling.io import read_table, write_table, write_text_atomically
from dpsampling.papers.bandmf26 import bands

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
seed = snakemake.params.seed
monte_carlo = [read_table(path, bands.monte_carlo_parameters(spec, seed, sampler))[0]  # refuses another version
               for path, sampler in zip(snakemake.input.points, bands.MONTE_CARLO_SAMPLERS, strict=True)]
frame = bands.eps_table(spec, monte_carlo, progress=lambda m: print(f"[bandmf26_bands] {m}", file=sys.stderr))
write_table(frame, snakemake.output.parquet, {"experiment": bands.EXPERIMENT_ID, "spec": spec,
                                              "seed": seed})
write_text_atomically(snakemake.output.csv, frame.to_csv(index=False))
