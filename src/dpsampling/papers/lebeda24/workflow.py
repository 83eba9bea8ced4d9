"""How the workflow makes a lebeda24 experiment (workflow/rules/lebeda24.smk): its result files, and for
a figure the shared plot rule (``plot_lebeda24``: the module's PLOT_INPUTS, its ``plot``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from dpsampling.papers.experiment import Experiment, figure_files

RULES = "workflow/rules/lebeda24.smk"
SCRIPTS = {  # the scripts that call into each experiment's module
    "addremove": ("scripts/compute_lebeda24_exact.py",),
    "pld_cdf": ("scripts/compute_lebeda24_pld_cdf.py",),
    "sigma_vs_rate": ("scripts/calibrate_lebeda24_sigma.py",),
    "table1": ("scripts/compute_lebeda24_table1.py",),
    "substitution": ("scripts/compute_lebeda24_substitution.py",),
    "subst_gaussian": ("scripts/compute_lebeda24_subst_gaussian.py",),
    "rr": ("scripts/compute_lebeda24_rr.py",),
    "conj12": ("scripts/search_lebeda24_conj12.py",),
}
PLOT_SCRIPT = "scripts/plot_lebeda24.py"
TEST_DIR = "tests/papers/lebeda24"
OWN_TESTS = {  # the test files of each experiment's own code, beside the two every experiment has
    "addremove": ("test_lebeda_laplace.py",),
    "pld_cdf": ("test_lebeda_laplace.py",),
    "sigma_vs_rate": ("test_lebeda_gaussian.py",),
    "table1": ("test_lebeda_wor_accounting.py",),
    "substitution": ("test_lebeda_substitution.py",),
    "subst_gaussian": ("test_lebeda_substitution.py", "test_lebeda_wor_accounting.py"),
    "rr": ("test_lebeda_rr.py",),
    "conj12": ("test_lebeda_gaussian.py",),
}
TESTS = {name: tuple(f"{TEST_DIR}/{f}" for f in ("test_lebeda24_experiments.py", "test_lebeda24_workflow.py", *own))
         for name, own in OWN_TESTS.items()}


def lebeda24_experiment(module: str, results: list[str], claims, cost: Callable, figure: bool,
                        paper: dict | None = None) -> Experiment:
    """The record of the lebeda24 experiment held by ``module`` (its ``__name__``): its result files
    (names under results/<id>/) and, for a figure, its PDF and PNG. ``paper``: the paper's setting
    ({spec key: value}) every claim is judged at (``Claim.setting``; another one that ran gives the
    verdict not_at_paper_setting)."""
    claims = [replace(c, setting={f"spec.{k}": v for k, v in (paper or {}).items()}) for c in claims]
    name = module.rsplit(".", 1)[1]
    experiment = f"lebeda24_{name}"
    files = [f"results/{experiment}/{result}" for result in results] + (figure_files(experiment) if figure else [])
    scripts = SCRIPTS[name] + ((PLOT_SCRIPT,) if figure else ())
    return Experiment(experiment, module, RULES, scripts, TESTS[name], outputs=lambda config: list(files),
                      families=("lebeda24_figure",) if figure else (), claims=tuple(claims), cost=cost)
