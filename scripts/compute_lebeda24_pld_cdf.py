"""Snakemake script: exact single-step PLD CDFs and atoms, empirical k-fold CDFs from the shards."""

import sys

from dpsampling.io import write_table
from dpsampling.papers.lebeda24 import pld_cdf
from dpsampling.papers.lebeda24.shards import read_curve

sys.stderr = open(snakemake.log[0], "w", buffering=1)
spec, addremove, seed = dict(snakemake.params.spec), dict(snakemake.params.addremove), snakemake.params.seed
curves = {}
for sampler in addremove["samplers"]:
    for direction in ("remove", "add"):
        for k in spec["compositions"]:
            paths = [p for p in snakemake.input.shards if f"/{sampler}/{direction}/k{k}/" in p]
            paths.sort(key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
            curves[(sampler, direction, k)] = read_curve(paths, addremove, seed, "lebeda24_addremove", sampler, direction, k)
cdf, atoms = pld_cdf.pld_cdf(spec, addremove, curves)
parameters = {"experiment": "lebeda24_pld_cdf", "spec": spec, "addremove": addremove, "seed": seed}
write_table(cdf, snakemake.output.cdf, parameters)
write_table(atoms, snakemake.output.atoms, parameters)
print(atoms.to_string(), file=sys.stderr)
