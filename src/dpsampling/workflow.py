"""Helpers for the Snakefile: experiment ids, config blocks and code inputs."""

from __future__ import annotations

from pathlib import Path

CHUA24_FIGURES = ["fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "fig7"]
CHUA24_EXPERIMENTS = [f"chua24_{name}" for name in CHUA24_FIGURES] + ["chua24_thm41"]


def chua25_fig1_panels(config: dict) -> list[str]:
    """Panel ids of chua25 Fig. 1: nonprivate and dp_b<batch> per DP batch size."""
    return ["nonprivate"] + [f"dp_b{b}" for b in config["chua25"]["fig1"]["dp_batch_sizes"]]


def spec_lookup(config: dict):
    """An input function: wildcards.experiment (e.g. chua24_fig3) -> its config block."""

    def experiment_spec(wildcards):
        paper, name = wildcards.experiment.split("_", 1)
        return config[paper][name]

    return experiment_spec


def package_sources(*parts) -> list[str]:
    """Source files of dpsampling modules or subpackages, as rule inputs: editing the library
    code a result depends on reruns that result (Snakemake tracks only the scripts itself)."""
    root = Path(__file__).parent
    files = []
    for part in parts:
        path = root / part
        files += sorted(path.glob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
    return [str(f) for f in files]


# --- lebeda24 -----------------------------------------------------------------------------------
LEBEDA24_RESULTS = {
    "lebeda24_addremove": ["results/lebeda24_addremove/delta_mc.parquet",
                           "results/lebeda24_addremove/delta_exact.parquet",
                           "results/lebeda24_addremove/sample_size.parquet"],
    "lebeda24_pld_cdf": ["results/lebeda24_pld_cdf/cdf.parquet", "results/lebeda24_pld_cdf/atoms.parquet"],
    "lebeda24_sigma_vs_rate": ["results/lebeda24_sigma_vs_rate/sigma.parquet"],
    "lebeda24_table1": ["results/lebeda24_table1/table1.parquet", "results/lebeda24_table1/table1.csv",
                        "results/lebeda24_table1/table1.md"],
    "lebeda24_substitution": ["results/lebeda24_substitution/curves.parquet"],
    "lebeda24_subst_gaussian": ["results/lebeda24_subst_gaussian/composed.parquet",
                                "results/lebeda24_subst_gaussian/single_step.parquet"],
    "lebeda24_rr": ["results/lebeda24_rr/rr.parquet", "results/lebeda24_rr/rr.md"],
    "lebeda24_conj12": ["results/lebeda24_conj12/grid.parquet"],
}
"""Result files of each lebeda24 experiment (what its target and the claims rule need)."""

LEBEDA24_FIGURES = ["lebeda24_addremove", "lebeda24_pld_cdf", "lebeda24_sigma_vs_rate", "lebeda24_substitution",
                    "lebeda24_subst_gaussian", "lebeda24_conj12"]


def lebeda24_shards(config: dict, compositions) -> list[str]:
    """Every Monte Carlo shard file of the addremove curves with k in ``compositions``."""
    spec = config["lebeda24"]["addremove"]
    return [f"results/lebeda24_addremove/samples/{sampler}/{direction}/k{k}/shard-{shard}.parquet"
            for sampler in spec["samplers"] for direction in ("remove", "add") for k in compositions
            for shard in range(spec["shards"])]


def lebeda24_sigma_curves(config: dict) -> list[str]:
    """One file per sigma-vs-rate curve: results/lebeda24_sigma_vs_rate/curves/<sampler>_eps<eps>.parquet."""
    spec = config["lebeda24"]["sigma_vs_rate"]
    curves = [("poisson", e) for e in spec["poisson_epsilons"]] + [("wor", e) for e in spec["wor_epsilons"]]
    return [f"results/lebeda24_sigma_vs_rate/curves/{s}_eps{float(e):g}.parquet" for s, e in curves]


def lebeda24_target(experiment: str) -> list[str]:
    """Result files and figures of one lebeda24 experiment."""
    figures = [f"figures/{experiment}.{suffix}" for suffix in ("pdf", "png")] if experiment in LEBEDA24_FIGURES else []
    return LEBEDA24_RESULTS[experiment] + figures
