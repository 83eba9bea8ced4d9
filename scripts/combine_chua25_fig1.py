"""Snakemake script: combine the Fig. 1 panels and flag each point's selected learning rate."""

import sys

from dpsampling.experiments.chua25_utility import combine_runs
from dpsampling.io import read_table, write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
tables = [read_table(path) for path in snakemake.input]  # noqa: F821
parameters = dict(tables[0][1]["parameters"], panels=[t[1]["parameters"]["panel"] for t in tables])
parameters.pop("panel")
write_table(combine_runs([t[0] for t in tables]), snakemake.output[0], parameters)  # noqa: F821
