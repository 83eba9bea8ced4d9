"""How the workflow makes a chua25 experiment: the rule files and scripts of each kind, and the
``Experiment`` record of a Monte Carlo experiment (workflow/rules/chua25_privacy.smk: sample ->
merge -> bounds -> summarize -> plot or checks)."""

from __future__ import annotations

from types import ModuleType

from dpsampling.papers.chua25.cost import monte_carlo_cost
from dpsampling.papers.experiment import Experiment, figure_files

PRIVACY_RULES = "workflow/rules/chua25_privacy.smk"
UTILITY_RULES = "workflow/rules/chua25_utility.smk"
BOUNDS_SCRIPT = "scripts/compute_chua25_bounds.py"


TIMING_SCRIPT = "scripts/time_chua25_samplers.py"
TEST_DIR = "tests/papers/chua25"


def chua25_tests(*names: str) -> tuple[str, ...]:
    """The paths of the chua25 test files ``names``."""
    return tuple(f"{TEST_DIR}/{name}" for name in names)


def monte_carlo_experiment(module: ModuleType, claims, tests: tuple[str, ...], outputs=None, scripts=None,
                           timing: bool = False) -> Experiment:
    """The record of the chua25 Monte Carlo experiment held by ``module`` (the module itself, still
    loading; its cost model entry reads it when called): its sample sets go through the shared
    sample, merge and summarize rules; the bounds script draws its CURVES and the plot script
    calls its ``plot``. ``outputs``/``scripts``: those of an experiment that is not a figure
    (chua25_props). ``timing``: its module's ``timing(spec)`` also makes results/<id>/timing.parquet
    (rule time_chua25_samplers, chua25 ``timing.py``), which its timing claims read."""
    experiment = "chua25_" + module.__name__.rsplit(".", 1)[1]
    files = outputs or [f"results/{experiment}/summary.parquet", *figure_files(experiment)]
    families = ("chua25_monte_carlo",) if outputs else ("chua25_monte_carlo", "chua25_privacy_figure")
    scripts = tuple(scripts or (BOUNDS_SCRIPT, "scripts/plot_chua25_privacy.py"))
    if timing:
        files, families, scripts = [*files, f"results/{experiment}/timing.parquet"], (*families, "chua25_timing"), \
            (*scripts, TIMING_SCRIPT)
    return Experiment(experiment, module.__name__, PRIVACY_RULES, scripts, tests, outputs=lambda config: list(files), families=families, claims=tuple(claims),
                      cost=monte_carlo_cost(module))
