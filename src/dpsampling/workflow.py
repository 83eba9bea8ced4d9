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
