# lebeda24: Avoiding Pitfalls for Privacy Accounting of Subsampled Mechanisms under Composition.
# Laplace Monte Carlo (sharded, cached), exact curves, Gaussian PLD accounting, claims inputs. What each
# experiment computes, its plot and claims: its module dpsampling.papers.lebeda24.<name>.

from dpsampling.papers.lebeda24 import addremove as lebeda24_addremove
from dpsampling.papers.lebeda24 import sigma_vs_rate as lebeda24_sigma_vs_rate
from dpsampling.papers.registry import load_experiment

LEBEDA24 = config["lebeda24"]
LEBEDA24_ADDREMOVE = LEBEDA24["addremove"]


rule sample_lebeda24_losses:
    """One shard of N_i draws of the k-fold subsampled Laplace privacy loss (App. B.2); a
    finished shard is never recomputed (its seed depends on its identity only)."""
    output:
        "results/lebeda24_addremove/samples/{sampler}/{direction}/k{k}/shard-{shard}.parquet",
    wildcard_constraints:
        sampler="poisson|wor",
        direction="remove|add",
        k="[0-9]+",
        shard="[0-9]+",
    params:
        sampling=lebeda24_addremove.shard_parameters_of(config),
    log:
        "logs/lebeda24_addremove/sample_{sampler}_{direction}_k{k}_shard{shard}.log",
    benchmark:
        "benchmarks/lebeda24_addremove/sample_{sampler}_{direction}_k{k}_shard{shard}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/sample_lebeda24_losses.py"


rule merge_lebeda24_losses:
    """Monte Carlo delta(eps) of every curve from its cached shards, with Hoeffding bands (and the
    exact value next to it for k <= 2)."""
    input:
        shards=lebeda24_addremove.shard_files(config, LEBEDA24_ADDREMOVE["compositions"]),
        exact="results/lebeda24_addremove/delta_exact.parquet",
        code=code_of("scripts/merge_lebeda24_losses.py"),
    output:
        "results/lebeda24_addremove/delta_mc.parquet",
    params:
        spec=LEBEDA24_ADDREMOVE,
        seed=config["seed"],
    log:
        "logs/lebeda24_addremove/merge.log",
    benchmark:
        "benchmarks/lebeda24_addremove/merge.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/merge_lebeda24_losses.py"


rule compute_lebeda24_exact:
    """Exact add/remove curves for k <= 2, and the paper's N against its formula."""
    input:
        code=code_of("scripts/compute_lebeda24_exact.py"),
    output:
        exact="results/lebeda24_addremove/delta_exact.parquet",
        sample_size="results/lebeda24_addremove/sample_size.parquet",
    params:
        spec=LEBEDA24_ADDREMOVE,
    log:
        "logs/lebeda24_addremove/exact.log",
    benchmark:
        "benchmarks/lebeda24_addremove/exact.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_lebeda24_exact.py"


rule compute_lebeda24_pld_cdf:
    """ICLR Fig. 2: exact single-step PLD CDFs with their atoms, empirical k-fold CDFs."""
    input:
        shards=lebeda24_addremove.shard_files(config, LEBEDA24["pld_cdf"]["compositions"]),
        code=code_of("scripts/compute_lebeda24_pld_cdf.py"),
    output:
        cdf="results/lebeda24_pld_cdf/cdf.parquet",
        atoms="results/lebeda24_pld_cdf/atoms.parquet",
    params:
        spec=LEBEDA24["pld_cdf"],
        addremove=LEBEDA24_ADDREMOVE,
        seed=config["seed"],
    log:
        "logs/lebeda24_pld_cdf/compute.log",
    benchmark:
        "benchmarks/lebeda24_pld_cdf/compute.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_lebeda24_pld_cdf.py"


rule calibrate_lebeda24_sigma:
    """One curve of Fig. 2: smallest sigma for (eps, delta) at every sampling rate."""
    input:
        code=code_of("scripts/calibrate_lebeda24_sigma.py"),
    output:
        "results/lebeda24_sigma_vs_rate/curves/{sampler}_eps{epsilon}.parquet",
    wildcard_constraints:
        sampler="poisson|wor",
        epsilon="[0-9.e+-]+",
    params:
        spec=LEBEDA24["sigma_vs_rate"],
    log:
        "logs/lebeda24_sigma_vs_rate/calibrate_{sampler}_eps{epsilon}.log",
    benchmark:
        "benchmarks/lebeda24_sigma_vs_rate/calibrate_{sampler}_eps{epsilon}.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/calibrate_lebeda24_sigma.py"


