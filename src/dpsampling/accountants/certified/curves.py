"""A step known only by its privacy curve: the connect-the-dots upper law on the engine's grid.

A convex privacy curve delta(eps) (eps real, delta(eps) >= 1 - e^eps, delta -> 1 as eps -> -inf)
is dominated by the pair whose curve is its linear interpolation in alpha = e^eps through the
grid points alpha_k = g_k = e^{k h}, |k h| <= eps_max, starting from (alpha, delta) = (0, 1) and
flat at delta(eps_max) beyond (connect-the-dots; lebeda24 App. D builds WOR's substitution bound
this way from the pointwise maximum of the two single-step curves). As a law of L = dP/dQ under
Q: L = g_k with probability q_k, the increase of the interpolant's slope at alpha_k; L = 0 with
the rest of Q's mass; and P has mass delta(eps_max) where Q has none (L = infinity). In the
engine's terms that is a ``PointsLaw`` with masses q_k and remove_excess delta(eps_max): P's mass
at infinity adds exactly that to every remove delta, and under composition it is a first moment
lost (E_Q[L] = 1 - delta(eps_max)), as the engine tracks it; Q's mass at 0 counts fully in the
add direction, which ``laws.charged_excess`` charges as 1 - mass. Only an upper law exists here
(a curve says nothing about a lower one): the T-fold product is a certified upper bound, refined
until it moves by less than the accuracy asked for.

The slopes are differences of delta values: their rounding is ~1e-16 / (delta's change over one
cell), negligible at the engine's grids (h >= ~1e-4 for the settings this serves).
"""

from __future__ import annotations

import math

import numpy as np

from ... import progress
from ...validation import check_int_at_least, check_open_unit
from . import _kernels
from .compose import TwoGrid, level_step, power
from .engine import DELTA_FLOOR, EPSILON_FLOOR
from .laws import Laws, PointsLaw, charged_excess, prune_points


def curve_points(curve, h: float, epsilon_max: float, dual=None) -> PointsLaw:
    """The connect-the-dots law of ``curve`` (vectorised delta(eps)) on the grid of step h.

    Below eps = 0 the slopes are differences of delta values near 1 divided by alpha = e^eps:
    an error e in delta(-epsilon_max) becomes e e^epsilon_max of Q's mass at the lowest point,
    and under T compositions T times that in every add delta (at epsilon_max 16, 1e-12 gives
    ~1e-5 a step). With ``dual`` (the curve of the swapped pair, delta'(eps) = 1 - e^eps +
    e^eps delta(-eps); the curve itself for a symmetric pair) they come from u = alpha delta'(-eps)
    = delta - (1 - alpha) instead, with no cancellation: slopes + 1 = differences of u over
    differences of alpha, Q's mass at 0 is delta'(epsilon_max) and the total mass is exactly
    1 - delta'(epsilon_max)."""
    m = max(1, math.ceil(epsilon_max / h))
    eps = np.arange(-m, m + 1) * h
    alpha = np.exp(eps)
    if dual is None:
        delta = np.asarray(curve(eps), dtype=float)
        slopes = np.empty(eps.size + 1)
        slopes[0] = (delta[0] - 1.0) / alpha[0]
        slopes[1:-1] = np.diff(delta) / np.diff(alpha)
        slopes[-1] = 0.0
        return PointsLaw(-m, np.maximum(np.diff(slopes), 0.0), remove_excess=float(delta[-1]), add_excess=0.0)
    left, right = alpha[:m + 1], alpha[m:]  # alpha <= 1 and alpha >= 1 (both hold alpha = 1)
    u = left * np.asarray(dual(-eps[:m + 1]), dtype=float)
    delta = np.asarray(curve(eps[m:]), dtype=float)
    shifted = np.concatenate([[u[0] / left[0]], np.diff(u) / np.diff(left)])  # slopes + 1, left of 1
    slopes = np.concatenate([np.diff(delta) / np.diff(right), [0.0]])  # right of 1
    masses = np.concatenate([np.diff(shifted), [slopes[0] + 1.0 - shifted[-1]], np.diff(slopes)])
    return PointsLaw(-m, np.maximum(masses, 0.0), remove_excess=float(delta[-1]), add_excess=0.0)


def _upper_rows(laws: Laws, values: np.ndarray, kind: str) -> np.ndarray:
    """(n, 2): remove and add upper bounds at ``values`` (eps for "delta", delta for "epsilon")."""
    points = laws.points
    lv = (points.k0 + np.arange(points.p.size)) * laws.h
    excesses = charged_excess(points, laws.h)
    out = np.empty((values.size, 2))
    for i, value in enumerate(values):
        for j, remove in enumerate((True, False)):
            if kind == "delta":
                out[i, j] = min(1.0, _kernels.hockey_stick(points.p, lv, value, remove) + excesses[j])
            else:
                out[i, j] = _kernels.epsilon_for_delta(points.p, lv, excesses[j], value, remove, True)
    return out


def _largest_move(before: np.ndarray, after: np.ndarray, floor: float) -> float:
    """The largest relative decrease of a bound above ``floor`` (inf where it became finite)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        moves = np.where(np.isinf(before), np.where(np.isinf(after), 0.0, np.inf), (before - after) / before)
    return float(np.max(np.where(before > floor, moves, 0.0), initial=0.0))


def composed_curve_upper(curve, epsilon_max: float, sd_one: float, compositions: int, values, kind: str,
                         accuracy: float, max_grid_points: int, dual=None) -> tuple[np.ndarray, dict]:
    """Upper bounds (n, 2: remove, add) at ``values`` of ``compositions`` independent steps each
    dominated by ``curve``'s connect-the-dots pair; the grid steps are the engine's for a step of
    log-scale ``sd_one`` (``compose``). Each refinement halves them and keeps the smaller bound,
    until no row moves by more than ``accuracy`` (relative; rows at or below the engine's
    DELTA_FLOOR / EPSILON_FLOOR not counted), or the next level would pass
    ``max_grid_points``; ``dual``: as ``curve_points`` (give it whenever the curve's values near
    delta = 1 are not exact). Returns the bounds and how they were computed."""
    accuracy = check_open_unit("accuracy", accuracy)
    max_grid_points = check_int_at_least("max_grid_points", max_grid_points, 2)
    values = np.asarray(values, dtype=float)
    floor = DELTA_FLOOR if kind == "delta" else EPSILON_FLOOR
    best, refinement = None, 0
    with progress.bar("connect-the-dots upper bound: refinements") as bar:
        while True:
            h = level_step(sd_one, 1, refinement)
            points = prune_points(curve_points(curve, h, epsilon_max, dual), h)
            laws, largest = power(TwoGrid(Laws(points, None, h), None, h), compositions, sd_one, refinement)
            bar.update()
            rows = _upper_rows(laws, values, kind)
            moved = np.inf if best is None else _largest_move(best, np.minimum(best, rows), floor)
            best = rows if best is None else np.minimum(best, rows)
            converged = moved <= accuracy
            if converged or 2 * largest > max_grid_points:
                break
            refinement += 1
    attrs = {"method": "certified connect-the-dots upper bound", "grid_step": laws.h, "refinements": refinement + 1,
             "grid_points_largest": int(largest), "last_relative_move": moved, "converged": converged}
    return best, attrs
