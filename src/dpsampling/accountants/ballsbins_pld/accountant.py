"""Public functions: certified delta(eps) and eps(delta) brackets, and sigma calibration.

Refinement r uses the top grid step h_top = min(SPREAD_SCALE * sd_T, COARSEST_STEP) / 2^r
(sd_T: log-scale of A_T, see ``_laws.log_sd_of_average``). Every refinement gives valid
bounds, so the reported upper bound is the minimum and the lower bound the maximum over all
refinements run; refinement stops when the relative gap is <= ``accuracy`` (converged) or when
the next refinement would need arrays longer than ``max_grid_points`` (not converged).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ... import progress
from ...validation import (
    check_array,
    check_int_at_least,
    check_nonnegative,
    check_open_unit,
    check_positive,
)
from ..certified import _kernels
from ..certified import ballsbins as _laws

ENGINE_VERSION = 1
DEFAULT_MAX_GRID_POINTS = 40_000
COARSEST_STEP = 0.08
SPREAD_SCALE = 0.125
# accuracy_reached: delta rows with delta_upper <= DELTA_FLOOR are left out of the gap (their
# bounds are still valid; below it the 1e-30-level tail terms and rounding are not negligible
# relative to delta); eps rows with epsilon_upper <= EPSILON_FLOOR likewise.
DELTA_FLOOR = 1e-12
EPSILON_FLOOR = 1e-4
# calibrate_ballsbins_sigma stops when sigma_sufficient / sigma_insufficient - 1 <= this.
SIGMA_RELATIVE_TOLERANCE = 1e-3
# Below this the grid of log Y reaches ~1/sigma^2 + 12/sigma > 700 and exp overflows.
MIN_SIGMA = 0.05
DIRECTION_NAMES = ("remove", "add", "max")


@dataclass
class _Run:
    points: _laws.PointsLaw
    means: _laws.MeansLaw
    h_top: float
    h_bottom: float
    largest: int


def _run(sigma: float, steps: int, epochs: int, refinement: int) -> _Run:
    sd_top = _laws.log_sd_of_average(sigma, steps)
    h_top = min(SPREAD_SCALE * sd_top, COARSEST_STEP) / 2.0**refinement
    (points, means), largest = _laws.composed_laws(sigma, steps, epochs, h_top, COARSEST_STEP,
                                                   SPREAD_SCALE)
    h_bottom = _laws.level_steps(sigma, steps, h_top, COARSEST_STEP, SPREAD_SCALE)[1]
    return _Run(points, means, h_top, h_bottom, largest)


def _point_logs(run: _Run) -> np.ndarray:
    return (run.points.k0 + np.arange(run.points.p.size)) * run.h_top


def _delta_rows(run: _Run, epsilons: np.ndarray) -> np.ndarray:
    """Array (n_eps, 4): remove lower, remove upper, add lower, add upper."""
    lv_points = _point_logs(run)
    out = np.empty((epsilons.size, 4))
    for i, eps in enumerate(epsilons):
        out[i, 0] = _kernels.hockey_stick(run.means.m, run.means.lv, eps, True)
        out[i, 1] = (_kernels.hockey_stick(run.points.p, lv_points, eps, True)
                     + run.points.remove_excess)
        out[i, 2] = _kernels.hockey_stick(run.means.m, run.means.lv, eps, False)
        out[i, 3] = (_kernels.hockey_stick(run.points.p, lv_points, eps, False)
                     + run.points.add_excess)
    return np.clip(out, 0.0, 1.0)


def _epsilon_rows(run: _Run, deltas: np.ndarray) -> np.ndarray:
    """Array (n_delta, 4): remove lower, remove upper, add lower, add upper (eps >= 0)."""
    lv_points = _point_logs(run)
    out = np.empty((deltas.size, 4))
    for i, delta in enumerate(deltas):
        for j, remove in enumerate((True, False)):
            out[i, 2 * j] = _kernels.epsilon_for_delta(run.means.m, run.means.lv, 0.0, delta,
                                                       remove, False)
            excess = run.points.remove_excess if remove else run.points.add_excess
            out[i, 2 * j + 1] = _kernels.epsilon_for_delta(run.points.p, lv_points, excess, delta,
                                                           remove, True)
    return out


def _with_max(rows: np.ndarray) -> np.ndarray:
    """(n, 3, 2): [remove, add, max] x [lower, upper]; max is the larger of the two directions
    for both bounds (delta and eps alike)."""
    remove, add = rows[:, 0:2], rows[:, 2:4]
    return np.stack([remove, add, np.maximum(remove, add)], axis=1)


def _relative_gap(bounds: np.ndarray, floor: float) -> float:
    lower, upper = bounds[..., 0], bounds[..., 1]
    counted = upper > floor
    if not counted.any():
        return 0.0
    with np.errstate(invalid="ignore"):
        gaps = np.where(np.isinf(upper), np.inf, (upper - lower) / np.where(counted, upper, 1.0))
    return float(np.max(gaps[counted]))


def _check_common(sigma, steps, epochs, accuracy, max_grid_points):
    sigma = check_positive("sigma", sigma)
    if sigma < MIN_SIGMA:
        raise ValueError(f"sigma must be >= {MIN_SIGMA} for the PLD bounds (the grid of "
                         f"Y = exp(N(-1/(2 sigma^2), 1/sigma^2)) would overflow); got {sigma!r}")
    return (sigma, check_int_at_least("steps", steps, 1),
            check_int_at_least("epochs", epochs, 1), check_open_unit("accuracy", accuracy),
            check_int_at_least("max_grid_points", max_grid_points, 2))


def _refine(sigma, steps, epochs, accuracy, max_grid_points, rows_of, floor):
    """Run refinements until the gap of the combined bounds is <= accuracy or the cap is hit;
    upper bounds are minimised and lower bounds maximised over the refinements run."""
    best = None
    refinement = 0
    with progress.bar(f"certified PLD bounds (sigma={sigma:g}, T={steps}, K={epochs}): refinements") as bar:
        while True:
            run = _run(sigma, steps, epochs, refinement)
            bar.update()
            if refinement == 0 and run.largest > max_grid_points:
                raise ValueError(f"max_grid_points must be at least {run.largest} for sigma={sigma}, "
                                 f"steps={steps}, epochs={epochs}; got {max_grid_points}")
            bounds = _with_max(rows_of(run))
            if best is None:
                best = bounds
            else:
                best[..., 0] = np.maximum(best[..., 0], bounds[..., 0])
                best[..., 1] = np.minimum(best[..., 1], bounds[..., 1])
            gap = _relative_gap(best, floor)
            converged = gap <= accuracy
            if converged or 2 * run.largest > max_grid_points:
                break
            refinement += 1
    attrs = {
        "method": "pld",
        "engine_version": ENGINE_VERSION,
        "sigma": sigma,
        "steps": steps,
        "epochs": epochs,
        "grid_step_top": run.h_top,
        "grid_step_bottom": run.h_bottom,
        "grid_points_largest": int(run.largest),
        "max_grid_points": int(max_grid_points),
        "accuracy_requested": accuracy,
        "accuracy_reached": gap,
        "accuracy_floor": floor,
        "refinements": refinement + 1,
        "converged": bool(converged),
    }
    return best, attrs


def _frame(values, name, bounds, attrs, lower_name, upper_name):
    n = values.size
    frame = pd.DataFrame({
        name: np.repeat(values, 3),
        "direction": np.tile(DIRECTION_NAMES, n),
        lower_name: bounds[..., 0].reshape(-1),
        upper_name: bounds[..., 1].reshape(-1),
    })
    frame.attrs.update(attrs)
    return frame


def ballsbins_delta_bounds(sigma, steps, epsilons, *, epochs=1, accuracy=0.01,
                           max_grid_points=DEFAULT_MAX_GRID_POINTS) -> pd.DataFrame:
    """Certified bounds on delta(eps) of balls-and-bins (``steps`` steps, ``epochs`` epochs).

    One row per (epsilon, direction), direction in remove, add, max; columns epsilon,
    direction, delta_lower, delta_upper. ``frame.attrs``: method, engine_version, the grid of
    the last refinement, accuracy_requested, accuracy_reached (max of (upper - lower) / upper
    over rows with upper > DELTA_FLOOR), refinements, converged."""
    sigma, steps, epochs, accuracy, max_grid_points = _check_common(
        sigma, steps, epochs, accuracy, max_grid_points)
    eps = check_array("epsilon", epsilons, check_nonnegative)
    bounds, attrs = _refine(sigma, steps, epochs, accuracy, max_grid_points,
                            lambda run: _delta_rows(run, eps), DELTA_FLOOR)
    return _frame(eps, "epsilon", bounds, attrs, "delta_lower", "delta_upper")


def ballsbins_epsilon_bounds(sigma, steps, deltas, *, epochs=1, accuracy=0.01,
                             max_grid_points=DEFAULT_MAX_GRID_POINTS) -> pd.DataFrame:
    """Certified bounds on eps(delta) = min{eps >= 0: delta(eps) <= delta}.

    epsilon_upper: the smallest eps >= 0 with delta_upper(eps) <= delta for the discrete law
    (bisection to 1e-13, rounded up; inf if the tail terms alone exceed delta); epsilon_lower:
    likewise from delta_lower, rounded down. Both are clipped at 0 (eps < 0 is not reported).
    Columns delta, direction, epsilon_lower, epsilon_upper; attrs as for the delta bounds,
    accuracy measured on eps (rows with epsilon_upper > EPSILON_FLOOR)."""
    sigma, steps, epochs, accuracy, max_grid_points = _check_common(
        sigma, steps, epochs, accuracy, max_grid_points)
    ds = check_array("delta", deltas, check_open_unit)
    bounds, attrs = _refine(sigma, steps, epochs, accuracy, max_grid_points,
                            lambda run: _epsilon_rows(run, ds), EPSILON_FLOOR)
    return _frame(ds, "delta", bounds, attrs, "epsilon_lower", "epsilon_upper")


def _sufficient(sigma, target, delta, steps, epochs, accuracy, max_grid_points) -> bool:
    frame = ballsbins_epsilon_bounds(sigma, steps, [delta], epochs=epochs, accuracy=accuracy,
                                     max_grid_points=max_grid_points)
    return bool(frame.loc[frame["direction"] == "max", "epsilon_upper"].iloc[0] <= target)


def calibrate_ballsbins_sigma(target_epsilon, delta, steps, *, epochs=1, accuracy=0.01,
                              max_grid_points=DEFAULT_MAX_GRID_POINTS) -> tuple[float, float]:
    """(sigma_sufficient, sigma_insufficient) for eps(delta) <= target_epsilon (max direction).

    sigma_sufficient: its certified eps_upper is <= target_epsilon (a guarantee);
    sigma_insufficient: the largest sigma tried whose eps_upper is above target (not a proof
    that it fails: the true eps may be lower). Bisection in log sigma until
    sigma_sufficient / sigma_insufficient - 1 <= SIGMA_RELATIVE_TOLERANCE."""
    target = check_positive("target_epsilon", target_epsilon)
    delta = check_open_unit("delta", delta)
    _, steps, epochs, accuracy, max_grid_points = _check_common(
        1.0, steps, epochs, accuracy, max_grid_points)

    def ok(s):
        return _sufficient(s, target, delta, steps, epochs, accuracy, max_grid_points)

    lo, hi = 1.0, 1.0
    if ok(hi):
        while True:
            lo = max(lo / 2.0, MIN_SIGMA)
            if not ok(lo):
                break
            if lo == MIN_SIGMA:
                raise ValueError(f"target_epsilon must be small enough that sigma = {MIN_SIGMA} "
                                 f"does not already meet it; got {target_epsilon}")
            hi = lo
    else:
        while not ok(hi):
            lo, hi = hi, hi * 2.0
            if hi > 1e4:
                raise ValueError(f"target_epsilon must be reachable with sigma <= 1e4; got "
                                 f"{target_epsilon}")
    while hi / lo - 1.0 > SIGMA_RELATIVE_TOLERANCE:
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi, lo
