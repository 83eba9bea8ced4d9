"""The result files of each lebeda24 experiment and the inputs of its sharded rules."""

RESULTS = {
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
"""Result files of each lebeda24 experiment."""

FIGURES = ["lebeda24_addremove", "lebeda24_pld_cdf", "lebeda24_sigma_vs_rate", "lebeda24_substitution",
           "lebeda24_subst_gaussian", "lebeda24_conj12"]

PLOT_INPUTS = {
    "lebeda24_addremove": {"mc": "results/lebeda24_addremove/delta_mc.parquet",
                           "exact": "results/lebeda24_addremove/delta_exact.parquet"},
    "lebeda24_pld_cdf": {"cdf": "results/lebeda24_pld_cdf/cdf.parquet",
                         "atoms": "results/lebeda24_pld_cdf/atoms.parquet"},
    "lebeda24_sigma_vs_rate": {"sigma": "results/lebeda24_sigma_vs_rate/sigma.parquet"},
    "lebeda24_substitution": {"curves": "results/lebeda24_substitution/curves.parquet"},
    "lebeda24_subst_gaussian": {"composed": "results/lebeda24_subst_gaussian/composed.parquet",
                                "single_step": "results/lebeda24_subst_gaussian/single_step.parquet"},
    "lebeda24_conj12": {"grid": "results/lebeda24_conj12/grid.parquet"},
}
"""Named inputs of each figure's plot rule."""


def targets(config: dict) -> dict[str, list[str]]:
    """{experiment id: result files and figures}."""
    return {experiment: files + ([f"figures/{experiment}.{s}" for s in ("pdf", "png")] if experiment in FIGURES else [])
            for experiment, files in RESULTS.items()}


def shards(config: dict, compositions) -> list[str]:
    """Every Monte Carlo shard file of the addremove curves with k in ``compositions``."""
    spec = config["lebeda24"]["addremove"]
    return [f"results/lebeda24_addremove/samples/{sampler}/{direction}/k{k}/shard-{shard}.parquet"
            for sampler in spec["samplers"] for direction in ("remove", "add") for k in compositions
            for shard in range(spec["shards"])]


def sigma_curves(config: dict) -> list[str]:
    """One file per sigma-vs-rate curve: results/lebeda24_sigma_vs_rate/curves/<sampler>_eps<eps>.parquet."""
    spec = config["lebeda24"]["sigma_vs_rate"]
    curves = [("poisson", e) for e in spec["poisson_epsilons"]] + [("wor", e) for e in spec["wor_epsilons"]]
    return [f"results/lebeda24_sigma_vs_rate/curves/{s}_eps{float(e):g}.parquet" for s, e in curves]


def shard_parameters_of(config: dict):
    """The sampling rule's param: wildcards -> what one shard depends on (its canonical parameters
    and the algorithm version, ``shards.shard_parameters``)."""

    def parameters(wildcards):
        from dpsampling.papers.lebeda24.shards import shard_parameters

        return shard_parameters(config["lebeda24"]["addremove"], config["seed"], "lebeda24_addremove",
                                wildcards.sampler, wildcards.direction, int(wildcards.k), int(wildcards.shard))

    return parameters
