"""Snakemake script: compute one chua24 experiment's bounds table (its module's ``compute``)."""

import sys
from importlib import import_module

from dpsampling.io import write_table

sys.stderr = open(snakemake.log[0], "w", buffering=1)
experiment = snakemake.wildcards.experiment
module = import_module(snakemake.params.module)  # dpsampling.papers.chua24.<name>
spec = dict(snakemake.params.spec)
settings = {"pld": dict(snakemake.params.pld)}


def progress(message):
    print(f"[{experiment}] {message}", file=sys.stderr)


frame = module.compute(spec, settings, progress)
write_table(frame, snakemake.output[0], {"experiment": experiment, "kind": module.KIND, "spec": spec, **settings})
progress(f"wrote {len(frame)} rows")
