"""Snakemake script: Monte Carlo delta(eps) with Hoeffding bands from every cached shard."""

import sys

from dpsampling.experiments.lebeda24 import grid
from dpsampling.io import read_table, write_table
from dpsampling.lebeda.shards import merge_curves

sys.stderr = open(snakemake.log[0], "w", buffering=1)  # noqa: F821
spec = dict(snakemake.params.spec)  # noqa: F821
curves = {}
for path in snakemake.input.shards:  # noqa: F821 (.../samples/<sampler>/<direction>/k<k>/shard-<i>.parquet)
    parts = path.split("/")
    curves.setdefault((parts[-4], parts[-3], int(parts[-2][1:])), []).append(path)
for paths in curves.values():
    paths.sort(key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
frame = merge_curves(curves, spec, snakemake.params.seed, "lebeda24_addremove", grid(spec["epsilon_grid"]),  # noqa: F821
                     progress=lambda m: print(f"[lebeda24_addremove] {m}", file=sys.stderr))
exact, _ = read_table(snakemake.input.exact, {"spec": spec})  # noqa: F821 (k <= 2: delta_exact next to the MC)
frame = frame.merge(exact[["sampler", "direction", "compositions", "epsilon", "delta_exact"]], how="left",
                    on=["sampler", "direction", "compositions", "epsilon"])
write_table(frame, snakemake.output[0], {"experiment": "lebeda24_addremove", "spec": spec,  # noqa: F821
                                         "seed": snakemake.params.seed})  # noqa: F821
