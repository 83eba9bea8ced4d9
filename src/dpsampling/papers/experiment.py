"""What the workflow knows of one experiment: one record per experiment module.

Each experiment module (``papers/<paper>/<name>.py``) ends with ``EXPERIMENT = Experiment(...)``;
``dpsampling.papers.registry`` collects them and derives the rest from them: the target rules
(Snakefile), the wildcard constraints of the shared rules (``families``), the claims, the cost
model's entries (``dpsampling estimate``) and the rows of docs/EXPERIMENTS.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dpsampling.pipeline.claims.base import Claim


@dataclass(frozen=True)
class Experiment:
    """One experiment: id ``<paper>_<name>`` (target rule, config block ``<paper>.<name>``,
    folder ``results/<id>/``).

    module: the module that holds it (its ``__name__``). rules: the rule file that makes it.
    scripts: the scripts that call into its module (at most three; shared stages that do the same
    for every experiment of a rule file are named in that file). tests: its test files (every one
    that tests its module, under tests/papers/<paper>/, tests/training/, ...).
    outputs: config -> the files its target rule asks for. families: the wildcard families of
    the shared rules that make it (``registry.wildcard(family)``: their constraint). claims: its
    stated numbers. cost: ``(experiment, config, rates) -> Work`` for ``dpsampling estimate``.
    """

    id: str
    module: str
    rules: str
    scripts: tuple[str, ...]
    tests: tuple[str, ...]
    outputs: Callable[[dict], list[str]]
    families: tuple[str, ...] = ()
    claims: tuple[Claim, ...] = ()
    cost: Callable | None = None

    @property
    def paper(self) -> str:
        return self.id.split("_", 1)[0]

    @property
    def name(self) -> str:
        return self.id.split("_", 1)[1]

    @property
    def config_block(self) -> str:
        return f"{self.paper}.{self.name}"

    @property
    def module_path(self) -> str:
        return str(Path("src", *self.module.split("."))) + ".py"

    def files(self) -> list[str]:
        """Every file its docs row names: module, rule file, scripts, tests."""
        return [self.module_path, self.rules, *self.scripts, *self.tests]


def figure_files(experiment: str) -> list[str]:
    return [f"figures/{experiment}.pdf", f"figures/{experiment}.png"]
