"""The accountant: a run (phases) in, certified bounds out, for every sampler and relation alike.

    acc = Accountant([Phase("poisson", 1.1, sampling_rate=256 / 60_000, steps=4_700)])
    acc.epsilon_bounds([1e-5])     # rows (delta, direction): epsilon_lower, epsilon_upper, ...
    acc.get_epsilon(1e-5)          # the certified upper bound the relation reads

The run and the options are checked here, once; below, every path takes validated objects. How
each bound is computed is the registry's (``samplers``): the certified engine for every phase
with a dominating pair (``certified.engine``: the Gaussian mechanism in closed form), closed forms
for a shuffle phase, lebeda24's Appendix D for WOR under substitution, and dp-accounting's PLD for
``method="dp_accounting"`` (the reference, ``reference.pld``). Every answer is the long frame of
``frames`` and passes its checks before it is returned.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling.accountants.certified.engine import (
    DEFAULT_MAX_GRID_POINTS,
    MIN_SIGMA,
    gaussian_weight,
    refined,
)
from dpsampling.accountants.frames import AccountingError, Refused, bounds_frame, headline_value
from dpsampling.accountants.limits import query_limit
from dpsampling.accountants.relations import (
    ADD_OR_REMOVE,
    DEFAULT_RELATION,
    DIRECTION_NAMES,
    REFINE_CHOICES,
    RELATIONS,
    refined_directions,
    relation_direction,
)
from dpsampling.accountants.run import as_phases
from dpsampling.accountants.samplers import CERTIFIED_LOWER, CERTIFIED_UPPER, EXACT
from dpsampling.validation import check_array, check_choice, check_int_at_least, check_nonnegative, check_open_unit

METHODS = ("certified", "dp_accounting")
"""How the bounds are computed: the certified engine (default) or dp-accounting's PLD (the reference)."""


