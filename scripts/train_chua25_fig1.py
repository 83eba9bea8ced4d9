"""Snakemake script: train every run of one chua25 Fig. 1 panel."""

import sys

import numba

from dpsampling.io import write_table
from dpsampling.papers.chua25.utility import run_panel

sys.stderr = open(snakemake.log[0], "w", buffering=1)
numba.set_num_threads(snakemake.threads)
panel = snakemake.wildcards.panel
spec = dict(snakemake.params.spec)
frame = run_panel(panel, spec, snakemake.params.seed, lambda m: print(m, file=sys.stderr))
write_table(frame, snakemake.output[0], {"experiment": "chua25_fig1", "panel": panel, "spec": spec,
                                          "seed": snakemake.params.seed,
                                          "algorithm_version": snakemake.params.algorithm_version})