rule combine_lebeda24_sigma:
    """The five sigma-vs-rate curves in one table."""
    input:
        curves=lebeda24_sigma_vs_rate.curve_files(config),
        code=code_of("scripts/combine_lebeda24_sigma.py"),
    output:
        "results/lebeda24_sigma_vs_rate/sigma.parquet",
    params:
        spec=LEBEDA24["sigma_vs_rate"],
    log:
        "logs/lebeda24_sigma_vs_rate/combine.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/combine_lebeda24_sigma.py"


rule compute_lebeda24_table1:
    """Table 1 through the library's entry point (Poisson and WOR), next to the paper's values."""
    input:
        code=code_of("scripts/compute_lebeda24_table1.py"),
    output:
        parquet="results/lebeda24_table1/table1.parquet",
        csv="results/lebeda24_table1/table1.csv",
        md="results/lebeda24_table1/table1.md",
    params:
        spec=LEBEDA24["table1"],
    log:
        "logs/lebeda24_table1/compute.log",
    benchmark:
        "benchmarks/lebeda24_table1/compute.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_lebeda24_table1.py"


rule compute_lebeda24_substitution:
    """Section 7, Fig. 3: the three substitution divergences of the WOR Laplace example, exactly."""
    input:
        code=code_of("scripts/compute_lebeda24_substitution.py"),
    output:
        "results/lebeda24_substitution/curves.parquet",
    params:
        spec=LEBEDA24["substitution"],
    log:
        "logs/lebeda24_substitution/compute.log",
    benchmark:
        "benchmarks/lebeda24_substitution/compute.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_lebeda24_substitution.py"


rule compute_lebeda24_subst_gaussian:
    """Appendix D, Fig. 4: WOR Gaussian under substitution (upper, lower, RDP)."""
    input:
        code=code_of("scripts/compute_lebeda24_subst_gaussian.py"),
    output:
        composed="results/lebeda24_subst_gaussian/composed.parquet",
        single_step="results/lebeda24_subst_gaussian/single_step.parquet",
    params:
        spec=LEBEDA24["subst_gaussian"],
    log:
        "logs/lebeda24_subst_gaussian/compute.log",
    benchmark:
        "benchmarks/lebeda24_subst_gaussian/compute.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_lebeda24_subst_gaussian.py"


rule compute_lebeda24_rr:
    """Appendix B.1: randomized response, exact fractions."""
    input:
        code=code_of("scripts/compute_lebeda24_rr.py"),
    output:
        parquet="results/lebeda24_rr/rr.parquet",
        md="results/lebeda24_rr/rr.md",
    params:
        spec=LEBEDA24["rr"],
    log:
        "logs/lebeda24_rr/compute.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/compute_lebeda24_rr.py"


rule search_lebeda24_conj12:
    """Conjecture 12: both directions of the Poisson Gaussian over a grid of (sigma, rate, k, eps)."""
    input:
        code=code_of("scripts/search_lebeda24_conj12.py"),
    output:
        "results/lebeda24_conj12/grid.parquet",
    params:
        spec=LEBEDA24["conj12"],
    log:
        "logs/lebeda24_conj12/search.log",
    benchmark:
        "benchmarks/lebeda24_conj12/search.tsv"
    priority: LONG_JOB_PRIORITY
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/search_lebeda24_conj12.py"


rule plot_lebeda24:
    """One lebeda24 figure (PDF and PNG) from its Parquet tables; never recomputes."""
    input:
        unpack(lambda wildcards: load_experiment(wildcards.experiment).PLOT_INPUTS),
        code=code_of_experiment("scripts/plot_lebeda24.py"),
    output:
        pdf="figures/{experiment}.pdf",
        png=report("figures/{experiment}.png", caption="../report/lebeda24.rst", category="lebeda24",
                   subcategory="{experiment}"),
    wildcard_constraints:
        experiment=wildcard("lebeda24_figure"),
    params:
        module=experiment_module,
        summary=experiment_summary,  # the caption's parameters and verdicts (dpsampling.pipeline.report)
    log:
        "logs/{experiment}/plot.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/plot_lebeda24.py"
