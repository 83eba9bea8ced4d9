"""How the workflow makes a chua24 experiment: one bounds table (rule compute_chua24_bounds) and,
for a figure, its plot (rule plot_chua24_figure), both in workflow/rules/chua24.smk."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from dpsampling.papers.chua24.cost import chua24_cost
from dpsampling.papers.experiment import Experiment, figure_files

RULES = "workflow/rules/chua24.smk"
TESTS = ("tests/papers/chua24/test_chua24_experiments.py",)


def chua24_experiment(module: str, kind: str, compute: Callable, claims, figure: bool = True,
                      paper: dict | None = None) -> Experiment:
    """The record of the chua24 experiment held by ``module`` (its ``__name__``): its bounds table is
    ``compute(spec, settings, progress)`` (``kind`` names it in the table's metadata and the cost
    model); a figure also has a plot. ``paper``: the paper's setting ({spec key: value}), which
    every claim is judged at (``Claim.setting``: a table computed at another one gives the verdict
    not_at_paper_setting)."""
    claims = [replace(c, setting={f"spec.{k}": v for k, v in (paper or {}).items()}) for c in claims]
    experiment = "chua24_" + module.rsplit(".", 1)[1]
    files = [f"results/{experiment}/bounds.parquet", *(figure_files(experiment) if figure else [])]
    scripts = ("scripts/compute_chua24_bounds.py", *(("scripts/plot_chua24_figure.py",) if figure else ()))
    return Experiment(experiment, module, RULES, scripts, TESTS, outputs=lambda config: list(files),
                      families=("chua24_bounds", *(("chua24_figure",) if figure else ())), claims=tuple(claims),
                      cost=chua24_cost(kind, compute))
