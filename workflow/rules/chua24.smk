# chua24: How Private are DP-SGD Implementations? -- deterministic accountants only.


rule compute_chua24_bounds:
    """Bounds of D, P and S for one chua24 experiment, as a long Parquet table."""
    input:
        code=package_sources("accountants", "accounting", "experiments/chua24", "io"),
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
        code=package_sources("plotting"),
    output:
        pdf="figures/{experiment}.pdf",
        png=report("figures/{experiment}.png", caption="../report/chua24_figure.rst", category="chua24",
                   subcategory="{experiment}"),
    wildcard_constraints:
        experiment="chua24_fig[1-7]",
    params:
        summary=experiment_summary,  # the caption's parameters and verdicts (dpsampling.report)
        expected=lambda wildcards: {"experiment": wildcards.experiment, "spec": experiment_spec(wildcards)},
    log:
        "logs/{experiment}/plot.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/plot_chua24_figure.py"


rule chua24_fig1:
    input:
        "results/chua24_fig1/bounds.parquet",
        "figures/chua24_fig1.pdf",
        "figures/chua24_fig1.png",


rule chua24_fig2:
    input:
        "results/chua24_fig2/bounds.parquet",
        "figures/chua24_fig2.pdf",
        "figures/chua24_fig2.png",


rule chua24_fig3:
    input:
        "results/chua24_fig3/bounds.parquet",
        "figures/chua24_fig3.pdf",
        "figures/chua24_fig3.png",


rule chua24_fig4:
    input:
        "results/chua24_fig4/bounds.parquet",
        "figures/chua24_fig4.pdf",
        "figures/chua24_fig4.png",


rule chua24_fig5:
    input:
        "results/chua24_fig5/bounds.parquet",
        "figures/chua24_fig5.pdf",
        "figures/chua24_fig5.png",


rule chua24_fig6:
    input:
        "results/chua24_fig6/bounds.parquet",
        "figures/chua24_fig6.pdf",
        "figures/chua24_fig6.png",


rule chua24_fig7:
    input:
        "results/chua24_fig7/bounds.parquet",
        "figures/chua24_fig7.pdf",
        "figures/chua24_fig7.png",


rule chua24_thm41:
    input:
        "results/chua24_thm41/bounds.parquet",


rule chua24:
    """Every chua24 figure and check."""
    input:
        rules.chua24_fig1.input,
        rules.chua24_fig2.input,
        rules.chua24_fig3.input,
        rules.chua24_fig4.input,
        rules.chua24_fig5.input,
        rules.chua24_fig6.input,
        rules.chua24_fig7.input,
        rules.chua24_thm41.input,
