"""Public functions: certified delta(eps) and eps(delta) brackets, and sigma calibration.

The balls-and-bins run is one phase of the certified engine (``accountants.certified``: its
refinement loop, its rows and its stopping rules). Refinement r uses the top grid step
h_top = min(SPREAD_SCALE * sd_T, COARSEST_STEP) / 2^r (sd_T: log-scale of A_T, see
``certified.ballsbins.log_sd_of_average``). Every refinement gives valid bounds, so the reported
upper bound is the minimum and the lower bound the maximum over all refinements run.
"""

from __future__ import annotations

import pandas as pd

from ...validation import check_array, check_int_at_least, check_nonnegative, check_open_unit, check_positive
from ..certified import Accountant, Phase, calibrate_sigma
from ..certified import ballsbins as _laws
from ..certified.compose import COARSEST_STEP, SPREAD_SCALE
from ..certified.engine import DIRECTION_NAMES, ENGINE_VERSION, MIN_SIGMA

DEFAULT_MAX_GRID_POINTS = 40_000
COLUMNS = {"delta": ("epsilon", "direction", "delta_lower", "delta_upper"),
           "epsilon": ("delta", "direction", "epsilon_lower", "epsilon_upper")}


def _check_common(sigma, steps, epochs, accuracy, max_grid_points):
    sigma = check_positive("sigma", sigma)
    if sigma < MIN_SIGMA:
        raise ValueError(f"sigma must be >= {MIN_SIGMA} for the PLD bounds (the grid of "
                         f"Y = exp(N(-1/(2 sigma^2), 1/sigma^2)) would overflow); got {sigma!r}")
    return (sigma, check_int_at_least("steps", steps, 1),
            check_int_at_least("epochs", epochs, 1), check_open_unit("accuracy", accuracy),
            check_int_at_least("max_grid_points", max_grid_points, 2))


def _bounds(quantity, values, sigma, steps, epochs, accuracy, max_grid_points, directions) -> pd.DataFrame:
    """The engine's frame for one balls-and-bins phase, with this module's columns and attrs."""
    sigma, steps, epochs, accuracy, max_grid_points = _check_common(sigma, steps, epochs, accuracy, max_grid_points)
    accountant = Accountant([Phase("balls_and_bins", sigma, steps, epochs)], accuracy=accuracy,
                            max_grid_points=max_grid_points, directions=directions)
    frame = accountant.delta_bounds(values) if quantity == "delta" else accountant.epsilon_bounds(values)
    attrs = dict(frame.attrs)
    out = frame.loc[:, list(COLUMNS[quantity])]
    h_top = attrs.pop("grid_step")
    attrs.pop("phases")
    out.attrs.update(attrs, method="pld", engine_version=ENGINE_VERSION, sigma=sigma, steps=steps, epochs=epochs,
                     grid_step_top=h_top,
                     grid_step_bottom=_laws.level_steps(sigma, steps, h_top, COARSEST_STEP, SPREAD_SCALE)[1])
    return out


def ballsbins_delta_bounds(sigma, steps, epsilons, *, epochs=1, accuracy=0.01,
                           max_grid_points=DEFAULT_MAX_GRID_POINTS, directions=DIRECTION_NAMES) -> pd.DataFrame:
    """Certified bounds on delta(eps) of balls-and-bins (``steps`` steps, ``epochs`` epochs).

    One row per (epsilon, direction), direction in remove, add, max; columns epsilon,
    direction, delta_lower, delta_upper. ``frame.attrs``: method, engine_version, the grid of
    the last refinement, accuracy_requested, accuracy_reached (max of (upper - lower) / upper
    over rows above the floor and the ``directions`` refined), refinements, converged."""
    eps = check_array("epsilon", epsilons, check_nonnegative)
    return _bounds("delta", eps, sigma, steps, epochs, accuracy, max_grid_points, directions)


def ballsbins_epsilon_bounds(sigma, steps, deltas, *, epochs=1, accuracy=0.01,
                             max_grid_points=DEFAULT_MAX_GRID_POINTS, directions=DIRECTION_NAMES) -> pd.DataFrame:
    """Certified bounds on eps(delta) = min{eps >= 0: delta(eps) <= delta}.

    epsilon_upper: the smallest eps >= 0 with delta_upper(eps) <= delta for the discrete law
    (bisection to 1e-13, rounded up; inf if the tail terms alone exceed delta); epsilon_lower:
    likewise from delta_lower, rounded down. Both are clipped at 0 (eps < 0 is not reported).
    Columns delta, direction, epsilon_lower, epsilon_upper; attrs as for the delta bounds,
    accuracy measured on eps."""
    ds = check_array("delta", deltas, check_open_unit)
    return _bounds("epsilon", ds, sigma, steps, epochs, accuracy, max_grid_points, directions)


def calibrate_ballsbins_sigma(target_epsilon, delta, steps, *, epochs=1, accuracy=0.01,
                              max_grid_points=DEFAULT_MAX_GRID_POINTS) -> tuple[float, float]:
    """(sigma_sufficient, sigma_insufficient) for eps(delta) <= target_epsilon (max direction).

    sigma_sufficient: its certified eps_upper is <= target_epsilon (a guarantee);
    sigma_insufficient: the largest sigma tried whose eps_upper is above target (not a proof
    that it fails: the true eps may be lower). The engine's calibration
    (``certified.calibrate_sigma``) on one balls-and-bins phase at sigma 1."""
    target = check_positive("target_epsilon", target_epsilon)
    delta = check_open_unit("delta", delta)
    _, steps, epochs, accuracy, max_grid_points = _check_common(1.0, steps, epochs, accuracy, max_grid_points)
    result = calibrate_sigma([Phase("balls_and_bins", 1.0, steps, epochs)], target, delta, accuracy=accuracy,
                             max_grid_points=max_grid_points)
    return result["scale"], result["scale_low"]
