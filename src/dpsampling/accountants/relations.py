"""Adjacency relations and the directions of a privacy curve.

Relations (Lebeda et al. 2024, Definition 2):

* ``add``: D' is D plus one point; delta(eps) = sup H_{e^eps}(M(D) || M(D')) (direction ``add``);
* ``remove``: D' is D minus one point (direction ``remove``);
* ``add_or_remove``: either; its curve is the pointwise maximum of the two directions, which are
  computed separately (Section 5: after composition neither direction dominates in general);
* ``substitution``: one point swapped for another (same dataset size). The relation is symmetric,
  so both directions are the same curve.

Every result has one row per direction -- remove = D(P||Q), add = D(Q||P) of the dominating pair
-- and their maximum; a relation's headline is the row it reads (``relation_direction``). Which
sampler supports which relation is in the sampler registry (``dpsampling.samplers``). The names
(``RELATIONS``, ``ADD_OR_REMOVE``) are the package's vocabulary, defined at its root.
"""

from __future__ import annotations

from dpsampling import ADD_OR_REMOVE, DIRECTIONS, RELATIONS  # noqa: F401  (ADD_OR_REMOVE, RELATIONS: read from here)
from dpsampling.validation import check_choice

DEFAULT_RELATION = "add_or_remove"

DIRECTION_NAMES = (*DIRECTIONS, "max")
"""The rows of a result: each direction and their maximum."""
REFINE_CHOICES = ("all", "relation")
"""What a certified bound is refined in: every direction, or the one the relation reads."""


def relation_direction(relation: str) -> str:
    """The row a relation reads: add or remove that direction; add_or_remove and substitution
    (symmetric: every row is the same curve) the maximum."""
    return relation if relation in DIRECTIONS else "max"


def refined_directions(refine: str, relation: str) -> tuple[str, ...]:
    """The directions a certified bound is refined in to its accuracy: every one ("all"), or the
    one the relation reads ("relation"). The others are reported as reached."""
    check_choice("refine", refine, REFINE_CHOICES)
    return DIRECTION_NAMES if refine == "all" else (relation_direction(relation),)


def check_direction(direction) -> str:
    """``direction`` must be ``"remove"`` or ``"add"``."""
    return check_choice("direction", direction, DIRECTIONS)
