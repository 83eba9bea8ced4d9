# chua24: How Private are DP-SGD Implementations? -- deterministic accountants only.


rule compute_chua24_bounds:
    """Bounds of D, P and S for one chua24 experiment, as a long Parquet table."""
    input:
        code=code_of("scripts/compute_chua24_bounds.py"),
    output:
        "results/{experiment}/bounds.parquet",
    wildcard_constraints:
        experiment="chua24_(fig[1-7]|thm41)",
    params:
        spec=experiment_spec,
        pld=config["pld"],
        shuffle=config["shuffle"],
    log:
        "logs/{experiment}/compute_bounds.log",
    benchmark:
        "benchmarks/{experiment}/compute_bounds.tsv"
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
        code=code_of("scripts/plot_chua24_figure.py"),
    output:
        pdf="figures/{experiment}.pdf",
        png=report("figures/{experiment}.png", caption="../report/chua24_figure.rst", category="chua24",
                   subcategory="{experiment}"),
    wildcard_constraints:
        experiment="chua24_fig[1-7]",
    params:
        summary=experiment_summary,  # the caption's parameters and verdicts (dpsampling.pipeline.report)
        expected=lambda wildcards: {"experiment": wildcards.experiment, "spec": experiment_spec(wildcards)},
    log:
        "logs/{experiment}/plot.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/plot_chua24_figure.py"
