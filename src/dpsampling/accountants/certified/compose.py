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
from dataclasses import dataclass

import numpy as np

from . import ballsbins as ballsbins_laws
from .laws import MeansLaw, PointsLaw, _cut_charges, lower_keep, prune_means, prune_points
from .pair import Laws
from .steps import log_sd, split_log, split_step, step_log_range, subsampled_step

SPREAD_SCALE = 0.125
COARSEST_STEP = 0.08
STEP_POINTS = 2**19  # at most this many grid points in one step's law (the largest array of a run)
# a TwoGrid's fine part keeps all but mass SPLIT_MASS (fine h / coarse step)^2 (about 1e-3 coarse events a run)
SPLIT_MASS = 1e-3
TAIL_BUDGET = 1e-16  # total first moment left above the top points of all steps of a run (1% of 1e-14)


def level_step(sd_one: float, n: int, refinement: int) -> float:
    """Grid step of the product of n copies before snapping (module docstring)."""
    return min(SPREAD_SCALE * math.sqrt(n) * sd_one, COARSEST_STEP) / 2.0**refinement


def snapped(h_one: float, target: float) -> float:
    """The largest h_one 2^j (j >= 0) not above ``target``."""
    return h_one * 2.0 ** max(0, math.floor(math.log2(target / h_one) + 1e-9))


NEGLIGIBLE_MASS = 1e-140  # a coarse part this light is dropped (its square would fall below convolution.TINY)


@dataclass
class TwoGrid:
    """A law as two parts: ``fine`` on the grid of step fine.h holds all but a small mass,
    ``coarse`` (None: empty) the upper tail on the grid of step ``step`` (a multiple of fine.h).

    A heavy-tailed step (small q, small sigma) has a long upper tail of small mass: on one grid
    fine enough for the bulk it needs ~1e5-1e6 points; on two grids a few thousand. The parts
    are sub-probabilities whose sum is the law; a product of two such laws is the sum of the
    four products of parts, each on the coarser grid of its two factors (a mean-preserving
    spread or a merge of a part is one of the mixture, so both orders hold). After each product
    the fine part keeps what lies below the point above which the mass is at most
    (fine.h / step)^2, so that the variance the coarse grid adds (mass x step^2) is at most the
    fine grid's (fine.h^2); the rest moves to the coarse grid. Tail terms: remove_excess is
    bilinear and adds up over the parts; add_excess (mass moved up, at most its probability) is
    taken off the parts and charged once per product, e_X + e_Z (union bound, as for one grid).
    """

    fine: Laws
    coarse: Laws | None
    step: float

    @property
    def size(self) -> int:
        return max(self.fine.size, 0 if self.coarse is None else self.coarse.size)

    def merged(self) -> Laws:
        fine = self.fine.coarsen(self.step)
        return fine if self.coarse is None else fine.plus(self.coarse)

    def coarsen(self, h: float) -> TwoGrid:
        if self.coarse is None or h >= self.step:
            return TwoGrid(self.merged().coarsen(h), None, max(self.step, h))
        return TwoGrid(self.fine.coarsen(h), self.coarse, self.step)

    def without_negligible_tail(self) -> TwoGrid:
        """The law without a coarse part of mass <= NEGLIGIBLE_MASS, whose products would underflow.
        Dropping it is valid: the lower law only loses mass (every delta can only fall), and the
        upper law's lost mass and first moment (and the part's own tail terms) are charged to the
        fine part's add_excess and remove_excess (a cut, as in ``laws.multiply_points``)."""
        if self.coarse is None:
            return self
        if float(self.coarse.points.p.sum()) > NEGLIGIBLE_MASS:
            if float(self.coarse.means.m.sum()) > NEGLIGIBLE_MASS:
                return self
            empty = MeansLaw(self.coarse.means.k0, np.zeros(1), np.zeros(1), 0.0)  # free for a lower law
            return TwoGrid(self.fine, Laws(self.coarse.points, empty, self.coarse.h), self.step)
        coarse, fine = self.coarse.points, self.fine.points
        moment, mass = _cut_charges(coarse.p / (1.0 - coarse.rel_error), coarse.k0, self.coarse.h)
        charged = PointsLaw(fine.k0, fine.p, fine.remove_excess + coarse.remove_excess + moment,
                            fine.add_excess + coarse.add_excess + mass, fine.rel_error)
        return TwoGrid(Laws(charged, self.fine.means, self.fine.h), None, self.step)

    def times(self, other: TwoGrid | None) -> TwoGrid:
        """Product with an independent ``other`` (None: with an independent copy of itself)."""
        self = self.without_negligible_tail()
        other = None if other is None else other.without_negligible_tail()
        b = self if other is None else other
        h = max(self.fine.h, b.fine.h)
        step = max(self.step, b.step)
        if h >= step or (self.coarse is None and b.coarse is None and h >= min(self.step, b.step)):
            merged = self.merged().times(None if other is None else other.merged())
            return TwoGrid(merged, None, max(step, merged.h))
        fine_a, e_a = self.fine.coarsen(h).without_add_excess()
        fine_b, e_b = (fine_a, e_a) if other is None else b.fine.coarsen(h).without_add_excess()
        coarse_a, c_a = _stripped(self.coarse, step)
        coarse_b, c_b = (coarse_a, c_a) if other is None else _stripped(b.coarse, step)
        parts = []
        if coarse_a is not None:
            cross = coarse_a.times(fine_b.coarsen(step))
            parts.append(cross)
            parts.append(cross if other is None else None)
            if coarse_b is not None:
                parts.append(coarse_a.times(None if other is None else coarse_b))
        if coarse_b is not None and other is not None:
            parts.append(coarse_b.times(fine_a.coarsen(step)))
        product = fine_a.times(None if other is None else fine_b)
        cut = _cut_index(product, SPLIT_MASS * (h / step) ** 2)
        fine, above = product.split_at(cut)
        if above is not None:
            parts.append(above.coarsen(step))
        coarse = None
        for part in parts:
            if part is not None:
                coarse = part if coarse is None else coarse.plus(part)
        points = fine.points
        fine = Laws(PointsLaw(points.k0, points.p, points.remove_excess, points.add_excess + e_a + e_b + c_a + c_b,
                              points.rel_error), fine.means, fine.h)
        return TwoGrid(fine, coarse, step)


