"""RDP upper bounds from dp-accounting (Mironov 2017 conversion, its default orders).

- ``poisson_accountant``: the Poisson subsampled Gaussian (Mironov et al. 2019), which bounds both
  directions (the RDP of the remove/add pair); WOR's add/remove pair is Poisson's at sigma / 2;
- ``wor_substitution``: WOR under replace-one (Wang et al. 2019) at noise multiplier sigma / 2
  (the base mechanism's substitution sensitivity is 2).

``_phase_bounds`` is ``Accountant(method="rdp")``'s body (private: the face checks the run first):
the RDP upper bound in every row (it bounds both directions at once), and 0 as the lower bound
(RDP bounds from above only; eps and delta are >= 0).
"""

from __future__ import annotations

import logging

import numpy as np

from dpsampling.lazy import lazy_import

dp_accounting = lazy_import("dp_accounting")
_REFERENCE_SIZE = 10**9  # dp-accounting's WOR bound depends on the rate only (sample size / dataset size)


def poisson_accountant(sigma: float, rate: float, steps: int):
    """RDP accountant of ``steps`` Poisson subsampled Gaussian steps (sensitivity 1)."""
    logging.getLogger("absl").setLevel(logging.ERROR)
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(rate, dp_accounting.GaussianDpEvent(sigma)), steps)
    return accountant


def wor_substitution(sigma: float, rate: float, steps: int):
    """RDP accountant of ``steps`` WOR steps under replace-one, noise multiplier sigma / 2."""
    logging.getLogger("absl").setLevel(logging.ERROR)
    batch = max(1, round(rate * _REFERENCE_SIZE))
    event = dp_accounting.SampledWithoutReplacementDpEvent(_REFERENCE_SIZE, batch,
                                                           dp_accounting.GaussianDpEvent(sigma / 2.0))
    accountant = dp_accounting.rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    accountant.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    return accountant


UPPER_METHOD = "dp-accounting RDP (Mironov 2017 conversion)"
LOWER_METHOD = "none: RDP bounds from above only (0)"


def _phase_bounds(phase, relation: str, quantity: str, values: np.ndarray):
    """((n, 3, 2) bounds, (lower, upper) methods, attrs) of a validated Poisson or WOR phase: under
    substitution WOR's replace-one RDP, otherwise Poisson's at sigma / distance (the pair's)."""
    if relation == "substitution":
        accountant = wor_substitution(phase.sigma, phase.sampling_rate, phase.steps)
    else:
        accountant = poisson_accountant(phase.sigma / phase.spec.distance, phase.sampling_rate, phase.steps)
    upper = query(accountant, quantity, values)  # dp-accounting's delta is min(., 1) already
    bounds = np.zeros((values.size, 3, 2))
    bounds[..., 1] = upper[:, None]
    return bounds, (LOWER_METHOD, UPPER_METHOD), {"method": "rdp", "orders": "dp-accounting's default"}


def query(accountant, quantity: str, values) -> np.ndarray:
    """delta at each eps (quantity "delta") or eps at each delta ("epsilon")."""
    ask = accountant.get_delta if quantity == "delta" else accountant.get_epsilon
    return np.array([float(ask(float(v))) for v in np.atleast_1d(values)])


__all__ = ["LOWER_METHOD", "UPPER_METHOD", "poisson_accountant", "query", "wor_substitution"]
