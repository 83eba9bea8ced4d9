# chua24: How Private are DP-SGD Implementations? -- deterministic accountants only. Each experiment
# is a module dpsampling.papers.chua24.<name> (its curves, plot and claims); these rules call it.


rule compute_chua24_bounds:
    """Bounds of D, P and S for one chua24 experiment, as a long Parquet table."""
    input:
        code=code_of_experiment("scripts/compute_chua24_bounds.py"),
    output:
        "results/{experiment}/bounds.parquet",
    wildcard_constraints:
        experiment=wildcard("chua24_bounds"),
    params:
        module=experiment_module,
        spec=experiment_spec,
        pld=config["pld"],
    log:
        "logs/{experiment}/compute_bounds.log",
    benchmark:
        "benchmarks/{experiment}/compute_bounds.tsv"
    priority: LONG_JOB_PRIORITY
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_chua24_bounds.py"


rule plot_chua24_figure:
    """One chua24 figure (PDF and PNG) from its Parquet table; never recomputes."""
    input:
        "results/{experiment}/bounds.parquet",
        code=code_of_experiment("scripts/plot_chua24_figure.py"),
    output:
        pdf="figures/{experiment}.pdf",
        png=report("figures/{experiment}.png", caption="../report/chua24_figure.rst", category="chua24",
                   subcategory="{experiment}"),
    wildcard_constraints:
        experiment=wildcard("chua24_figure"),
    params:
        module=experiment_module,
        summary=experiment_summary,  # the caption's parameters and verdicts (dpsampling.pipeline.report)
        expected=lambda wildcards: {"experiment": wildcards.experiment, "spec": experiment_spec(wildcards)},
    log:
        "logs/{experiment}/plot.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/plot_chua24_figure.py"
