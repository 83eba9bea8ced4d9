# chua25 Fig. 1: what each batch sampler costs in model quality.
from dpsampling.papers.chua25.fig1 import panels as chua25_fig1_panels
from dpsampling.versions import algorithm_version


rule train_chua25_fig1:
    """All runs (generators x settings x learning rates x seeds) of one panel of Fig. 1."""
    output:
        "results/chua25_fig1/runs_{panel}.parquet",
    wildcard_constraints:
        panel="nonprivate|dp_b[0-9]+",
    params:
        spec=config["chua25"]["fig1"],
        seed=config["seed"],
        algorithm_version=algorithm_version("training.dpsgd"),
    log:
        "logs/chua25_fig1/train_{panel}.log",
    benchmark:
        "benchmarks/chua25_fig1/train_{panel}.tsv"
    priority: LONG_JOB_PRIORITY
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/train_chua25_fig1.py"


rule combine_chua25_fig1:
    """Every run of Fig. 1 in one table, the selected learning rate of each point flagged."""
    input:
        runs=expand("results/chua25_fig1/runs_{panel}.parquet", panel=chua25_fig1_panels(config)),
        code=code_of("scripts/combine_chua25_fig1.py"),
    output:
        "results/chua25_fig1/auc.parquet",
    params:
        expected={"spec": config["chua25"]["fig1"], "seed": config["seed"],
                  "algorithm_version": algorithm_version("training.dpsgd")},
    log:
        "logs/chua25_fig1/combine.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/combine_chua25_fig1.py"


rule plot_chua25_fig1:
    input:
        "results/chua25_fig1/auc.parquet",
        code=code_of("scripts/plot_chua25_fig1.py"),
    output:
        pdf="figures/chua25_fig1.pdf",
        png=report("figures/chua25_fig1.png", caption="../report/chua25_fig1.rst", category="chua25"),
    params:
        summary=experiment_summary,  # the caption's parameters and verdicts (dpsampling.pipeline.report)
        expected={"experiment": "chua25_fig1", "spec": config["chua25"]["fig1"]},
    log:
        "logs/chua25_fig1/plot.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/plot_chua25_fig1.py"
