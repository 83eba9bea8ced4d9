# bandmf26: this project's extension (issue 44), not a paper: banded DP-MF under balls-and-bins,
# cyclic Poisson and b-min-sep. What it computes, its plot and claims: dpsampling.papers.bandmf26.bands.

from dpsampling.papers.bandmf26 import bands as bandmf26_bands

BANDMF26_BANDS = config["bandmf26"]["bands"]


rule sample_bandmf26_bands:
    """Monte Carlo eps interval of one sampler at every b; cached: recomputed only when its
    parameters (setting, samples, beta, eps grid, seed) or the matrix.monte_carlo version change."""
    output:
        "results/bandmf26_bands/points/{sampler}.parquet",
    wildcard_constraints:
        sampler="|".join(bandmf26_bands.MONTE_CARLO_SAMPLERS),
    params:
        parameters=lambda wildcards: bandmf26_bands.monte_carlo_parameters(BANDMF26_BANDS, config["seed"],
                                                                           wildcards.sampler),
    log:
        "logs/bandmf26_bands/sample_{sampler}.log",
    benchmark:
        "benchmarks/bandmf26_bands/sample_{sampler}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/sample_bandmf26_bands.py"


rule tabulate_bandmf26_bands:
    """eps against b: the certified points (engine via a reduction) and references, and the Monte Carlo points."""
    input:
        points=expand("results/bandmf26_bands/points/{sampler}.parquet",
                      sampler=bandmf26_bands.MONTE_CARLO_SAMPLERS),
        code=code_of("scripts/tabulate_bandmf26_bands.py"),
    output:
        parquet="results/bandmf26_bands/eps.parquet",
        csv="results/bandmf26_bands/eps.csv",
    params:
        spec=BANDMF26_BANDS,
        seed=config["seed"],
    log:
        "logs/bandmf26_bands/tabulate.log",
    benchmark:
        "benchmarks/bandmf26_bands/tabulate.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/tabulate_bandmf26_bands.py"


rule plot_bandmf26_bands:
    """The figure (PDF and PNG) from the table; never recomputes."""
    input:
        table="results/bandmf26_bands/eps.parquet",
        code=code_of("scripts/plot_bandmf26_bands.py"),
    output:
        pdf="figures/bandmf26_bands.pdf",
        png=report("figures/bandmf26_bands.png", caption="../report/bandmf26.rst", category="bandmf26",
                   subcategory="bandmf26_bands"),
    params:
        summary=experiment_summary,  # the caption's message and verdicts (dpsampling.pipeline.report)
    log:
        "logs/bandmf26_bands/plot.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/plot_bandmf26_bands.py"
