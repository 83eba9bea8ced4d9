"""DpEvents that dp_accounting 0.6 does not have, for ``CertifiedAccountant``.

All are attrs classes like dp_accounting's own (frozen, slots), so ``to_named_tuple`` and
``from_named_tuple`` round-trip them by this module's path. The inner ``event`` is the mechanism
applied at each step (a ``GaussianDpEvent`` is what the accountant certifies).

- ``RandomAllocationDpEvent(event, num_selected, num_steps)``: the fields of dp_accounting PR #414
  (merged upstream, not in 0.6.0): each record takes part in ``num_selected`` of the
  ``num_steps`` steps, chosen uniformly at random; ``event`` is applied at each step. With
  ``num_selected = 1`` it is one epoch of balls-and-bins (chua25); K epochs, each with a fresh
  allocation, are ``SelfComposedDpEvent(event, K)``. When a dp_accounting release ships its own
  class, the accountant takes it too (``RANDOM_ALLOCATION_EVENTS``).
- ``KeptBinsDpEvent(event, cycle_length, iterations)``: jax-privacy 2.0's
  ``BallsInBinsSampling(iterations, cycle_length)``: each record draws one bin of
  ``cycle_length`` once and takes part in every step whose index is its bin modulo
  ``cycle_length``, for ``iterations`` steps (``certified.kept_bins``: the curve of one
  balls-and-bins epoch at sigma / sqrt(K)).
- ``ShuffledDpEvent(event, num_steps)``: one epoch of a fresh uniform permutation cut into
  ``num_steps`` fixed batches (each record in exactly one step); K epochs are
  ``SelfComposedDpEvent(event, K)``. It has no known dominating pair: it is answered by its
  bracket (chua24's E_C lower bound, the deterministic upper bound) and cannot be composed with
  other events.
"""

from __future__ import annotations

import attr
import dp_accounting


@attr.s(frozen=True, slots=True, auto_attribs=True)
class RandomAllocationDpEvent(dp_accounting.DpEvent):
    """Each record in ``num_selected`` uniformly chosen steps of ``num_steps`` (PR #414's fields)."""

    event: dp_accounting.DpEvent
    num_selected: int
    num_steps: int


@attr.s(frozen=True, slots=True, auto_attribs=True)
class KeptBinsDpEvent(dp_accounting.DpEvent):
    """Balls-in-bins with each record's bin kept across epochs (jax-privacy's BallsInBinsSampling)."""

    event: dp_accounting.DpEvent
    cycle_length: int
    iterations: int


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ShuffledDpEvent(dp_accounting.DpEvent):
    """One epoch of shuffled fixed batches: a uniform permutation cut into ``num_steps`` batches."""

    event: dp_accounting.DpEvent
    num_steps: int


RANDOM_ALLOCATION_EVENTS = tuple(cls for cls in (RandomAllocationDpEvent,
                                                 getattr(dp_accounting, "RandomAllocationDpEvent", None),
                                                 getattr(dp_accounting.dp_event, "RandomAllocationDpEvent", None))
                                 if cls is not None)
"""Ours, and dp_accounting's own class where the installed release has one."""

__all__ = ["RANDOM_ALLOCATION_EVENTS", "KeptBinsDpEvent", "RandomAllocationDpEvent", "ShuffledDpEvent"]
