"""Snakemake script: every sigma-vs-rate curve in one table."""

import sys

import pandas as pd

from dpsampling.io import read_table, write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
frames = [read_table(path, {"spec": spec})[0] for path in snakemake.input.curves]
write_table(pd.concat(frames, ignore_index=True), snakemake.output[0],
            {"experiment": "lebeda24_sigma_vs_rate", "spec": spec})
