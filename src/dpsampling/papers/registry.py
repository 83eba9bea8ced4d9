"""The registry of the papers: per paper, its experiments' result files and its claims; importing
it registers each paper's cost model with ``dpsampling.pipeline.estimate``. The Snakefile (target
rules), the claims rule, the report and ``dpsampling estimate`` all read this one place.

Adding a paper: a folder ``papers/<name>/`` with ``targets.py`` (``targets(config)``),
``claims.py`` (a list of Claim), ``cost.py`` (``@register`` families), its rules in
``workflow/rules/<name>.smk``, and one line in PAPERS below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dpsampling.papers.chua24 import cost as _chua24_cost  # noqa: F401  (registers the cost families)
from dpsampling.papers.chua24 import targets as chua24_targets
from dpsampling.papers.chua24.claims import CHUA24_CLAIMS
from dpsampling.papers.chua25 import cost as _chua25_cost  # noqa: F401  (registers the cost families)
from dpsampling.papers.chua25 import targets as chua25_targets
from dpsampling.papers.chua25.claims_fig1 import CHUA25_FIG1_CLAIMS
from dpsampling.papers.chua25.claims_privacy import CHUA25_PRIVACY_CLAIMS
from dpsampling.papers.lebeda24 import cost as _lebeda24_cost  # noqa: F401  (registers the cost families)
from dpsampling.papers.lebeda24 import targets as lebeda24_targets
from dpsampling.papers.lebeda24.claims import LEBEDA24_CLAIMS
from dpsampling.pipeline.claims import Claim


@dataclass(frozen=True)
class Paper:
    name: str
    title: str
    targets: Callable[[dict], dict[str, list[str]]]
    """config -> {experiment id: the files its target rule asks for}"""
    claims: list[Claim]


PAPERS = [
    Paper("chua24", "Chua et al., How Private are DP-SGD Implementations? (ICML 2024)", chua24_targets.targets,
          CHUA24_CLAIMS),
    Paper("chua25", "Chua et al., Balls-and-Bins Sampling for DP-SGD (AISTATS 2025)", chua25_targets.targets,
          [*CHUA25_FIG1_CLAIMS, *CHUA25_PRIVACY_CLAIMS]),
    Paper("lebeda24", "Lebeda et al., Avoiding Pitfalls for Privacy Accounting of Subsampled Mechanisms under "
          "Composition", lebeda24_targets.targets, LEBEDA24_CLAIMS),
]

CLAIMS: list[Claim] = [claim for paper in PAPERS for claim in paper.claims]


def experiment_targets(config: dict) -> dict[str, list[str]]:
    """{experiment id: files} of every experiment of every paper."""
    return {experiment: files for paper in PAPERS for experiment, files in paper.targets(config).items()}


def claim_inputs() -> list[str]:
    """The result files the claims are checked against."""
    return sorted({f"results/{claim.experiment}/{claim.result_file}" for claim in CLAIMS})
