"""Adjacency relations: which sampler's accountant supports which, and how a table is read.

Relations (Lebeda et al. 2024, Definition 2):

* ``add``: D' is D plus one point; delta(eps) = sup H_{e^eps}(M(D) || M(D')) (direction ``add``);
* ``remove``: D' is D minus one point (direction ``remove``);
* ``add_or_remove``: either; its curve is the pointwise maximum of the two directions, which are
  computed separately (Section 5: after composition neither direction dominates in general);
* ``substitution``: one point swapped for another (same dataset size).

Every accountant table has per-direction columns ``{remove,add}_{quantity}_{lower,upper}``;
:func:`select_relation` makes the top-level ``{quantity}_{lower,upper}`` those of the relation.
Substitution is only accounted for sampling without replacement (Appendix D of lebeda24), where
the accountant fills the top-level columns itself.

The accountants of lebeda24's subsampled mechanisms (``gaussian``, ``substitution``, ``laplace``) state
per sampler which relations they support in :data:`ACCOUNTANT_RELATIONS`; :func:`check_relation` raises
``ValueError`` for any other combination.
"""

from __future__ import annotations

import pandas as pd

from dpsampling import DIRECTIONS, SAMPLERS
from dpsampling.validation import check_choice

RELATIONS = ("add", "remove", "add_or_remove", "substitution")
SUBSAMPLED_SAMPLERS = ("poisson", "wor")
"""Samplers with a fixed per-step sampling rate q (Poisson: each point with probability q; WOR: a
uniformly random subset of size b = q n), the subsampled mechanisms of lebeda24."""
DEFAULT_RELATION = "add_or_remove"

_ADD_REMOVE = ("add", "remove", "add_or_remove")
SAMPLER_RELATIONS = {sampler: _ADD_REMOVE for sampler in SAMPLERS} | {"wor": (*_ADD_REMOVE, "substitution")}
"""Relations each sampler's accountant supports (others raise ValueError)."""


DIRECTION_NAMES = (*DIRECTIONS, "max")
"""The rows of a certified frame: each direction and their maximum."""
REFINE_CHOICES = ("all", "relation")
"""What a certified bound is refined in: every direction, or the one the relation reads."""


def refined_directions(refine: str, relation: str) -> tuple[str, ...]:
    """The directions a certified bound is refined in to its accuracy: every one ("all"), or the
    one the relation's top-level columns read ("relation": max for add_or_remove; substitution,
    whose bounds come from both directions: every one). The others are reported as reached."""
    check_choice("refine", refine, REFINE_CHOICES)
    if refine == "all" or relation == "substitution":
        return DIRECTION_NAMES
    return (relation_direction(relation),)


def relation_direction(relation: str) -> str:
    """The row of a certified frame that an add / remove / add_or_remove relation reads."""
    return "max" if relation == "add_or_remove" else relation


def relation_help(samplers=None) -> str:
    """Which relations each sampler (default: every one known) supports, for --help texts."""
    samplers = SAMPLER_RELATIONS if samplers is None else [s for s in samplers if s in SAMPLER_RELATIONS]
    return "; ".join(f"{sampler}: {', '.join(SAMPLER_RELATIONS[sampler])}" for sampler in samplers)


def check_sampler_relation(sampler: str, relation) -> str:
    """``relation`` must be known and supported by ``sampler``'s accountant."""
    check_choice("relation", relation, RELATIONS)
    allowed = SAMPLER_RELATIONS.get(sampler, _ADD_REMOVE)
    if relation not in allowed:
        raise ValueError(f"relation must be one of {', '.join(allowed)} for sampler {sampler!r}; got {relation!r}")
    return relation


def select_relation(frame: pd.DataFrame, quantity: str, relation: str) -> pd.DataFrame:
    """Set ``{quantity}_{lower,upper}`` to the relation's curve and record it in column ``relation``.

    add / remove: that direction's columns; add_or_remove: the maximum of the two (what every
    accountant already reports). Substitution tables are left as the accountant made them.
    """
    check_choice("relation", relation, RELATIONS)
    frame = frame.copy()
    if relation in ("add", "remove"):
        for bound in ("lower", "upper"):
            frame[f"{quantity}_{bound}"] = frame[f"{relation}_{quantity}_{bound}"]
    frame["relation"] = relation
    return frame

# Per accountant of lebeda24's subsampled mechanisms (gaussian, substitution, laplace modules) and sampler: the relations for
# which that accountant gives a (tight or bounding) privacy curve.
ACCOUNTANT_RELATIONS = {
    # Gaussian PLD accountant via the dominating pairs of Theorem 10 / Prop. 9
    # (gaussian.delta_for_epsilon, epsilon_for_delta, calibrate_sigma_at_rate). Substitution is
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


def check_sampler(sampler, allowed=SUBSAMPLED_SAMPLERS) -> str:
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