def _stripped(part: Laws | None, step: float) -> tuple[Laws | None, float]:
    if part is None:
        return None, 0.0
    return part.coarsen(step).without_add_excess()


def _cut_index(laws: Laws, mass: float) -> int:
    """The lowest grid index above which the upper law has mass at most ``mass`` (leaving a
    point and a cell of each law below it)."""
    p = laws.points.p
    above = np.cumsum(p[::-1])[::-1]  # above[i] = sum_{j >= i} p_j
    i = int(np.searchsorted(-above, -mass, side="left"))  # first i with above[i] <= mass
    return max(laws.points.k0 + max(i, 1), laws.means.k0 + 1)


def power(step_laws: TwoGrid, compositions: int, sd_one: float, refinement: int) -> tuple[Laws, int]:
    """Laws of the product of ``compositions`` independent copies of ``step_laws``, and the
    largest array length of any level."""
    h_one = step_laws.fine.h
    result = None
    factor, n = step_laws, 1
    largest = step_laws.size
    remaining = compositions
    in_result = 0
    while remaining:
        if remaining & 1:
            in_result += n
            with lower_keep(in_result / compositions):
                result = factor if result is None else result.times(factor)
            largest = max(largest, result.size)
        remaining >>= 1
        if remaining:
            n *= 2
            with lower_keep(n / compositions):
                factor = factor.coarsen(snapped(h_one, level_step(sd_one, n, refinement))).times(None)
            largest = max(largest, factor.size)
    return result.merged(), largest


def subsampled_laws(sigma: float, rate: float, compositions: int, refinement: int,
                    two_grids: bool = True) -> tuple[Laws, int]:
    """Laws of prod_t L_t, L_t iid (1 - rate) + rate Y (``steps``), ``compositions`` factors,
    and the largest array length used. A heavy upper tail goes to a coarse grid (``TwoGrid``):
    the step of the largest power of two <= compositions, the grid the product ends on
    (``two_grids=False``: one grid throughout, the reference the tests compare with)."""
    sd_one = log_sd(sigma, rate)
    tail = TAIL_BUDGET / compositions
    low, high = step_log_range(sigma, rate, tail)
    h = level_step(sd_one, 1, refinement)
    top_step = level_step(sd_one, 1 << (compositions.bit_length() - 1), refinement)
    if two_grids and rate < 1.0 and top_step >= 2.0 * h:
        cut = split_log(sigma, rate, SPLIT_MASS * (h / top_step) ** 2)
        # the fine part spans [low, cut]: at tiny rates h ~ rate would need millions of points;
        # a coarser h stays valid (both laws are bounds at any h), the refinement measures the gap
        h = max(h, (cut - low) / STEP_POINTS)
        coarse_step = snapped(h, top_step)
        if coarse_step > h and cut < high:
            (fine_up, fine_low), (coarse_up, coarse_low) = split_step(sigma, rate, h, coarse_step, cut, tail)
        # a tail part whose mass underflows is no tail: one grid (below) holds the whole step
        if coarse_step > h and cut < high and np.any(coarse_up.p > 0) and np.any(coarse_low.m > 0):
            fine = Laws(prune_points(fine_up, h), prune_means(fine_low, h), h)
            coarse = Laws(prune_points(coarse_up, coarse_step), prune_means(coarse_low, coarse_step), coarse_step)
            laws, largest = power(TwoGrid(fine, coarse, coarse_step), compositions, sd_one, refinement)
            return laws, max(largest, fine_up.p.size, coarse_up.p.size)
    h = max(h, (high - low) / STEP_POINTS)
    points, means = subsampled_step(sigma, rate, h, tail)
    step_laws = Laws(prune_points(points, h), prune_means(means, h), h)
    laws, largest = power(TwoGrid(step_laws, None, h), compositions, sd_one, refinement)
    return laws, max(largest, points.p.size)


def ballsbins_run_laws(sigma: float, steps: int, epochs: int, refinement: int) -> tuple[Laws, int]:
    """Laws of balls-and-bins (``ballsbins``' construction, same grids) and the largest
    array length used."""
    coarsest, scale = COARSEST_STEP, SPREAD_SCALE
    sd_top = ballsbins_laws.log_sd_of_average(sigma, steps)
    h_top = min(scale * sd_top, coarsest) / 2.0**refinement
    (points, means), largest = ballsbins_laws.composed_laws(sigma, steps, epochs, h_top, coarsest, scale)
    bottom = ballsbins_laws.level_steps(sigma, steps, h_top, coarsest, scale)[1]  # one step's grid
    return Laws(points, means, h_top, bottom), largest
