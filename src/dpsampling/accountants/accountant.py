"""The accountant: a run (phases) in, certified bounds out, for every sampler and relation alike.

    acc = Accountant([Phase("poisson", 1.1, sampling_rate=256 / 60_000, steps=4_700)])
    acc.epsilon_bounds([1e-5])     # rows (delta, direction): epsilon_lower, epsilon_upper, ...
    acc.get_epsilon(1e-5)          # the certified upper bound the relation reads (its headline row)

The run and the options are checked here, once; below, every path takes validated objects. How
each bound is computed is the registry's (``samplers``): the certified engine for every phase
with a dominating pair (``certified.engine``: the Gaussian mechanism in closed form), closed forms
for a shuffle phase, lebeda24's Appendix D for WOR under substitution.

``method`` picks who answers: "certified" (the above, the default) or a reference method of
dp-accounting for one subsampled Gaussian phase (poisson, wor): "dp_accounting" (its PLDs,
pessimistic above and optimistic below, refined: ``reference.pld``; add/remove relations) or
"rdp" (its RDP accountant, an upper bound only, the lower bound 0: ``reference.rdp``; also WOR
under substitution). A reference method's answer is the same long frame (``frames``), its
``attrs["method"]`` and ``attrs["method_label"]`` saying what it is: never "certified".

Correlated noise (``Phase.coefficients`` other than [1], docs/MATRIX.md): a phase whose
``MatrixRun`` has a certified reduction (``matrix.certified_phases``) is answered by the engine on
the reduced phases (certified, composable; ``attrs["certified_reduction"]`` records them); one
without is refused by "certified" and answered by "monte_carlo" (``samples``, ``error_prob`` = beta,
``seed``): Monte Carlo confidence bounds, each holding with probability >= 1 - beta, never called
certified (``matrix.face``).
Every answer passes the frame's checks before it is returned; ``epsilon_rows`` / ``delta_rows``
are the same answer as ``frames.LongRows`` (no pandas: what the command line prints).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from dpsampling.accountants.certified.engine import (
    DEFAULT_MAX_GRID_POINTS,
    MIN_SIGMA,
    _refined,
    gaussian_weight,
)
from dpsampling.accountants.frames import AccountingError, LongRows, Refused, bounds_rows, headline_value
from dpsampling.accountants.limits import query_limit
from dpsampling.accountants.matrix.face import check_monte_carlo_phase, monte_carlo_bounds, reduced_phases
from dpsampling.accountants.reference import rdp
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
from dpsampling.samplers import CERTIFIED_LOWER, CERTIFIED_UPPER, EXACT
from dpsampling.validation import check_array, check_choice, check_int_at_least, check_nonnegative, check_open_unit

if TYPE_CHECKING:  # pandas is imported when a DataFrame is made (frames.LongRows.frame), not before
    import pandas as pd

METHODS = ("certified", "dp_accounting", "rdp", "monte_carlo")
"""How the bounds are computed: the certified engine (default), a reference method of
dp-accounting: its PLD ("dp_accounting") or its RDP accountant ("rdp"), or Monte Carlo with
confidence bounds for a correlated-noise phase without a certified reduction ("monte_carlo")."""
MONTE_CARLO_DEFAULTS = {"samples": 100_000, "error_prob": 1e-3, "seed": 0}
"""The Monte Carlo keywords of ``Accountant`` and their defaults (samples per direction, beta, seed)."""
MIN_ACCURACY = 1e-6
"""The finest accuracy asked for (1e-300 failed inside the balls-and-bins kernels, issue 42)."""
METHOD_LABELS = {
    "certified": "certified upper bound",
    "dp_accounting": "upper bound of dp-accounting's pessimistic PLD, a reference method, not certified",
    "rdp": "upper bound of dp-accounting's RDP accountant, a reference method, not certified",
    "monte_carlo": "Monte Carlo upper confidence bound, holding with probability >= 1 - {beta2:g} (not certified)",
}
"""What each method's upper bound is, in the words a report carries (``frames.statement``)."""
CERTIFIED_LOWER_LABEL = ("lower bound: the larger of a certified one (no probability) and the Monte Carlo one, "
                         "per row (lower_method)")
"""Added to a Monte Carlo answer's label where a certified lower bound enters (fixed balls-and-bins)."""


