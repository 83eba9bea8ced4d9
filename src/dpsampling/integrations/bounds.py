"""The long frame of a run that lies between two runs of the face: the upper bounds of the
dominating run, the lower bounds of the dominated one (kept bins with a partial last epoch,
Opacus' partial epochs), and the constant frames of an empty or trivial run. Shared by the
integrations; every frame passes ``frames.check_bounds`` before it leaves."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.frames import bounds_frame, check_bounds, relative_gaps
from dpsampling.accountants.relations import DEFAULT_RELATION, DIRECTION_NAMES, relation_direction


def _query(accountant: Accountant, quantity: str, values: np.ndarray) -> pd.DataFrame:
    return accountant.epsilon_bounds(values) if quantity == "epsilon" else accountant.delta_bounds(values)


def constant_frame(quantity: str, values: np.ndarray, accuracy: float, reason: str | None,
                   attrs: dict | None = None) -> pd.DataFrame:
    """No step at all (eps = delta = 0, exact; ``reason`` None) or a run with only the trivial
    bounds (lower 0, upper eps = inf / delta = 1; ``reason`` says why)."""
    bounds = np.zeros((values.size, len(DIRECTION_NAMES), 2))
    if reason is not None:
        bounds[..., 1] = np.inf if quantity == "epsilon" else 1.0
    methods = ("no step composed", "no step composed") if reason is None else ("trivial", f"trivial: {reason}")
    base = {"phases": [], "relation": DEFAULT_RELATION, "headline": relation_direction(DEFAULT_RELATION),
            "method": "certified", "refine": "all", "tight_pair": reason is None, "computation": {}}
    return bounds_frame(quantity, values, bounds, methods, accuracy, {**base, **(attrs or {})})


def run_frame(phases: tuple, lower_phases: tuple, quantity: str, values: np.ndarray, *, relation: str,
              accuracy: float, refine: str = "all", **options) -> pd.DataFrame:
    """The face's long frame of ``phases`` (upper bounds), with the lower bounds of the dominated
    run ``lower_phases`` where it differs (empty: lower bound 0)."""
    upper = _query(Accountant(phases, relation=relation, accuracy=accuracy, refine=refine, **options), quantity,
                   values)
    if lower_phases == phases:
        return upper
    frame = upper.copy()
    low, high = f"{quantity}_lower", f"{quantity}_upper"
    if lower_phases:
        lower = _query(Accountant(lower_phases, relation=relation, accuracy=accuracy, refine=refine, **options),
                       quantity, values)
        frame[low] = lower[low].to_numpy()
        frame["lower_method"] = lower["lower_method"].to_numpy() + " (of the dominated run)"
    else:
        frame[low] = 0.0
        frame["lower_method"] = "0 (no whole epoch: no dominated run)"
    check_bounds(frame[[low, high]].to_numpy().reshape(values.size, len(DIRECTION_NAMES), 2), quantity, values)
    gaps = relative_gaps(frame[low].to_numpy(), frame[high].to_numpy())
    frame["accuracy"], frame["converged"] = gaps, gaps <= accuracy
    frame.attrs.update(upper.attrs, lower_phases=[phase.as_dict() for phase in lower_phases])
    return frame


__all__ = ["constant_frame", "run_frame"]
