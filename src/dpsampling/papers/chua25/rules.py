"""Input functions of workflow/rules/chua25_privacy.smk, built from the config (one place, testable):
each experiment's sample sets and curves come from its module (``dpsampling.papers.registry``)."""

from __future__ import annotations

from types import SimpleNamespace

from dpsampling.accountants.ballsbins.device import DEFAULT_PIECE as PIECE
from dpsampling.papers.chua25.privacy import CERTIFIED_CURVE, certified_settings, epsilon_grid
from dpsampling.papers.chua25.samples import find_sample_set
from dpsampling.papers.registry import load_experiment
from dpsampling.samplers import SAMPLERS


def chua25_privacy_functions(config: dict) -> SimpleNamespace:
    """Functions of Snakemake wildcards for the chua25 privacy rules."""

    def spec(experiment):
        return config["chua25"][experiment.removeprefix("chua25_")]

    def sets(experiment):
        return load_experiment(experiment).sample_sets(spec(experiment))

    def shard_parameters(wildcards):
        """What one shard depends on: method, setting, sample count, seed; not the shard count, not the
        device; the eps grid only with ``statistics`` storage."""
        sample_set = find_sample_set(sets(wildcards.experiment), wildcards.panel, wildcards.direction, wildcards.series)
        storage = spec(wildcards.experiment).get("storage", "samples")
        grid = epsilon_grid(spec(wildcards.experiment)).tolist() if storage == "statistics" else None
        return sample_set.sampling_parameters(config["seed"], int(wildcards.shard), storage, grid)

    def shard_memory(wildcards):
        parameters = shard_parameters(wildcards)
        held = parameters["samples"] if parameters.get("storage") != "statistics" else min(parameters["samples"], PIECE)
        return 600 + 3 * 8 * held // 2**20

    def shards(wildcards):
        return [path for s in sets(wildcards.experiment) for path in s.shard_paths()]

    def merge_parameters(wildcards):
        return {"sets": [s.as_dict() for s in sets(wildcards.experiment)],
                "epsilons": epsilon_grid(spec(wildcards.experiment)).tolist(),
                "error_prob": spec(wildcards.experiment)["error_prob"], "seed": config["seed"]}

    def bounds_parameters(wildcards):
        module = load_experiment(wildcards.experiment)
        accounting = {"pld": dict(config["pld"])} if any(c in SAMPLERS for c in module.CURVES) else {}
        if CERTIFIED_CURVE in module.CURVES:
            accounting["certified"] = certified_settings(config["chua25"], spec(wildcards.experiment))
        return {"experiment": wildcards.experiment, "settings_list": module.bounds_settings(spec(wildcards.experiment)),
                "epsilons": epsilon_grid(spec(wildcards.experiment)).tolist(), "settings": accounting}

    def b_vs_p_parameters(wildcards=None):
        b_vs_p = config["chua25"]["b_vs_p"]
        spec = {key: b_vs_p[key] for key in ("sigmas", "steps", "epochs", "epsilon_grid") if key in b_vs_p}
        return {"experiment": "chua25_b_vs_p", "spec": spec,
                "certified": certified_settings(config["chua25"], b_vs_p)}

    return SimpleNamespace(shard_parameters=shard_parameters, shard_memory=shard_memory, shards=shards,
                           merge_parameters=merge_parameters, bounds_parameters=bounds_parameters,
                           b_vs_p_parameters=b_vs_p_parameters)
