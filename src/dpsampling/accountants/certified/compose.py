"""Composition of many steps: T-fold products of one step's laws on grids that coarsen with T.

The product of n iid copies of L has log-scale sd_n ~ sqrt(n) sd_1 (``steps.log_sd``). Its grid
step is h_n = min(SPREAD_SCALE sd_n, COARSEST_STEP) / 2^r (r: the refinement), snapped down to
h_1 2^j, so that every level adds errors of the same relative size (second order in h_n / sd_n:
a mean-preserving spread or a conditional mean moves the variance by O(h_n^2)) and costs about the
same. G_T is built by binary powering: the running power is coarsened to the next level's grid
and squared; a factor joins the result on the coarser of their two grids.
"""

from __future__ import annotations

import math

from . import ballsbins as ballsbins_laws
from .laws import Laws, prune_means, prune_points
from .steps import log_sd, step_log_range, subsampled_step

SPREAD_SCALE = 0.125
COARSEST_STEP = 0.08
STEP_POINTS = 2**19  # at most this many grid points in one step's law (the largest array of a run)
TAIL_BUDGET = 1e-16  # total first moment left above the top points of all steps of a run (1% of 1e-14)


def level_step(sd_one: float, n: int, refinement: int) -> float:
    """Grid step of the product of n copies before snapping (module docstring)."""
    return min(SPREAD_SCALE * math.sqrt(n) * sd_one, COARSEST_STEP) / 2.0**refinement


def snapped(h_one: float, target: float) -> float:
    """The largest h_one 2^j (j >= 0) not above ``target``."""
    return h_one * 2.0 ** max(0, math.floor(math.log2(target / h_one) + 1e-9))


def power(step_laws: Laws, compositions: int, sd_one: float, refinement: int) -> tuple[Laws, int]:
    """Laws of the product of ``compositions`` independent copies of ``step_laws``, and the
    largest array length of any level."""
    h_one = step_laws.h
    result = None
    factor, n = step_laws, 1
    largest = step_laws.size
    remaining = compositions
    while remaining:
        if remaining & 1:
            result = factor if result is None else result.times(factor)
            largest = max(largest, result.size)
        remaining >>= 1
        if remaining:
            n *= 2
            factor = factor.coarsen(snapped(h_one, level_step(sd_one, n, refinement))).times(None)
            largest = max(largest, factor.size)
    return result, largest


def subsampled_laws(sigma: float, rate: float, compositions: int, refinement: int) -> tuple[Laws, int]:
    """Laws of prod_t L_t, L_t iid (1 - rate) + rate Y (``steps``), ``compositions`` factors,
    and the largest array length used."""
    sd_one = log_sd(sigma, rate)
    tail = TAIL_BUDGET / compositions
    low, high = step_log_range(sigma, rate, tail)
    # the step's grid spans [low, high]: at tiny rates h ~ rate would need millions of points;
    # a coarser h stays valid (both laws are bounds at any h), the refinement measures the gap
    h = max(level_step(sd_one, 1, refinement), (high - low) / STEP_POINTS)
    points, means = subsampled_step(sigma, rate, h, tail)
    step_laws = Laws(prune_points(points, h), prune_means(means, h), h)
    laws, largest = power(step_laws, compositions, sd_one, refinement)
    return laws, max(largest, points.p.size)


def ballsbins_run_laws(sigma: float, steps: int, epochs: int, refinement: int) -> tuple[Laws, int]:
    """Laws of balls-and-bins (``ballsbins_pld``'s construction, same grids) and the largest
    array length used."""
    coarsest, scale = COARSEST_STEP, SPREAD_SCALE
    sd_top = ballsbins_laws.log_sd_of_average(sigma, steps)
    h_top = min(scale * sd_top, coarsest) / 2.0**refinement
    (points, means), largest = ballsbins_laws.composed_laws(sigma, steps, epochs, h_top, coarsest, scale)
    return Laws(points, means, h_top), largest
