"""The registry of the papers: every experiment module, and what the workflow derives from them.

One experiment = one module ``papers/<paper>/<name>.py`` ending with ``EXPERIMENT = Experiment(...)``
(``dpsampling.papers.experiment``). From these records come the target rules (Snakefile), the
wildcard constraints of the shared rules (``wildcard``), the claims (claims rule, report), the cost
model's entries (``dpsampling estimate``) and the rows of docs/EXPERIMENTS.md (``docs_rows``,
checked by tests/papers/test_experiments_docs.py).

Adding an experiment: its module, its config block with its schema entry, its tests, and one line
in its paper's list below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType

from dpsampling.papers.bandmf26 import bands as bandmf26_bands
from dpsampling.papers.chua24 import fig1 as chua24_fig1
from dpsampling.papers.chua24 import fig2 as chua24_fig2
from dpsampling.papers.chua24 import fig3 as chua24_fig3
from dpsampling.papers.chua24 import fig4 as chua24_fig4
from dpsampling.papers.chua24 import fig5 as chua24_fig5
from dpsampling.papers.chua24 import fig6 as chua24_fig6
from dpsampling.papers.chua24 import fig7 as chua24_fig7
from dpsampling.papers.chua24 import thm41 as chua24_thm41
from dpsampling.papers.chua25 import b_vs_p as chua25_b_vs_p
from dpsampling.papers.chua25 import epochs as chua25_epochs
from dpsampling.papers.chua25 import fig1 as chua25_fig1
from dpsampling.papers.chua25 import fig2 as chua25_fig2
from dpsampling.papers.chua25 import fig3 as chua25_fig3
from dpsampling.papers.chua25 import fig4 as chua25_fig4
from dpsampling.papers.chua25 import props as chua25_props
from dpsampling.papers.chua25 import trunc as chua25_trunc
from dpsampling.papers.experiment import Experiment
from dpsampling.papers.lebeda24 import addremove as lebeda24_addremove
from dpsampling.papers.lebeda24 import conj12 as lebeda24_conj12
from dpsampling.papers.lebeda24 import pld_cdf as lebeda24_pld_cdf
from dpsampling.papers.lebeda24 import rr as lebeda24_rr
from dpsampling.papers.lebeda24 import sigma_vs_rate as lebeda24_sigma_vs_rate
from dpsampling.papers.lebeda24 import subst_gaussian as lebeda24_subst_gaussian
from dpsampling.papers.lebeda24 import substitution as lebeda24_substitution
from dpsampling.papers.lebeda24 import table1 as lebeda24_table1
from dpsampling.pipeline.claims import Claim
from dpsampling.pipeline.code_inputs import import_closure, module_file


@dataclass(frozen=True)
class Paper:
    name: str
    title: str
    experiments: tuple[Experiment, ...]

    @property
    def claims(self) -> list[Claim]:
        return [claim for experiment in self.experiments for claim in experiment.claims]


PAPERS = [
    Paper("chua24", "Chua et al., How Private are DP-SGD Implementations? (ICML 2024)",
          tuple(m.EXPERIMENT for m in (chua24_fig1, chua24_fig2, chua24_fig3, chua24_fig4, chua24_fig5, chua24_fig6,
                                       chua24_fig7, chua24_thm41))),
    Paper("chua25", "Chua et al., Balls-and-Bins Sampling for DP-SGD (AISTATS 2025)",
          tuple(m.EXPERIMENT for m in (chua25_fig1, chua25_fig2, chua25_fig3, chua25_fig4, chua25_epochs, chua25_props,
                                       chua25_b_vs_p, chua25_trunc))),
    Paper("lebeda24", "Lebeda et al., Avoiding Pitfalls for Privacy Accounting of Subsampled Mechanisms under "
          "Composition", tuple(m.EXPERIMENT for m in (lebeda24_addremove, lebeda24_pld_cdf, lebeda24_sigma_vs_rate,
                                                      lebeda24_table1, lebeda24_substitution, lebeda24_subst_gaussian,
                                                      lebeda24_rr, lebeda24_conj12))),
    Paper("bandmf26", "This project's extension (issue 44), not a paper: banded DP-MF (correlated noise) under "
          "balls-and-bins, cyclic Poisson and b-min-sep", (bandmf26_bands.EXPERIMENT,)),
]

EXPERIMENTS: dict[str, Experiment] = {e.id: e for paper in PAPERS for e in paper.experiments}
CLAIMS: list[Claim] = [claim for paper in PAPERS for claim in paper.claims]

COSTS: dict[str, Callable] = {e.config_block: e.cost for e in EXPERIMENTS.values() if e.cost is not None}
"""The cost table of ``dpsampling estimate``: config block -> the experiment's cost model entry
(``work_and_rate(experiment, config, rates) -> Work``, ``dpsampling.pipeline.estimate``)."""


def experiment_targets(config: dict) -> dict[str, list[str]]:
    """{experiment id: files} of every experiment of every paper (what its target rule asks for)."""
    return {e.id: e.outputs(config) for e in EXPERIMENTS.values()}


def load_experiment(experiment: str) -> ModuleType:
    """The module that holds ``experiment`` (e.g. chua24_fig3 -> dpsampling.papers.chua24.fig3)."""
    if experiment not in EXPERIMENTS:
        raise ValueError(f"experiment must be one of {', '.join(EXPERIMENTS)}; got {experiment!r}")
    return import_module(EXPERIMENTS[experiment].module)


def experiment_module(wildcards) -> str:
    """A rule's param: the module of wildcards.experiment, which its script imports by name."""
    return EXPERIMENTS[wildcards.experiment].module


def experiment_code(code_of: Callable, script: str) -> Callable:
    """A rule's code input: ``code_of(script)`` and the import closure of the experiment's module
    (the script imports it by name, see ``experiment_module``)."""

    def files(wildcards) -> list[str]:
        return sorted({*code_of(script), *import_closure(module_file(EXPERIMENTS[wildcards.experiment].module))})

    return files


def wildcard(family: str) -> str:
    """The wildcard constraint of a shared rule: the ids of the experiments of ``family``."""
    ids = [e.id for e in EXPERIMENTS.values() if family in e.families]
    if not ids:
        raise ValueError(f"family must be one of the experiments' families; got {family!r}")
    return "|".join(ids)


def claim_inputs() -> list[str]:
    """The result files the claims are checked against."""
    return sorted({f"results/{claim.experiment}/{claim.result_file}" for claim in CLAIMS})


DOCS_HEADER = ("| experiment | module | config block | rules | scripts | tests |\n"
               "| --- | --- | --- | --- | --- | --- |")


def docs_rows() -> list[str]:
    """The rows of the experiments table of docs/EXPERIMENTS.md, one per experiment."""
    return [f"| `{e.id}` | `{e.module_path}` | `{e.config_block}` | `{e.rules}` | "
            f"{', '.join(f'`{s}`' for s in e.scripts)} | {', '.join(f'`{t}`' for t in e.tests)} |"
            for e in EXPERIMENTS.values()]