class Accountant:
    """Certified (eps, delta) bounds of a run of one or more ``Phase``.

    ``relation``: add, remove, add_or_remove (default) or substitution (wor); the headline row is
    the one it reads (``relations.relation_direction``), every direction is reported.
    ``accuracy``: refine until (upper - lower) / upper <= accuracy in the directions ``refine``
    names ("all", or the "relation"'s alone: faster, the others reported as reached).
    ``method``: "certified" or "dp_accounting" (one Poisson or WOR phase under add/remove).
    ``max_grid_points``: the largest discrete law the engine may build."""

    def __init__(self, phases, *, relation: str = DEFAULT_RELATION, accuracy: float = 0.01, refine: str = "all",
                 method: str = "certified", max_grid_points: int = DEFAULT_MAX_GRID_POINTS):
        self.phases = as_phases(phases)
        self.relation = check_choice("relation", relation, RELATIONS)
        for phase in self.phases:
            phase.spec.check_relation(relation)
        self.accuracy = check_open_unit("accuracy", accuracy)
        self.refine = check_choice("refine", refine, REFINE_CHOICES)
        self.method = check_choice("method", method, METHODS)
        self.max_grid_points = check_int_at_least("max_grid_points", max_grid_points, 2)
        if len(self.phases) > 1:
            _check_composable(self.phases, relation)
        if method == "dp_accounting" and (len(self.phases) > 1 or self.phases[0].spec.reference is None
                                          or relation not in ADD_OR_REMOVE):
            raise ValueError("method dp_accounting applies to one poisson or wor phase under add, remove or "
                             f"add_or_remove; got {self._label()} under {relation}")

    @property
    def headline(self) -> str:
        """The row the relation reads: add, remove or max."""
        return relation_direction(self.relation)

    def _label(self) -> str:
        return " + ".join(phase.describe() for phase in self.phases)

    def delta_bounds(self, epsilons) -> pd.DataFrame:
        """Rows (epsilon, direction): delta_lower, delta_upper, accuracy, converged, methods; every
        rounding of the engine charged (``certified.rounding``)."""
        values = check_array("epsilon", epsilons, check_nonnegative)
        return self._answer("delta", values)

    def epsilon_bounds(self, deltas) -> pd.DataFrame:
        """Rows (delta, direction): epsilon_lower, epsilon_upper (eps >= 0), accuracy, converged,
        methods. A delta at or below what the engine charged to every delta of this run (its
        proven floor: tails moved or cut, rounding) is refused, naming the floor."""
        values = check_array("delta", deltas, check_open_unit)
        return self._answer("epsilon", values)

    def _headline_only(self) -> Accountant:
        return Accountant(self.phases, relation=self.relation, accuracy=self.accuracy, refine="relation",
                          method=self.method, max_grid_points=self.max_grid_points)

    def get_epsilon(self, delta: float) -> float:
        """The certified upper bound on eps(delta) that the relation reads (refined for it alone)."""
        return headline_value(self._headline_only().epsilon_bounds([delta]))

    def get_delta(self, epsilon: float) -> float:
        """The certified upper bound on delta(eps) that the relation reads (refined for it alone)."""
        return headline_value(self._headline_only().delta_bounds([epsilon]))

    def _answer(self, quantity: str, values: np.ndarray) -> pd.DataFrame:
        """The checked long frame; a fault below the face (anything but a refusal) is an
        AccountingError naming the run, never a ValueError that would read as bad input."""
        try:
            with query_limit(f"the {quantity} query of {self._label()}"):  # none unless set (the CLI's --time-limit)
                bounds, methods, computation = self._bounds(quantity, values)
        except (Refused, AccountingError):
            raise
        except Exception as error:
            raise AccountingError(f"internal error while computing the {quantity} bounds of {self._label()} under "
                                  f"{self.relation}: {type(error).__name__}: {error}; please report it") from error
        attrs = {"phases": [phase.as_dict() for phase in self.phases], "relation": self.relation,
                 "headline": self.headline, "method": self.method, "refine": self.refine,
                 "tight_pair": all(phase.spec.tight for phase in self.phases), "computation": computation}
        return bounds_frame(quantity, values, bounds, methods, self.accuracy, attrs)

    def _bounds(self, quantity: str, values: np.ndarray):
        """((n, 3, 2) bounds, (lower, upper) methods, how they were computed)."""
        phase = self.phases[0]
        if self.method == "dp_accounting":
            return phase.spec.reference(phase, quantity, values, self.accuracy)
        if len(self.phases) == 1 and phase.spec.closed_form is not None:
            bounds, attrs = phase.spec.closed_form(phase, quantity, values)
            return bounds, (phase.spec.lower_method, phase.spec.upper_method), attrs
        if self.relation == "substitution":
            return phase.spec.substitution(phase, quantity, values, self.accuracy, self.max_grid_points)
        columns = [DIRECTION_NAMES.index(d) for d in refined_directions(self.refine, self.relation)]
        bounds, attrs = refined(self.phases, values, quantity, self.accuracy, self.max_grid_points, columns)
        methods = (EXACT, EXACT) if attrs["method"].startswith("exact") else (CERTIFIED_LOWER, CERTIFIED_UPPER)
        return bounds, methods, attrs


def _check_composable(phases, relation: str) -> None:
    """A run of several phases: every phase has a dominating pair to compose, under add/remove."""
    for index, phase in enumerate(phases, 1):
        if not phase.spec.composable:
            raise ValueError(f"phase {index} ({phase.sampler}) cannot be composed with other phases: it has no "
                             "dominating pair (its bounds are closed forms of a whole run); account it alone")
    if relation not in ADD_OR_REMOVE:
        raise ValueError(f"relation must be one of {', '.join(ADD_OR_REMOVE)} for a run of several phases "
                         f"(substitution is accounted for one wor phase, lebeda24 Appendix D); got {relation!r}")
    weight = gaussian_weight([p for p in phases if p.spec.gaussian_weight(p) is not None])
    if weight and gaussian_weight(phases) is None and 1.0 / math.sqrt(weight) < MIN_SIGMA:
        raise ValueError(f"the Gaussian phases of this run together are one Gaussian mechanism with sigma "
                         f"{1.0 / math.sqrt(weight):.3g}; beside other samplers it must be >= {MIN_SIGMA} for the "
                         "certified grid")