class Accountant:
    """Certified (eps, delta) bounds of a run of one or more ``Phase``.

    ``relation``: add, remove, add_or_remove (default) or substitution (wor); the headline row is
    the one it reads (``relations.relation_direction``), every direction is reported.
    ``accuracy``: refine until (upper - lower) / upper <= accuracy in the directions ``refine``
    names ("all", or the "relation"'s alone: faster, the others reported as reached).
    ``method``: "certified", or a reference method for one Poisson or WOR phase: "dp_accounting"
    (under add/remove) or "rdp" (module docstring).
    ``max_grid_points``: the largest discrete law the engine may build.
    ``samples``, ``error_prob``, ``seed``: method "monte_carlo" only (``MONTE_CARLO_DEFAULTS``)."""

    def __init__(self, phases, *, relation: str = DEFAULT_RELATION, accuracy: float = 0.01, refine: str = "all",
                 method: str = "certified", max_grid_points: int = DEFAULT_MAX_GRID_POINTS, **monte_carlo):
        self.phases = as_phases(phases)
        self.engine_phases, unreduced = reduced_phases(self.phases)
        self.relation = check_choice("relation", relation, RELATIONS)
        for phase in self.phases:
            phase.spec.check_relation(relation)
        self.accuracy = check_open_unit("accuracy", accuracy)
        if self.accuracy < MIN_ACCURACY:
            raise ValueError(f"accuracy must be at least {MIN_ACCURACY:g} (finer brackets are beyond the engine's "
                             f"floating point); got {accuracy!r}")
        self.refine = check_choice("refine", refine, REFINE_CHOICES)
        self.method = check_choice("method", method, METHODS)
        self.max_grid_points = check_int_at_least("max_grid_points", max_grid_points, 2)
        self.monte_carlo = _monte_carlo_options(method, unreduced, self.phases, relation, monte_carlo)
        if len(self.engine_phases) > 1:
            _check_composable(self.engine_phases, relation)
        if method not in ("certified", "monte_carlo") and any(phase.correlated for phase in self.phases):
            raise ValueError(f"method {method} does not account correlated noise (coefficients other than [1]); "
                             f"method certified answers this run; got {self._label()}")
        if method not in ("certified", "monte_carlo") and (len(self.phases) > 1
                                                           or self.phases[0].spec.reference is None
                                                           or (method == "dp_accounting"
                                                               and relation not in ADD_OR_REMOVE)):
            relations = " under add, remove or add_or_remove" if method == "dp_accounting" else ""
            raise ValueError(f"method {method} applies to one poisson or wor phase{relations} (a reference method "
                             f"of dp-accounting); got {self._label()} under {relation}")

    @property
    def headline(self) -> str:
        """The row the relation reads: add, remove or max."""
        return relation_direction(self.relation)

    def _label(self) -> str:
        return " + ".join(phase.describe() for phase in self.phases)

    def closed_form(self) -> str | None:
        """Why this run is answered without the certified engine refining a grid (so refine and
        max_grid_points change nothing), or None where the engine refines one."""
        if self.method == "monte_carlo":
            return "method monte_carlo answers by Monte Carlo samples of the privacy loss"
        if self.method != "certified":
            return f"method {self.method} is a reference method of dp-accounting"
        if len(self.engine_phases) == 1 and not self.engine_phases[0].spec.composable:
            return f"{self.engine_phases[0].sampler} is answered by closed forms"
        if gaussian_weight(self.engine_phases) is not None:
            return "this run is one Gaussian mechanism, answered in closed form"
        return None

    def delta_bounds(self, epsilons) -> pd.DataFrame:
        """Rows (epsilon, direction): delta_lower, delta_upper, accuracy, converged, methods; every
        rounding of the engine charged (``certified.rounding``)."""
        return self.delta_rows(epsilons).frame()

    def epsilon_bounds(self, deltas) -> pd.DataFrame:
        """Rows (delta, direction): epsilon_lower, epsilon_upper (eps >= 0), accuracy, converged,
        methods. A delta at or below what the engine charged to every delta of this run (its
        proven floor: tails moved or cut, rounding) is refused, naming the floor."""
        return self.epsilon_rows(deltas).frame()

    def delta_rows(self, epsilons) -> LongRows:
        """``delta_bounds`` as ``frames.LongRows`` (the same rows; pandas is not imported)."""
        values = check_array("epsilon", epsilons, check_nonnegative)
        return self._answer("delta", values)

    def epsilon_rows(self, deltas) -> LongRows:
        """``epsilon_bounds`` as ``frames.LongRows`` (the same rows; pandas is not imported)."""
        values = check_array("delta", deltas, check_open_unit)
        return self._answer("epsilon", values)

    def get_epsilon(self, delta: float) -> float:
        """The upper bound on eps(delta) that the relation reads: the headline row of
        ``epsilon_bounds([delta])``, refined as this Accountant refines (one policy for the
        headline, whatever the door: CLI, Python, the adapters); certified unless ``method`` is a
        reference method."""
        return headline_value(self.epsilon_rows([delta]))

    def get_delta(self, epsilon: float) -> float:
        """The upper bound on delta(eps) that the relation reads: the headline row of
        ``delta_bounds([epsilon])`` (as ``get_epsilon``)."""
        return headline_value(self.delta_rows([epsilon]))

    def epsilon_settled(self, delta: float, target_epsilon: float) -> tuple[float, float]:
        """(lower, upper) of the headline eps at ``delta``, refined only until they settle whether
        eps <= target_epsilon is shown (upper <= target) or refuted (lower > target): the same
        answer to that question as ``get_epsilon(delta) <= target_epsilon``, at a fraction of its
        cost far from the target (``certified.engine.settled``); a calibration's evaluation."""
        delta = check_open_unit("delta", delta)
        target = check_nonnegative("target_epsilon", target_epsilon)
        column = DIRECTION_NAMES.index(self.headline)
        rows = self._answer("epsilon", np.array([delta]), settle=(column, target))
        return headline_value(rows, "lower"), headline_value(rows, "upper")

    def _answer(self, quantity: str, values: np.ndarray, settle=None) -> LongRows:
        """The checked long rows; a fault below the face (anything but a refusal) is an
        AccountingError naming the run, never a ValueError that would read as bad input."""
        try:
            with query_limit(f"the {quantity} query of {self._label()}"):  # none unless set (the CLI's --time-limit)
                bounds, methods, computation = self._bounds(quantity, values, settle)
        except (Refused, AccountingError):
            raise
        except Exception as error:
            raise AccountingError(f"internal error while computing the {quantity} bounds of {self._label()} under "
                                  f"{self.relation}: {type(error).__name__}: {error}; please report it") from error
        label = METHOD_LABELS[self.method]
        if self.monte_carlo is not None:
            label = label.format(beta2=2 * self.monte_carlo["beta"] if self.headline == "max"
                                 else self.monte_carlo["beta"])
            if "certified_lower" in computation:  # fixed bins: which lower bounds are certified, in the sentence too
                label += f"; {CERTIFIED_LOWER_LABEL}"
        attrs = {"phases": [phase.as_dict() for phase in self.phases], "relation": self.relation,
                 "headline": self.headline, "method": self.method, "method_label": label,
                 "refine": self.refine,
                 "tight_pair": all(phase.spec.tight for phase in self.engine_phases), "computation": computation}
        if self.engine_phases != self.phases and self.monte_carlo is None:
            attrs["certified_reduction"] = [phase.as_dict() for phase in self.engine_phases]
        return bounds_rows(quantity, values, bounds, methods, self.accuracy, attrs)

    def _bounds(self, quantity: str, values: np.ndarray, settle=None):
        """((n, 3, 2) bounds, (lower, upper) methods, how they were computed); ``settle``: the
        certified engine's early stop (``epsilon_settled``), the other methods answer in full."""
        if self.monte_carlo is not None:
            return monte_carlo_bounds(self.phases[0].matrix_run(), quantity, values, **self.monte_carlo)
        phase = self.engine_phases[0]
        if self.method == "dp_accounting":
            return phase.spec.reference(phase, quantity, values, self.accuracy)  # its pair's PLD
        if self.method == "rdp":
            return rdp._phase_bounds(phase, self.relation, quantity, values)
        if len(self.engine_phases) == 1 and phase.spec.closed_form is not None:
            bounds, attrs = phase.spec.closed_form(phase, quantity, values)
            return bounds, (phase.spec.lower_method, phase.spec.upper_method), attrs
        if self.relation == "substitution":
            return phase.spec.substitution(phase, quantity, values, self.accuracy, self.max_grid_points)
        columns = [DIRECTION_NAMES.index(d) for d in refined_directions(self.refine, self.relation)]
        bounds, attrs = _refined(self.engine_phases, values, quantity, self.accuracy, self.max_grid_points, columns, settle)
        methods = (EXACT, EXACT) if attrs["method"].startswith("exact") else (CERTIFIED_LOWER, CERTIFIED_UPPER)
        return bounds, methods, attrs


