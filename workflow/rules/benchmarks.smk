# Throughput benchmark (issue 3, item 6): our balls-and-bins estimators against the authors'
# implementation (random-allocation's BnBAccountant) on identical work. Not part of `rule all`;
# run `snakemake --cores all benchmarks` (about half an hour on 2 cores with the reference
# installed: pip install --no-deps random-allocation==1.0.5; see docs/BENCHMARKS.md).


rule mc_throughput:
    """Median times of ours and the reference per case, with an agreement check of both."""
    input:
        code=code_of("scripts/benchmark_mc_throughput.py"),
    output:
        csv="results/benchmarks/mc_throughput.csv",
        json="results/benchmarks/mc_throughput.json",
    params:
        repeats=3,
    log:
        "logs/benchmarks/mc_throughput.log",
    benchmark:
        "benchmarks/benchmarks/mc_throughput.tsv"
    threads: 2
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/benchmark_mc_throughput.py"


rule benchmarks:
    input:
        rules.mc_throughput.output,
