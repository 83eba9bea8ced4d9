# chua25 privacy (Figs. 2-4, epochs, properties, truncation table): sharded Monte Carlo of the
# balls-and-bins privacy loss, merged at every eps, next to deterministic bounds.
#   sample (one shard per experiment, panel, direction, series, shard; never recomputed when done)
#   -> merge (every eps of the grid, shards pooled exactly) -> summary (with the bounds) -> plot


from dpsampling.experiments.chua25_samples import config_problems
from dpsampling.workflow_chua25 import chua25_privacy_functions

if config_problems(config["chua25"]):  # e.g. orders outside [1, T - 1]: stop before any job runs
    sys.exit("Invalid configuration, nothing was run:\n" + "\n".join(config_problems(config["chua25"])))
CHUA25_PRIVACY = chua25_privacy_functions(config)


rule sample_chua25_losses:
    """One shard of privacy-loss samples of (P_B, Q_B) for one sample set (see experiments/chua25_samples)."""
    input:
        code=package_sources("ballsbins/_kernels", "ballsbins/_random", "ballsbins/sampling", "ballsbins/importance",
                             "ballsbins/orders", "experiments/chua25_samples", "io"),
    output:
        "results/{experiment}/samples/{panel}/{direction}/{series}/shard-{shard}.parquet",
    wildcard_constraints:
        experiment="chua25_(fig2|fig3|fig4|epochs|props)",
        panel="[A-Za-z0-9_.]+",
        direction="remove|add",
        series="[A-Za-z0-9_.]+",
        shard="[0-9]+",
    params:
        sampling=CHUA25_PRIVACY.shard_parameters,
    log:
        "logs/{experiment}/samples/{panel}/{direction}/{series}/shard-{shard}.log",
    benchmark:
        "benchmarks/{experiment}/samples/{panel}/{direction}/{series}/shard-{shard}.tsv"
    threads: 1
    resources:
        mem_mb=CHUA25_PRIVACY.shard_memory,
        runtime=60,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/sample_chua25_losses.py"


rule merge_chua25_delta:
    """Every eps of the grid on the cached shards (pooled exactly): results/<experiment>/delta.parquet."""
    input:
        shards=CHUA25_PRIVACY.shards,
        code=package_sources("ballsbins", "experiments/chua25_samples", "experiments/chua25_privacy", "io"),
    output:
        "results/{experiment}/delta.parquet",
    wildcard_constraints:
        experiment="chua25_(fig2|fig3|fig4|epochs|props)",
    params:
        merge=CHUA25_PRIVACY.merge_parameters,
    log:
        "logs/{experiment}/merge_delta.log",
    benchmark:
        "benchmarks/{experiment}/merge_delta.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/merge_chua25_delta.py"


rule compute_chua25_bounds:
    """Deterministic curves (PLD of P, E_C lower bound of S, delta_D, bound (6) of B) at every eps."""
    input:
        code=package_sources("accountants", "ballsbins", "experiments/chua25_privacy", "io"),
    output:
        "results/{experiment}/bounds.parquet",
    wildcard_constraints:
        experiment="chua25_(fig2|fig3|fig4|epochs|props)",
    params:
        bounds=CHUA25_PRIVACY.bounds_parameters,
    log:
        "logs/{experiment}/compute_bounds.log",
    benchmark:
        "benchmarks/{experiment}/compute_bounds.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_chua25_bounds.py"


rule summarize_chua25_privacy:
    """Bounds and Monte Carlo rows in one long table (what plots and claims read)."""
    input:
        delta="results/{experiment}/delta.parquet",
        bounds="results/{experiment}/bounds.parquet",
        code=package_sources("experiments/chua25_privacy", "io"),
    output:
        "results/{experiment}/summary.parquet",
    wildcard_constraints:
        experiment="chua25_(fig2|fig3|fig4|epochs|props)",
    log:
        "logs/{experiment}/summarize.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/summarize_chua25_privacy.py"


rule plot_chua25_privacy:
    """One chua25 privacy figure (PDF and PNG) from its summary table; never recomputes."""
    input:
        "results/{experiment}/summary.parquet",
        code=package_sources("plotting", "plotting_chua25"),
    output:
        pdf="figures/{experiment}.pdf",
        png=report("figures/{experiment}.png", caption="../report/chua25_privacy.rst", category="chua25"),
    wildcard_constraints:
        experiment="chua25_(fig2|fig3|fig4|epochs)",
    log:
        "logs/{experiment}/plot.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/plot_chua25_privacy.py"


rule check_chua25_props:
    """Prop. 3.3, Thm 3.4 and lower <= mean <= UCB on the chua25_props grid, as a table."""
    input:
        summary="results/chua25_props/summary.parquet",
        delta="results/chua25_props/delta.parquet",
        code=package_sources("ballsbins", "experiments/chua25_checks", "io"),
    output:
        table="results/chua25_props/checks.parquet",
        markdown="results/chua25_props/checks.md",
    log:
        "logs/chua25_props/checks.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/check_chua25_props.py"


rule compute_chua25_trunc:
    """chua25 App. C: max batch size B per dataset size and expected batch size."""
    input:
        code=package_sources("accountants/truncation", "experiments/chua25_checks", "io"),
    output:
        table="results/chua25_trunc/table.parquet",
        csv="results/chua25_trunc/table.csv",
        markdown="results/chua25_trunc/table.md",
    params:
        spec=config["chua25"]["trunc"],
    log:
        "logs/chua25_trunc/compute.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_chua25_trunc.py"


rule chua25_fig2:
    input:
        "results/chua25_fig2/summary.parquet",
        "figures/chua25_fig2.pdf",
        "figures/chua25_fig2.png",


rule chua25_fig3:
    input:
        "results/chua25_fig3/summary.parquet",
        "figures/chua25_fig3.pdf",
        "figures/chua25_fig3.png",


rule chua25_fig4:
    input:
        "results/chua25_fig4/summary.parquet",
        "figures/chua25_fig4.pdf",
        "figures/chua25_fig4.png",


rule chua25_epochs:
    input:
        "results/chua25_epochs/summary.parquet",
        "figures/chua25_epochs.pdf",
        "figures/chua25_epochs.png",


rule chua25_props:
    input:
        "results/chua25_props/checks.parquet",
        "results/chua25_props/checks.md",


rule chua25_trunc:
    input:
        "results/chua25_trunc/table.parquet",
        "results/chua25_trunc/table.csv",
        "results/chua25_trunc/table.md",


rule chua25:
    """Every chua25 experiment: Fig. 1 (utility), Figs. 2-4, epochs, properties, truncation."""
    input:
        rules.chua25_fig1.input,
        rules.chua25_fig2.input,
        rules.chua25_fig3.input,
        rules.chua25_fig4.input,
        rules.chua25_epochs.input,
        rules.chua25_props.input,
        rules.chua25_trunc.input,
