"""dp-accounting's PLD of the subsampled Gaussian pairs, as certified brackets (the reference).

Poisson's pair (1 - q) N(0, s^2) + q N(1, s^2) vs N(0, s^2) and WOR's (the same at distance 2,
lebeda24 Thm 10.2) are built with ``from_gaussian_mechanism`` (``sensitivity`` = distance,
``sampling_prob`` = q): pessimistic connect-the-dots for the upper bound, optimistic privacy
buckets for the lower one, refined by ``pld_bounds.refined_bounds`` (which also corrects their
floating-point round-off so that both stay bounds). At q = 1 the T steps are one Gaussian
mechanism with noise sigma / sqrt(T), composed exactly.
"""

from __future__ import annotations

import math

import numpy as np

from dpsampling.accountants.reference import pld_bounds
from dpsampling.lazy import lazy_import

dp_accounting = lazy_import("dp_accounting")

DISCRETIZATION = 1e-4  # the interval refinement starts from
MIN_DISCRETIZATION = 1e-6  # the finest it may reach
METHOD = "dp-accounting PLD ({} estimate, refined)"


def gaussian_pld(sigma: float, rate: float, steps: int, distance: float, pessimistic: bool, discretization: float):
    """The ``steps``-fold composed PLD (both directions inside) of the pair at ``distance``."""
    if rate >= 1.0:
        sigma, steps = sigma / math.sqrt(steps), 1
    single = dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism(sigma, sensitivity=distance, sampling_prob=rate,
                                             pessimistic_estimate=pessimistic,
                                             value_discretization_interval=discretization,
                                             use_connect_dots=pessimistic)
    return pld_bounds.compose(single, steps)


def _phase_bounds(phase, distance: float, quantity: str, values: np.ndarray, accuracy: float):
    """((n, 3, 2) bounds, (lower, upper) methods, attrs) of a validated Poisson or WOR phase."""
    out = pld_bounds.refined_bounds(
        lambda pessimistic, d: gaussian_pld(phase.sigma, phase.sampling_rate, phase.steps, distance, pessimistic, d),
        quantity, values, accuracy, DISCRETIZATION, MIN_DISCRETIZATION)
    bounds = np.empty((values.size, 3, 2))
    for column, prefix in enumerate(("remove_", "add_", "")):
        bounds[:, column, 0] = out[f"{prefix}lower"]
        bounds[:, column, 1] = out[f"{prefix}upper"]
    attrs = {"method": "dp_accounting", "discretization": out["discretization"].tolist(),
             "converged_rows": np.asarray(out["converged"]).tolist()}
    return bounds, (METHOD.format("optimistic"), METHOD.format("pessimistic")), attrs


__all__ = ["DISCRETIZATION", "METHOD", "MIN_DISCRETIZATION", "gaussian_pld"]
