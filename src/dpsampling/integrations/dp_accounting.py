"""``CertifiedAccountant``: a ``dp_accounting.PrivacyAccountant`` that answers with certified bounds.

    import dp_accounting
    from dpsampling.integrations.dp_accounting import CertifiedAccountant

    event = dp_accounting.PoissonSampledDpEvent(256 / 60_000, dp_accounting.GaussianDpEvent(1.1))
    accountant = CertifiedAccountant()            # was: dp_accounting.pld.PLDAccountant()
    accountant.compose(event, 4_700)
    accountant.get_epsilon(1e-5)                  # the certified upper bound
    accountant.epsilon_bounds([1e-5])             # lower and upper bounds, both directions

It composes ``GaussianDpEvent``, ``PoissonSampledDpEvent``, ``SampledWithoutReplacementDpEvent``,
``SelfComposedDpEvent``, ``ComposedDpEvent`` and ``NoOpDpEvent``, and the events of
``integrations.events``: ``RandomAllocationDpEvent`` (PR #414's fields; balls-and-bins; also
dp_accounting's own class where a release has it), ``KeptBinsDpEvent`` (jax-privacy's
balls-in-bins with kept bins) and ``ShuffledDpEvent`` (answered by its bracket: chua24's E_C
lower bound and the deterministic upper bound; it cannot be composed with other events).

Each event becomes phases of the face (``integrations.ledger``: equal events merge, e.g. K epochs
of one allocation are one balls-and-bins phase of K epochs) and every answer comes from one
``dpsampling.Accountant`` over them.

**Conventions** (``integrations.ledger`` in full): ``noise_multiplier`` = noise std / clip norm
(dp_accounting's ``GaussianDpEvent``). ``SampledWithoutReplacementDpEvent(n, b, ...)`` samples at
rate q = b / n. ADD_OR_REMOVE_ONE: the face's add_or_remove (the maximum of the add and remove
curves). REPLACE_ONE (the replaced record may be any record, so the sums differ by 2C): a Gaussian
event is N(-C) vs N(+C), i.e. the Gaussian mechanism at z / 2 (as dp_accounting's PLDAccountant);
a WOR event is lebeda24's substitution (alone in the run); other events are unsupported under it.
REPLACE_SPECIAL is refused. ``get_epsilon`` / ``get_delta`` return the certified upper bound the
relation reads; ``epsilon_bounds`` / ``delta_bounds`` the face's long frame (lower and upper bound
per direction: remove, add, max). A noise multiplier of 0 (or below a sampler's certified grid)
gives the trivial bounds eps = inf and delta = 1, so ``dp_accounting.calibrate_dp_mechanism`` can
search from 0.

**Bad input.** An event the project cannot certify (Laplace inside a sampling event, nested
sampling, a negative count, a sampler under a relation it has no pair for, a shuffled event beside
others): ``supports()`` is False and ``compose`` raises dp_accounting's ``UnsupportedEventError``
naming the sub-event and the reason (``unsupported_reason`` gives it alone). A bad value inside an
event (a negative noise multiplier, a sample larger than the dataset): one ``ValueError`` naming
the field, the value and what is allowed.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from dp_accounting import NeighboringRelation, PrivacyAccountant

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.certified.engine import DEFAULT_MAX_GRID_POINTS
from dpsampling.accountants.frames import NoFiniteBound, headline_value, statement
from dpsampling.integrations.bounds import constant_frame, run_frame
from dpsampling.integrations.events import KeptBinsDpEvent, RandomAllocationDpEvent, ShuffledDpEvent
from dpsampling.integrations.ledger import (
    RELATIONS,
    Unsupported,
    merge,
    parts,
    run_phases,
    run_relation,
    trivial_reason,
)
from dpsampling.validation import check_array, check_int_at_least, check_nonnegative, check_open_unit


class CertifiedAccountant(PrivacyAccountant):
    """A dp_accounting ``PrivacyAccountant`` answering with the certified engine (module docstring).

    ``neighboring_relation``: ADD_OR_REMOVE_ONE (default) or REPLACE_ONE; ``accuracy``: the
    relative gap (upper - lower) / upper the bounds are refined to; ``max_grid_points``: the
    largest discrete law the engine may build."""

    def __init__(self, neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE, *,
                 accuracy: float = 0.01, max_grid_points: int = DEFAULT_MAX_GRID_POINTS):
        if neighboring_relation not in RELATIONS:
            raise ValueError(f"neighboring_relation must be one of {', '.join(r.name for r in RELATIONS)} (the "
                             f"relations the project has dominating pairs for); got {neighboring_relation!r}")
        super().__init__(neighboring_relation)
        self.accuracy = check_open_unit("accuracy", accuracy)
        self.max_grid_points = check_int_at_least("max_grid_points", max_grid_points, 2)
        self._parts: dict = {}
        self._answers: dict = {}

    # -- composition ------------------------------------------------------------------------------

    def _maybe_compose(self, event, count: int, do_compose: bool):
        try:
            items = parts(event, count, self.neighboring_relation)
            # supports() asks with count 0: the structure is checked as if composed once
            self._check_run(merge([(part, max(n, 1)) for part, n in items], self._parts))
            merged = merge(items, self._parts)
        except Unsupported as error:  # a run-level refusal names the event being composed
            return PrivacyAccountant.CompositionErrorDetails(invalid_event=error.event or event,
                                                             error_message=error.reason)
        if do_compose:
            self._parts = merged
            self._answers.clear()
        return None

    def _check_run(self, merged: dict) -> None:
        """The run composes in the face (one shuffle phase alone, substitution for one wor phase)."""
        phases = run_phases(merged)
        if not phases:
            return
        try:
            self._accountant(phases, run_relation(merged))
        except ValueError as error:
            raise Unsupported(None, f"the run cannot be accounted as composed: {error}") from None

    def unsupported_reason(self, event, count: int = 1) -> str | None:
        """Why ``event`` cannot be composed into this accountant, or None if it can."""
        details = self._maybe_compose(event, count, False)
        return None if details is None else details.error_message

    # -- the face ---------------------------------------------------------------------------------

    def _accountant(self, phases, relation: str) -> Accountant:
        return Accountant(phases, relation=relation, accuracy=self.accuracy, max_grid_points=self.max_grid_points)

    def phases(self, lower: bool = False) -> tuple:
        """The run composed so far as the face's phases (those of the dominated run with ``lower``,
        which differ only for kept bins with a partial last epoch)."""
        return run_phases(self._parts, lower)

    @property
    def relation(self) -> str:
        """The face's relation the run is accounted under (add_or_remove or substitution)."""
        return run_relation(self._parts)

    def _answer(self, quantity: str, values: np.ndarray) -> pd.DataFrame:
        key = (quantity, tuple(values))
        if key not in self._answers:
            self._answers[key] = self._compute(quantity, values)
        return self._answers[key].copy()  # the cache is not the caller's to change

    def _compute(self, quantity: str, values: np.ndarray) -> pd.DataFrame:
        attrs = {"neighboring_relation": self.neighboring_relation.name, "dp_event": repr(self.ledger)}
        reason = trivial_reason(self._parts)
        phases = self.phases()
        if reason is not None or not phases:
            return constant_frame(quantity, values, self.accuracy, reason, attrs)
        frame = run_frame(phases, self.phases(lower=True), quantity, values, relation=self.relation,
                          accuracy=self.accuracy, max_grid_points=self.max_grid_points)
        frame.attrs.update(attrs)
        return frame

    def epsilon_bounds(self, deltas) -> pd.DataFrame:
        """The face's long frame of eps bounds at each delta: every direction (remove, add, max)."""
        return self._answer("epsilon", check_array("delta", deltas, check_open_unit))

    def delta_bounds(self, epsilons) -> pd.DataFrame:
        """The face's long frame of delta bounds at each eps: every direction (remove, add, max)."""
        return self._answer("delta", check_array("epsilon", epsilons, check_nonnegative))

    def get_epsilon(self, target_delta: float) -> float:
        """The certified upper bound on eps(target_delta) that the relation reads; inf where the
        engine's proven floor already reaches target_delta (``frames.NoFiniteBound``: no finite eps
        is certified there), as dp_accounting's accountants answer an unbounded eps, so that
        ``calibrate_dp_mechanism`` reads such a noise as not enough."""
        delta = check_open_unit("target_delta", target_delta)
        try:
            return headline_value(self._answer("epsilon", np.array([delta])))
        except NoFiniteBound:
            return math.inf

    def get_delta(self, target_epsilon: float) -> float:
        """The certified upper bound on delta(target_epsilon) that the relation reads."""
        epsilon = check_nonnegative("target_epsilon", target_epsilon)
        return headline_value(self._answer("delta", np.array([epsilon])))

    def statement(self, target_delta: float) -> str:
        """The sentence to report for this run at ``target_delta`` (``frames.statement``)."""
        return statement(self.epsilon_bounds([target_delta]))


__all__ = ["CertifiedAccountant", "KeptBinsDpEvent", "RandomAllocationDpEvent", "ShuffledDpEvent"]
