"""Snakemake script: combine the Fig. 1 panels and flag each point's selected learning rate."""

import sys

from dpsampling.io import read_table, write_table
from dpsampling.papers.chua25.utility import combine_runs

sys.stderr = open(snakemake.log[0], "w", buffering=1)
tables = [read_table(path, snakemake.params.expected) for path in snakemake.input.runs]
parameters = dict(tables[0][1]["parameters"], panels=[t[1]["parameters"]["panel"] for t in tables])
parameters.pop("panel")
write_table(combine_runs([t[0] for t in tables]), snakemake.output[0], parameters)
