"""Adjacency relations and the samplers of Lebeda et al. (2024) that support them.

Relations (Definition 2 of the paper):

* ``"add"``: D' is D with one point added; the curve is H_{e^eps}(M(D) || M(D')).
* ``"remove"``: D' is D with one point removed.
* ``"add_or_remove"``: either of the two; its curve is the pointwise maximum of the two
  directions (Section 5: never assume one direction dominates after composition).
* ``"substitution"``: one point swapped for another (same dataset size).

Samplers: ``"poisson"`` (each point independently with probability q) and ``"wor"``
(a uniformly random subset of fixed size b of n points, q = b/n).

Which accountant supports which relation is stated in :data:`ACCOUNTANT_RELATIONS`;
:func:`check_relation` raises ``ValueError`` for any other combination.
"""

from __future__ import annotations

from ..relations import RELATIONS
from ..validation import check_choice

SAMPLERS = ("poisson", "wor")
DIRECTIONS = ("remove", "add")

# Per accountant (a family of functions in this subpackage) and sampler: the relations for
# which that accountant gives a (tight or bounding) privacy curve.
ACCOUNTANT_RELATIONS = {
    # Gaussian PLD accountant via the dominating pairs of Theorem 10 / Prop. 9
    # (gaussian.delta_for_epsilon, epsilon_for_delta, calibrate_sigma). Substitution is
    # not tight for WOR (Section 7) and is handled by substitution.wor_gaussian_substitution;
    # Poisson substitution (Prop. 13) is not implemented.
    "gaussian_pld": {
        "poisson": ("add", "remove", "add_or_remove"),
        "wor": ("add", "remove", "add_or_remove"),
    },
    # Gaussian WOR under substitution (Appendix D): upper bound from the pointwise maximum
    # of the single-step curves, lower bound from the remove curve.
    "gaussian_substitution": {
        "wor": ("substitution",),
    },
    # Subsampled Laplace PLDs (exact k <= 2 and Monte Carlo): one direction at a time.
    "laplace": {
        "poisson": ("add", "remove"),
        "wor": ("add", "remove"),
    },
}


def check_sampler(sampler, allowed=SAMPLERS) -> str:
    """``sampler`` must be one of ``allowed``."""
    return check_choice("sampler", sampler, tuple(allowed))


def supported_relations(accountant: str, sampler: str) -> tuple[str, ...]:
    """The relations ``accountant`` supports for ``sampler`` (see ACCOUNTANT_RELATIONS)."""
    check_choice("accountant", accountant, tuple(ACCOUNTANT_RELATIONS))
    samplers = ACCOUNTANT_RELATIONS[accountant]
    check_sampler(sampler, tuple(samplers))
    return samplers[sampler]


def check_relation(relation, accountant: str, sampler: str) -> str:
    """Raise ``ValueError("relation must be one of ...; got ...")`` unless supported."""
    allowed = supported_relations(accountant, sampler)
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {', '.join(RELATIONS)}; got {relation!r}")
    if relation not in allowed:
        raise ValueError(
            f"relation must be one of {', '.join(allowed)} (for the {accountant} accountant "
            f"with sampler {sampler!r}); got {relation!r}"
        )
    return relation


def check_direction(direction) -> str:
    """``direction`` must be ``"remove"`` or ``"add"``."""
    return check_choice("direction", direction, DIRECTIONS)


def sampler_distance(sampler: str) -> float:
    """Distance between the two components of the dominating pair (data in [-1, 1]).

    Poisson (Prop. 9.1): D = (0,...,0), D' = (0,...,0,1): components N(0) and N(1), distance 1.
    WOR (Prop. 9.2 / Thm 10.2): the base mechanism's substitution pair, -1 -> 1, distance 2.
    """
    check_sampler(sampler)
    return 1.0 if sampler == "poisson" else 2.0
