"""Poisson subsampling (P): certified bounds, dp-accounting's PLD bounds and the RDP upper bound.

One step of ABLQ_P is tightly dominated by A = (1 - q) N(0, sigma^2) + q N(1, sigma^2) vs
B = N(0, sigma^2) (chua24 Sec. 3); T steps (K epochs: K T steps) by the product. remove is
D(A^T || B^T), add is D(B^T || A^T). dp-accounting's privacy loss distribution (PLD) gives
an upper bound with ``pessimistic_estimate=True`` (connect-the-dots) and a lower bound with
``pessimistic_estimate=False`` (privacy buckets, rounding down); the gap shrinks with the
discretization interval, which every result records. RDP (Mironov 2017, dp-accounting's
conversion) bounds the maximum of the two directions only. The headline bounds come from the
certified engine (``accountants.certified``, method "certified"); dp-accounting's PLDs stay
selectable (method "dp_accounting") and serve as an independent cross-check in the tests.

The interval starts at ``max_discretization`` (delta queries: ``discretization``) and shrinks 4x
at a time until upper and lower bound agree to ``relative_accuracy`` in every row, or
``min_discretization`` is reached (``accountants.pld_bounds``, which also explains the
floating-point corrections that keep every delta in [0, 1] and every bound a bound).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import dp_accounting
import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from dpsampling.accountants import pld_bounds
from dpsampling.accountants.relations import DIRECTION_NAMES
from dpsampling.validation import (
    check_array,
    check_int_at_least,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_rate,
)

REFINEMENT_FACTOR = pld_bounds.REFINEMENT_FACTOR


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
    return pld_bounds.compose(single, run.compositions)


PLD_METHODS = ("certified", "dp_accounting")


def _certified(kind: str, values, sampler: str, run: SubsampledGaussianRun, relative_accuracy: float,
               directions=DIRECTION_NAMES) -> dict:
    """The certified engine's bounds (``accountants.certified``) in pld_bounds.refined_bounds' shape,
    refined in ``directions`` (accuracy: the largest gap over them)."""
    from dpsampling.accountants.certified import Accountant, Phase

    phase = Phase(sampler, run.sigma, run.steps, run.epochs, run.rate)
    accountant = Accountant([phase], accuracy=min(relative_accuracy, 0.5), directions=directions)
    frame = accountant.delta_bounds(values) if kind == "delta" else accountant.epsilon_bounds(values)
    quantity = "delta" if kind == "delta" else "epsilon"
    out = {}
    for direction, key in (("remove", "remove"), ("add", "add"), ("max", None)):
        rows = frame[frame["direction"] == direction]
        for bound in ("lower", "upper"):
            out[f"{key}_{bound}" if key else bound] = rows[f"{quantity}_{bound}"].to_numpy()
    columns = [DIRECTION_NAMES.index(d) for d in accountant.directions]
    gaps = frame["accuracy"].to_numpy().reshape(-1, 3)[:, columns].max(axis=1)  # largest over the refined ones
    out["discretization"] = np.full(len(values), frame.attrs["grid_step"])
    out["accuracy"] = gaps
    out["converged"] = gaps <= relative_accuracy
    return out


def _check_method(method: str) -> str:
    if method not in PLD_METHODS:
        raise ValueError(f"pld method must be one of {', '.join(PLD_METHODS)}; got {method!r}")
    return method


def pld_delta(epsilon, run: PoissonAccounting, discretization: float = 1e-4, relative_accuracy: float = 1e-2,
              min_discretization: float | None = None, method: str = "certified",
              directions=DIRECTION_NAMES) -> dict:
    """delta_P(eps) bounds: keys ``{remove,add}_{upper,lower}``, ``upper``, ``lower`` (arrays), and
    ``discretization``, ``accuracy``, ``converged`` per eps.

    method "certified" (default): the certified engine, refined until upper and lower meet to
    ``relative_accuracy`` (``discretization`` is then its final grid step in log-likelihood-ratio);
    "dp_accounting": dp-accounting's PLDs (``pld_bounds.refined_bounds``), the interval starting
    at ``discretization`` and shrinking to ``min_discretization`` (default: no refinement).
    ``directions``: those the certified engine refines (the others as reached; dp_accounting: all).
    """
    eps = check_array("epsilon", epsilon, check_nonnegative)
    if _check_method(method) == "certified":
        return _certified("delta", eps, "poisson", run, relative_accuracy, directions)
    minimum = discretization if min_discretization is None else min_discretization
    return pld_bounds.refined_bounds(lambda pessimistic, d: poisson_pld(run, pessimistic, d), "delta", eps,
                                     relative_accuracy, discretization, minimum)


def pld_epsilon(
    delta,
    run: PoissonAccounting,
    relative_accuracy: float = 1e-2,
    max_discretization: float = 1e-4,
    min_discretization: float = 1e-6,
    method: str = "certified",
    directions=DIRECTION_NAMES,
) -> dict:
    """eps_P(delta) bounds per direction and their maximum, plus the discretization, accuracy and
    convergence per delta (method and directions as for :func:`pld_delta`)."""
    deltas = check_array("delta", delta, check_open_unit)
    if _check_method(method) == "certified":
        return _certified("epsilon", deltas, "poisson", run, relative_accuracy, directions)
    return pld_bounds.refined_bounds(lambda pessimistic, d: poisson_pld(run, pessimistic, d), "epsilon", deltas,
                                     relative_accuracy, max_discretization, min_discretization)


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
