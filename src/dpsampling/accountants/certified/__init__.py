"""One certified engine for every sampler: lower and upper bounds on delta(eps) and eps(delta).

A sampler describes the law of one step's likelihood ratio dP/dQ under Q of its dominating pair
(``steps``: Poisson and WOR, (1 - q) + q Y; ``ballsbins_pld``: balls-and-bins' average of Y);
``laws`` carries an upper (convex order) and a lower (Jensen) discrete law of it, ``compose``
multiplies T of them on grids that coarsen as the spread grows, ``engine`` composes phases,
refines to the requested accuracy and reports the accuracy reached, and ``accountant`` is the
face every caller uses (:class:`Accountant`).
"""

from .accountant import Accountant, calibrate_sigma
from .engine import CERTIFIED_SAMPLERS, DEFAULT_MAX_GRID_POINTS, ENGINE_VERSION, Phase

__all__ = ["CERTIFIED_SAMPLERS", "DEFAULT_MAX_GRID_POINTS", "ENGINE_VERSION", "Accountant", "Phase",
           "calibrate_sigma"]
