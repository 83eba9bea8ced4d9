"""The subsampled samplers of lebeda24 (Poisson and WOR) as the sampler registry describes them.

lebeda24's own mechanisms (the Laplace mechanism, substitution) take a sampler name;
which names they accept and the distance of each one's dominating pair come from the registry
(``dpsampling.samplers``): the rate-based samplers, and the sensitivity of the Gaussian mechanism
a rate-1 step of the sampler is (Poisson 1, WOR 2: lebeda24 Prop. 9, Thm 10.2).
"""

from __future__ import annotations

from dpsampling import samplers
from dpsampling.accountants.relations import RELATIONS
from dpsampling.papers.accounting import sampler_distance as _distance
from dpsampling.samplers import PAPER_RATE_BASED
from dpsampling.validation import check_choice

SUBSAMPLED_SAMPLERS = PAPER_RATE_BASED
"""The samplers described by a sampling rate (Poisson, WOR)."""
POISSON, WOR = samplers.POISSON.name, samplers.WOR.name
"""The paper's two samplers' names, from the registry: Poisson (P, variable batch size) and WOR
(W, fixed batch size b of n)."""

ACCOUNTANT_RELATIONS = {
    # the subsampled Laplace PLDs (exact k <= 2 and Monte Carlo): one direction at a time (the
    # Gaussian ones are the face's: ``dpsampling.Accountant``)
    "laplace": ("add", "remove"),
}


def check_sampler(sampler) -> str:
    """``sampler`` must be a subsampled (rate-based) sampler."""
    return check_choice("sampler", sampler, SUBSAMPLED_SAMPLERS)


def check_relation(relation, accountant: str, sampler: str) -> str:
    """``relation`` must be one that ``accountant`` gives a curve for (ACCOUNTANT_RELATIONS)."""
    check_sampler(sampler)
    allowed = ACCOUNTANT_RELATIONS[check_choice("accountant", accountant, tuple(ACCOUNTANT_RELATIONS))]
    check_choice("relation", relation, RELATIONS)
    if relation not in allowed:
        raise ValueError(f"relation must be one of {', '.join(allowed)} (for the {accountant} accountant with sampler "
                         f"{sampler!r}); got {relation!r}")
    return relation


def sampler_distance(sampler: str) -> float:
    """Distance between the two components of ``sampler``'s dominating pair (data in [-1, 1]):
    ``papers.accounting.sampler_distance``, for the subsampled samplers only."""
    return _distance(check_sampler(sampler))


__all__ = ["ACCOUNTANT_RELATIONS", "SUBSAMPLED_SAMPLERS", "check_relation", "check_sampler", "sampler_distance"]
