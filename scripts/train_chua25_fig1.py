"""Snakemake script: train every run of one chua25 Fig. 1 panel."""

import sys

import numba

from dpsampling.experiments.chua25_utility import run_panel
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
numba.set_num_threads(snakemake.threads)  # noqa: F821
panel = snakemake.wildcards.panel  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
frame = run_panel(panel, spec, snakemake.params.seed, lambda m: print(m, file=sys.stderr))  # noqa: F821
write_table(frame, snakemake.output[0], {"experiment": "chua25_fig1", "panel": panel, "spec": spec,  # noqa: F821
                                          "seed": snakemake.params.seed})  # noqa: F821
