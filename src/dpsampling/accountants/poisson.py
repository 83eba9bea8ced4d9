"""Poisson subsampling (P): dp-accounting's PLD bounds and RDP upper bound.

One step of ABLQ_P is tightly dominated by A = (1 - q) N(0, sigma^2) + q N(1, sigma^2) vs
B = N(0, sigma^2) (chua24 Sec. 3); T steps (K epochs: K T steps) by the product. remove is
D(A^T || B^T), add is D(B^T || A^T). dp-accounting's privacy loss distribution (PLD) gives
an upper bound with ``pessimistic_estimate=True`` (connect-the-dots) and a lower bound with
``pessimistic_estimate=False`` (privacy buckets, rounding down); the gap shrinks with the
discretization interval, which every result records. RDP (Mironov 2017, dp-accounting's
conversion) bounds the maximum of the two directions only.

For eps queries the interval starts at ``max_discretization`` and shrinks 4x at a time until
the upper bound moves by less than ``relative_accuracy`` (relative), so that small eps (0.01
at sigma = 1.3, T = 1e5) are resolved without paying for fine grids at large eps.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import dp_accounting
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from dpsampling.validation import (
    check_array,
    check_int_at_least,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_rate,
)

REFINEMENT_FACTOR = 4.0


@dataclass(frozen=True)
class SubsampledGaussianRun:
    """A subsampled Gaussian run: ``steps`` per epoch at sampling rate ``rate``, validated."""

    sigma: float
    steps: int
    epochs: int = 1
    rate: float | None = None  # default 1/steps (one epoch = expected one participation)

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(self, "steps", check_int_at_least("steps", self.steps, 1))
        object.__setattr__(self, "epochs", check_int_at_least("epochs", self.epochs, 1))
        rate = 1.0 / self.steps if self.rate is None else check_rate("sampling_rate", self.rate)
        object.__setattr__(self, "rate", rate)

    @property
    def compositions(self) -> int:
        return self.steps * self.epochs


class PoissonAccounting(SubsampledGaussianRun):
    """Parameters of a Poisson subsampled Gaussian run: ``steps`` per epoch at rate ``rate``."""


def poisson_pld(run: PoissonAccounting, pessimistic: bool, discretization: float):
    """The composed dp-accounting PLD (both directions inside) of a Poisson run."""
    discretization = check_positive("pld discretization", discretization)
    single = pld_lib.from_gaussian_mechanism(
        run.sigma,
        sensitivity=1.0,
        sampling_prob=run.rate,
        pessimistic_estimate=pessimistic,
        value_discretization_interval=discretization,
        use_connect_dots=pessimistic,  # connect-the-dots only supports pessimistic rounding
    )
    return single.self_compose(run.compositions)


def _directions(pld):
    # dp-accounting keeps the two directions as _pmf_remove / _pmf_add and only exposes their
    # maximum; the tests check that our per-direction maximum equals its public answer.
    return {"remove": pld._pmf_remove, "add": pld._pmf_add}


def pld_delta(epsilon, run: PoissonAccounting, discretization: float = 1e-4) -> dict:
    """delta_P(eps) bounds: keys ``{remove,add}_{upper,lower}``, ``upper``, ``lower`` (arrays)."""
    eps = check_array("epsilon", epsilon, check_nonnegative)
    out = {"discretization": discretization}
    for bound, pessimistic in (("upper", True), ("lower", False)):
        pld = poisson_pld(run, pessimistic, discretization)
        for direction, pmf in _directions(pld).items():
            out[f"{direction}_{bound}"] = np.array([pmf.get_delta_for_epsilon(float(e)) for e in eps])
        out[bound] = np.maximum(out[f"remove_{bound}"], out[f"add_{bound}"])
    return out


def _converged_upper_epsilon(run, delta, relative_accuracy, max_discretization, min_discretization):
    """Refine the interval by 4x until eps_upper moves by <= relative_accuracy (relative).

    Every pessimistic PLD gives a valid upper bound; the one with the smallest eps is returned
    with its interval.
    """
    interval = max_discretization
    pld = poisson_pld(run, True, interval)
    best = pld.get_epsilon_for_delta(delta)
    while interval / REFINEMENT_FACTOR >= min_discretization:
        finer_pld = poisson_pld(run, True, interval / REFINEMENT_FACTOR)
        value = finer_pld.get_epsilon_for_delta(delta)
        improvement = best - value
        if value < best:
            best, pld, interval = value, finer_pld, interval / REFINEMENT_FACTOR
        if improvement <= relative_accuracy * best:
            break
    return interval, pld


def pld_epsilon(
    delta,
    run: PoissonAccounting,
    relative_accuracy: float = 1e-2,
    max_discretization: float = 1e-4,
    min_discretization: float = 1e-6,
) -> dict:
    """eps_P(delta) bounds per direction and their maximum, plus the discretization used per delta."""
    deltas = check_array("delta", delta, check_open_unit)
    relative_accuracy = check_positive("relative_accuracy", relative_accuracy)
    keys = [f"{d}_{b}" for d in ("remove", "add") for b in ("upper", "lower")]
    out = {k: np.zeros(len(deltas)) for k in keys + ["discretization"]}
    for i, d in enumerate(deltas):
        interval, upper = _converged_upper_epsilon(run, float(d), relative_accuracy, max_discretization, min_discretization)
        out["discretization"][i] = interval
        for bound, pld in (("upper", upper), ("lower", poisson_pld(run, False, interval))):
            for direction, pmf in _directions(pld).items():
                out[f"{direction}_{bound}"][i] = pmf.get_epsilon_for_delta(float(d))
    out["upper"] = np.maximum(out["remove_upper"], out["add_upper"])
    out["lower"] = np.maximum(out["remove_lower"], out["add_lower"])
    return out


def _rdp_accountant(run: PoissonAccounting):
    accountant = dp_accounting.rdp.RdpAccountant()
    event = dp_accounting.PoissonSampledDpEvent(run.rate, dp_accounting.GaussianDpEvent(run.sigma))
    accountant.compose(event, run.compositions)
    return accountant


def poisson_rdp_delta(epsilon, run: PoissonAccounting) -> np.ndarray:
    """RDP upper bound on max(remove, add) delta_P(eps)."""
    eps = check_array("epsilon", epsilon, check_nonnegative)
    accountant = _rdp_accountant(run)
    return np.array([accountant.get_delta(float(e)) for e in eps])


def poisson_rdp_epsilon(delta, run: PoissonAccounting) -> np.ndarray:
    """RDP upper bound on max(remove, add) eps_P(delta)."""
    deltas = check_array("delta", delta, check_open_unit)
    accountant = _rdp_accountant(run)
    return np.array([accountant.get_epsilon(float(d)) for d in deltas])


logging.getLogger("absl").setLevel(logging.ERROR)
