"""Helpers for the rules: config block lookup by experiment id."""

from __future__ import annotations


def spec_lookup(config: dict):
    """An input function: wildcards.experiment (e.g. chua24_fig3) -> its config block."""

    def experiment_spec(wildcards):
        paper, name = wildcards.experiment.split("_", 1)
        return config[paper][name]

    return experiment_spec