def _monte_carlo_options(method: str, unreduced, phases, relation: str, given: dict) -> dict | None:
    """The Monte Carlo keywords checked (method "monte_carlo"), None for the other methods; the
    refusals: a correlated phase without a certified reduction under another method, Monte Carlo
    of anything but one such phase, Monte Carlo keywords without the method."""
    unknown = sorted(set(given) - set(MONTE_CARLO_DEFAULTS))
    if unknown:
        raise TypeError(f"Accountant got an unexpected keyword argument {unknown[0]!r}")
    if method != "monte_carlo":
        extra = [name for name, value in given.items() if value is not None]
        if extra:
            raise ValueError(f"{extra[0]} applies to method monte_carlo only; got method {method}")
        if unreduced:
            raise ValueError(f"there is no certified bound for this run: {unreduced[0].describe()} has no certified "
                             "reduction (docs/MATRIX.md); method='monte_carlo' answers it by Monte Carlo with a "
                             "confidence bound (not certified)")
        return None
    if len(phases) != 1 or not unreduced:
        raise ValueError("method monte_carlo applies to one phase with correlated noise that has no certified bound "
                         "(a certified one is answered by method certified); got "
                         f"{' + '.join(phase.describe() for phase in phases)}")
    if relation not in ADD_OR_REMOVE:
        raise ValueError(f"relation must be one of {', '.join(ADD_OR_REMOVE)} for method monte_carlo; got {relation!r}")
    check_monte_carlo_phase(phases[0])
    options = {name: default if given.get(name) is None else given[name] for name, default in MONTE_CARLO_DEFAULTS.items()}
    return {"samples": check_int_at_least("samples", options["samples"], 1),
            "beta": check_open_unit("error_prob", options["error_prob"]),
            "seed": check_int_at_least("seed", options["seed"], 0)}


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
