"""Snakemake script: compute one chua24 experiment's bounds table."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.chua24 import experiments as chua24

sys.stderr = open(snakemake.log[0], "w", buffering=1)
experiment = snakemake.wildcards.experiment
spec = dict(snakemake.params.spec)
settings = {"pld": dict(snakemake.params.pld), "shuffle": dict(snakemake.params.shuffle)}
kind = chua24.KIND[experiment.removeprefix("chua24_")]


def progress(message):
    print(f"[{experiment}] {message}", file=sys.stderr)


frame = chua24.COMPUTE[kind](spec, settings, progress)
write_table(frame, snakemake.output[0], {"experiment": experiment, "kind": kind, "spec": spec, **settings})
progress(f"wrote {len(frame)} rows")
