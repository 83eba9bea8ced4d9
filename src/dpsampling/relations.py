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
"""

from __future__ import annotations

import pandas as pd

from .validation import check_choice

RELATIONS = ("add", "remove", "add_or_remove", "substitution")
DEFAULT_RELATION = "add_or_remove"

_ADD_REMOVE = ("add", "remove", "add_or_remove")
SAMPLER_RELATIONS = {
    "deterministic": _ADD_REMOVE,
    "poisson": _ADD_REMOVE,
    "shuffle": _ADD_REMOVE,
    "balls_and_bins": _ADD_REMOVE,
    "wor": (*_ADD_REMOVE, "substitution"),
}
"""Relations each sampler's accountant supports (others raise ValueError)."""


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
