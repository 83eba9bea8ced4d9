"""The accountant: a run (phases) in, certified bounds out, for every sampler alike.

    acc = Accountant([Phase("poisson", sigma=0.4, steps=100_000, sampling_rate=1e-5)])
    acc.epsilon_bounds([1e-6])     # rows (delta, direction): epsilon_lower, epsilon_upper
    acc.get_epsilon(1e-6)          # the certified upper bound of the maximum over directions

Inputs are checked once, when the run is described (``Phase``, ``Accountant``); every frame
records how it was computed in ``frame.attrs`` (phases, grid, refinements, accuracy reached).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...validation import check_array, check_int_at_least, check_nonnegative, check_open_unit, check_positive
from .engine import (
    DEFAULT_MAX_GRID_POINTS,
    DIRECTION_NAMES,
    Phase,
    as_phases,
    direction_columns,
    refined,
)

SIGMA_RELATIVE_TOLERANCE = 1e-3


class Accountant:
    """Certified bounds of a run of one or more phases (``engine.Phase``)."""

    def __init__(self, phases, *, accuracy: float = 0.01, max_grid_points: int = DEFAULT_MAX_GRID_POINTS,
                 directions=DIRECTION_NAMES):
        """``directions``: those whose gap the refinement brings within ``accuracy`` (every
        direction is reported; the others with the gap they reached)."""
        self.phases = as_phases(phases)
        self.accuracy = check_open_unit("accuracy", accuracy)
        self.max_grid_points = check_int_at_least("max_grid_points", max_grid_points, 2)
        self.directions = tuple(DIRECTION_NAMES[c] for c in direction_columns(directions))

    def _frame(self, values, name, bounds, gaps, attrs, quantity) -> pd.DataFrame:
        n = values.size
        frame = pd.DataFrame({
            name: np.repeat(values, 3),
            "direction": np.tile(DIRECTION_NAMES, n),
            f"{quantity}_lower": bounds[..., 0].reshape(-1),
            f"{quantity}_upper": bounds[..., 1].reshape(-1),
            "accuracy": gaps.reshape(-1),
        })
        frame.attrs.update(attrs, phases=[p.as_dict() for p in self.phases])
        return frame

    def delta_bounds(self, epsilons) -> pd.DataFrame:
        """Rows (epsilon, direction in remove, add, max): delta_lower, delta_upper, accuracy (the
        relative gap (upper - lower) / upper; 0 where delta_upper is below the floor:
        DELTA_FLOOR, or EXCESS_FLOOR_FACTOR times the tail and rounding terms, attrs["excess"])."""
        eps = check_array("epsilon", epsilons, check_nonnegative)
        bounds, gaps, attrs = refined(self.phases, eps, "delta", self.accuracy, self.max_grid_points,
                                      self.directions)
        return self._frame(eps, "epsilon", bounds, gaps, attrs, "delta")

    def epsilon_bounds(self, deltas) -> pd.DataFrame:
        """Rows (delta, direction): epsilon_lower, epsilon_upper (eps >= 0; inf if the tail terms
        alone pass delta), accuracy (as for the delta bounds, floor EPSILON_FLOOR)."""
        ds = check_array("delta", deltas, check_open_unit)
        bounds, gaps, attrs = refined(self.phases, ds, "epsilon", self.accuracy, self.max_grid_points,
                                      self.directions)
        return self._frame(ds, "delta", bounds, gaps, attrs, "epsilon")

    def _maximum_only(self) -> Accountant:
        return Accountant(self.phases, accuracy=self.accuracy, max_grid_points=self.max_grid_points,
                          directions=("max",))

    def get_epsilon(self, delta: float) -> float:
        """Certified upper bound on eps(delta), maximum over the directions (refined for it alone)."""
        frame = self._maximum_only().epsilon_bounds([delta])
        return float(frame.loc[frame["direction"] == "max", "epsilon_upper"].iloc[0])

    def get_delta(self, epsilon: float) -> float:
        """Certified upper bound on delta(eps), maximum over the directions (refined for it alone)."""
        frame = self._maximum_only().delta_bounds([epsilon])
        return float(frame.loc[frame["direction"] == "max", "delta_upper"].iloc[0])


def _scaled(phases, factor: float):
    return tuple(Phase(p.sampler, p.sigma * factor, p.steps, p.epochs, p.sampling_rate) for p in phases)


def calibrate_sigma(phases, target_epsilon: float, delta: float, *, direction: str = "max",
                    accuracy: float = 0.01, max_grid_points: int = DEFAULT_MAX_GRID_POINTS) -> dict:
    """The smallest multiple c of every phase's sigma whose certified eps_upper(delta) in
    ``direction`` is <= target_epsilon, to relative tolerance SIGMA_RELATIVE_TOLERANCE.

    Returns scale (sufficient: a guarantee), scale_low (the largest tried that was not
    certified; not a proof that it fails) and evaluations. One phase: c times its sigma."""
    phases = as_phases(phases)
    target = check_positive("target_epsilon", target_epsilon)
    delta = check_open_unit("delta", delta)
    if direction not in DIRECTION_NAMES:
        raise ValueError(f"direction must be one of {', '.join(DIRECTION_NAMES)}; got {direction!r}")
    evaluations = 0

    def ok(c):
        nonlocal evaluations
        evaluations += 1
        frame = Accountant(_scaled(phases, c), accuracy=accuracy, max_grid_points=max_grid_points,
                           directions=(direction,)).epsilon_bounds([delta])
        return bool(frame.loc[frame["direction"] == direction, "epsilon_upper"].iloc[0] <= target)

    smallest = 0.05 / min(p.sigma for p in phases) * 1.0001
    lo, hi = 1.0, 1.0
    if ok(hi):
        while True:
            lo = max(lo / 2.0, smallest)
            if not ok(lo):
                break
            if lo == smallest:
                raise ValueError(f"target_epsilon must be small enough that sigma 0.05 does not already meet it; "
                                 f"got {target_epsilon}")
            hi = lo
    else:
        while True:
            lo, hi = hi, hi * 2.0
            if hi * max(p.sigma for p in phases) > 1e4:
                raise ValueError(f"target_epsilon must be reachable with sigma <= 1e4; got {target_epsilon}")
            if ok(hi):
                break
    while hi / lo - 1.0 > SIGMA_RELATIVE_TOLERANCE:
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return {"scale": hi, "scale_low": lo, "evaluations": evaluations}
