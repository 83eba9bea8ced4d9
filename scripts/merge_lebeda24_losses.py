"""Snakemake script: Monte Carlo delta(eps) with Hoeffding bands from every cached shard."""

import sys

from dpsampling.io import read_table, write_table
from dpsampling.papers.lebeda24.grids import grid
from dpsampling.papers.lebeda24.shards import merge_curves

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec = dict(snakemake.params.spec)
curves = {}
for path in snakemake.input.shards:
    parts = path.split("/")
    curves.setdefault((parts[-4], parts[-3], int(parts[-2][1:])), []).append(path)
for paths in curves.values():
    paths.sort(key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
frame = merge_curves(curves, spec, snakemake.params.seed, "lebeda24_addremove", grid(spec["epsilon_grid"]),
                     progress=lambda m: print(f"[lebeda24_addremove] {m}", file=sys.stderr))
exact, _ = read_table(snakemake.input.exact, {"spec": spec})
frame = frame.merge(exact[["sampler", "direction", "compositions", "epsilon", "delta_exact"]], how="left",
                    on=["sampler", "direction", "compositions", "epsilon"])
write_table(frame, snakemake.output[0], {"experiment": "lebeda24_addremove", "spec": spec,
                                         "seed": snakemake.params.seed})
