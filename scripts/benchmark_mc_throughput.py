"""Snakemake script: time our balls-and-bins estimators against the reference implementation."""

import sys

import numba

from dpsampling.benchmark import CASES, load_reference, run_benchmark, write_outputs

sys.stderr = open(snakemake.log[0], "w", buffering=1)
numba.set_num_threads(snakemake.threads)


def log(message):
    print(message, file=sys.stderr)


reference, reason = load_reference()
if reference is None:
    log(reason)
table, document = run_benchmark(CASES, repeats=snakemake.params.repeats, reference=reference,
                                measure_compile=True, log=log)
document["command"] = "snakemake --cores all benchmarks"
write_outputs(table, document, snakemake.output.csv, snakemake.output.json)
log(table.to_string(index=False))
