"""Snakemake script: compute one chua24 experiment's bounds table."""

import sys

from dpsampling.experiments import chua24
from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821 (snakemake injects it)
experiment = snakemake.wildcards.experiment  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
settings = {"pld": dict(snakemake.params.pld), "shuffle": dict(snakemake.params.shuffle)}  # noqa: F821
kind = chua24.KIND[experiment.removeprefix("chua24_")]


def progress(message):
    print(f"[{experiment}] {message}", file=sys.stderr)


frame = chua24.COMPUTE[kind](spec, settings, progress)
write_table(frame, snakemake.output[0], {"experiment": experiment, "kind": kind, "spec": spec, **settings})  # noqa: F821
progress(f"wrote {len(frame)} rows")
