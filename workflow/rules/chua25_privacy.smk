# chua25 privacy (Figs. 2-4, epochs, properties, truncation table, B vs P): sharded Monte Carlo of
# the balls-and-bins privacy loss, merged at every eps, next to deterministic bounds. What each
# experiment samples, its curves, plot and claims: its module dpsampling.papers.chua25.<name>.
#   sample (one shard per experiment, panel, direction, series, shard; never recomputed when done)
#   -> merge (every eps of the grid, shards pooled exactly) -> summary (with the bounds) -> plot


from dpsampling.papers.chua25.samples import config_problems
from dpsampling.papers.chua25.rules import chua25_privacy_functions

if config_problems(config["chua25"]):  # e.g. orders outside [1, T - 1]: stop before any job runs
    sys.exit("Invalid configuration, nothing was run:\n" + "\n".join(config_problems(config["chua25"])))
CHUA25_PRIVACY = chua25_privacy_functions(config)
# device (config, checked in the Snakefile): on cuda the sampling rule is named sample_chua25_losses_gpu
# and asks for one GPU (resources gpu=1), so that a profile can send it to a GPU partition; its params
# (the shard's identity) are the same on every device, so switching device reruns nothing.
CHUA25_ON_GPU = config.get("device", "cpu") == "cuda"
CHUA25_SAMPLING_RULE = "sample_chua25_losses_gpu" if CHUA25_ON_GPU else "sample_chua25_losses"
CHUA25_GPU = {"gpu": 1} if CHUA25_ON_GPU else {}
CHUA25_MONTE_CARLO = wildcard("chua25_monte_carlo")  # experiment modules papers/chua25/<name>.py (the registry)
CHUA25_FIGURES = wildcard("chua25_privacy_figure")


rule:
    """One shard of privacy-loss samples of (P_B, Q_B), or their statistics, for one sample set (see dpsampling.papers.chua25.samples)."""
    name:
        CHUA25_SAMPLING_RULE
    output:
        "results/{experiment}/samples/{panel}/{direction}/{series}/shard-{shard}.parquet",
    wildcard_constraints:
        experiment=CHUA25_MONTE_CARLO,
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
        **CHUA25_GPU,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/sample_chua25_losses.py"


rule merge_chua25_delta:
    """Every eps of the grid on the cached shards (pooled exactly): results/<experiment>/delta.parquet."""
    input:
        shards=CHUA25_PRIVACY.shards,
        code=code_of("scripts/merge_chua25_delta.py"),
    output:
        "results/{experiment}/delta.parquet",
    wildcard_constraints:
        experiment=CHUA25_MONTE_CARLO,
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
        code=code_of_experiment("scripts/compute_chua25_bounds.py"),
    output:
        "results/{experiment}/bounds.parquet",
    wildcard_constraints:
        experiment=CHUA25_MONTE_CARLO,
    params:
        module=experiment_module,
        bounds=CHUA25_PRIVACY.bounds_parameters,
    log:
        "logs/{experiment}/compute_bounds.log",
    benchmark:
        "benchmarks/{experiment}/compute_bounds.tsv"
    priority: LONG_JOB_PRIORITY
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
        code=code_of("scripts/summarize_chua25_privacy.py"),
    output:
        "results/{experiment}/summary.parquet",
    wildcard_constraints:
        experiment=CHUA25_MONTE_CARLO,
    log:
        "logs/{experiment}/summarize.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/summarize_chua25_privacy.py"


rule time_chua25_samplers:
    """The timing claims' CPU-time ratios: both samplers interleaved over repeats in one process (chua25 timing.py)."""
    input:
        code=code_of_experiment("scripts/time_chua25_samplers.py"),
    output:
        "results/{experiment}/timing.parquet",
    wildcard_constraints:
        experiment=wildcard("chua25_timing"),
    params:
        module=experiment_module,
        spec=lambda wildcards: config["chua25"][wildcards.experiment.split("_", 1)[1]],
    log:
        "logs/{experiment}/timing.log",
    benchmark:
        "benchmarks/{experiment}/timing.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/time_chua25_samplers.py"


rule plot_chua25_privacy:
    """One chua25 privacy figure (PDF and PNG) from its summary table; never recomputes."""
    input:
        "results/{experiment}/summary.parquet",
        code=code_of_experiment("scripts/plot_chua25_privacy.py"),
    output:
        pdf="figures/{experiment}.pdf",
        png=report("figures/{experiment}.png", caption="../report/chua25_privacy.rst", category="chua25"),
    wildcard_constraints:
        experiment=CHUA25_FIGURES,
    params:
        module=experiment_module,
        summary=experiment_summary,  # the caption's message and verdicts (dpsampling.pipeline.report)
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
        code=code_of("scripts/check_chua25_props.py"),
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
        code=code_of("scripts/compute_chua25_trunc.py"),
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


rule compute_chua25_b_vs_p:
    """Beyond the paper: certified B bounds against P's PLD bounds on a (sigma, T, eps) grid."""
    input:
        code=code_of("scripts/compute_chua25_b_vs_p.py"),
    output:
        table="results/chua25_b_vs_p/grid.parquet",
        markdown="results/chua25_b_vs_p/grid.md",
    params:
        grid=CHUA25_PRIVACY.b_vs_p_parameters,
    log:
        "logs/chua25_b_vs_p/compute.log",
    benchmark:
        "benchmarks/chua25_b_vs_p/compute.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_chua25_b_vs_p.py"


rule plot_chua25_b_vs_p:
    """The chua25_b_vs_p map (one panel per sigma and epoch count) from its grid table."""
    input:
        table="results/chua25_b_vs_p/grid.parquet",
        code=code_of("scripts/plot_chua25_b_vs_p.py"),
    output:
        pdf="figures/chua25_b_vs_p.pdf",
        png=report("figures/chua25_b_vs_p.png", caption="../report/chua25_b_vs_p.rst", category="chua25"),
    params:
        summary=experiment_summary,  # the caption's message and verdicts (dpsampling.pipeline.report)
    log:
        "logs/chua25_b_vs_p/plot.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/plot_chua25_b_vs_p.py"
