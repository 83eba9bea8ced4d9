"""The pair of laws the engine carries (``Laws``: the upper law ``PointsLaw`` and the lower law
``MeansLaw`` of ``laws`` on one grid) and what it does to both at once: coarsen, multiply (the lower
law's products in a thread beside the upper law's: ``threads.beside``), mix, split."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import rounding
from .laws import (
    MeansLaw,
    PointsLaw,
    _merge_atoms,
    coarsen_means,
    coarsen_points,
    multiply_means,
    multiply_points,
)
from .threads import beside


@dataclass
class Laws:
    """The pair of laws on the grid of step h (``means`` None: an upper law alone); ``bottom_step``: one
    step's grid where coarser than h (balls-and-bins' ``level_steps``; the engine reports it), else None."""

    points: PointsLaw
    means: MeansLaw | None
    h: float
    bottom_step: float | None = None

    def coarsen(self, step: float) -> Laws:
        if step <= self.h:
            return self
        means = None if self.means is None else coarsen_means(self.means, self.h, step)
        return Laws(coarsen_points(self.points, self.h, step), means, step)

    def times(self, other: Laws | None) -> Laws:
        """Product with an independent ``other`` (None: with an independent copy of itself),
        on the coarser of the two grids; the lower laws' product in a thread beside the upper's."""
        step = self.h if other is None else max(self.h, other.h)
        a, b = self.coarsen(step), None if other is None else other.coarsen(step)
        lower = None
        if a.means is not None and (b is None or b.means is not None):
            lower = beside("lower law", a.size, multiply_means, a.means, None if b is None else b.means, step)
        points = multiply_points(a.points, None if b is None else b.points, step)
        return Laws(points, None if lower is None else lower.result(), step)

    @property
    def size(self) -> int:
        return max(self.points.p.size, 0 if self.means is None else self.means.m.size)

    def plus(self, other: Laws) -> Laws:
        """The mixture (sum of the measures) of two parts on the same grid."""
        a, b = self.points, other.points
        k0 = min(a.k0, b.k0)
        p = np.zeros(max(a.k0 + a.p.size, b.k0 + b.p.size) - k0)
        p[a.k0 - k0:a.k0 - k0 + a.p.size] += a.p
        p[b.k0 - k0:b.k0 - k0 + b.p.size] += b.p
        # PROOF Lemma 5: a mixture
        rel = rounding.grow(max(a.rel_error, b.rel_error), rounding.gamma(2))
        points = PointsLaw(k0, p, a.remove_excess + b.remove_excess, a.add_excess + b.add_excess, rel)
        means = _merge_atoms(np.concatenate([self.means.m, other.means.m]),
                             np.concatenate([self.means.lv, other.means.lv]), self.h,
                             max(self.means.rel_error, other.means.rel_error))
        return Laws(points, means, self.h)

    def split_at(self, k: int) -> tuple[Laws, Laws | None]:
        """The parts below and at or above grid index k: points k0..k - 1 and cells below k, and
        the rest (None where empty); the tail terms stay with the part below."""
        points, means = self.points, self.means
        i, j = k - points.k0, k - means.k0
        if i >= points.p.size or j >= means.m.size or not (points.p[i:].any() and means.m[j:].any()):
            return self, None
        if i <= 0 or j <= 0:
            raise ValueError(f"split index {k} leaves nothing below it")
        below = Laws(PointsLaw(points.k0, points.p[:i], points.remove_excess, points.add_excess, points.rel_error),
                     MeansLaw(means.k0, means.m[:j], means.lv[:j], means.rel_error), self.h)
        above = Laws(PointsLaw(k, points.p[i:], 0.0, 0.0, points.rel_error),
                     MeansLaw(k, means.m[j:], means.lv[j:], means.rel_error), self.h)
        return below, above

    def without_add_excess(self) -> tuple[Laws, float]:
        """The same laws with add_excess set to 0, and that add_excess."""
        points = self.points
        law = PointsLaw(points.k0, points.p, points.remove_excess, 0.0, points.rel_error)
        return Laws(law, self.means, self.h), points.add_excess
