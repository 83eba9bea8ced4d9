"""The sampler registry: one entry per batch sampler, and nothing else compares sampler names.

An entry says how a run of the sampler is described (by a sampling rate, or by epochs), the
relations it is accounted under, its dominating pair (the law of one step's likelihood ratio for
the certified engine, ``laws``; or closed forms), which bounds exist and how they are computed,
and its documentation. Tables, compare, calibration, schedules, the CLI and the papers' code
loop over ``SAMPLERS`` or ask an entry; adding a sampler is one entry plus its law.

Dominating pairs (remove = D(P||Q), add = D(Q||P); sigma = noise std / clip norm):

- deterministic (D): each example in exactly one batch per epoch; K epochs are the Gaussian
  mechanism N(sqrt(K), sigma^2) vs N(0, sigma^2) (chua24 Sec. 3), symmetric, exact.
- shuffle (S): a fresh permutation per epoch; no dominating pair is known. Lower bound: the sets
  E_C of chua24 eq. (3) on its worst-case pair; upper bound: delta_S <= delta_D (chua24 Thm 4.1).
  It cannot be composed with other phases (there is no pair to compose).
- poisson (P): P = (1 - q) N(0, sigma^2) + q N(1, sigma^2), Q = N(0, sigma^2) per step (chua24 Sec. 3).
- wor (W): fixed-size batches without replacement, q = b / n: Poisson's pair at distance 2, i.e. at
  sigma / 2 (lebeda24 Thm 10.2, tight by Prop. 9.2). Substitution: the Appendix D construction.
- balls_and_bins (B): each example in one uniformly random step of the epoch; the average of T
  copies of Y per epoch (chua25 Thm 3.1; proofs in ``certified.ballsbins``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpsampling import SAMPLERS as SAMPLER_NAMES
from dpsampling.accountants.certified.compose import ballsbins_run_laws, subsampled_laws
from dpsampling.accountants.certified.engine import MIN_SIGMA
from dpsampling.accountants.certified.substitution import substitution_bounds
from dpsampling.accountants.closed_form import gaussian, shuffle
from dpsampling.accountants.reference import pld
from dpsampling.accountants.relations import ADD_OR_REMOVE, RELATIONS
from dpsampling.validation import check_choice

EXACT = "exact Gaussian mechanism (chua24 Prop. 3.1)"
CERTIFIED_LOWER = "certified lower law (Jensen)"
CERTIFIED_UPPER = "certified upper law (convex order)"


@dataclass(frozen=True)
class Sampler:
    """One batch sampler (module docstring). ``laws(phase, refinement)``: the engine's laws of the
    phase's likelihood ratio and the largest array used; ``gaussian_weight(phase)``: (sensitivity /
    sigma)^2 where the phase is one Gaussian mechanism (answered in closed form), else None;
    ``closed_form(phase, quantity, values)``: bounds of a phase that has no dominating pair to
    compose ((n, 3, 2) and the attrs), else None; ``substitution`` and ``reference`` (dp-accounting's
    PLD): the bounds under substitution and by the reference method, where they exist."""

    name: str
    letter: str
    title: str
    rate_based: bool
    relations: tuple[str, ...]
    lower_method: str
    upper_method: str
    doc: str
    laws: Callable | None = None
    gaussian_weight: Callable = lambda phase: None
    closed_form: Callable | None = None
    substitution: Callable | None = None
    reference: Callable | None = None
    min_sigma: float = MIN_SIGMA
    distance: float = 1.0  # of the two components of a rate-based sampler's pair (data in [-1, 1])
    tight: bool = True

    @property
    def composable(self) -> bool:
        """Whether a phase of it composes with other phases (it has a dominating pair)."""
        return self.closed_form is None

    def check_sigma(self, sigma: float) -> None:
        if sigma < self.min_sigma:
            raise ValueError(f"sigma must be >= {self.min_sigma} for sampler {self.name} (below, the certified grid "
                             f"of its likelihood ratio passes the range of floating point); got {sigma!r}")

    def check_relation(self, relation: str) -> str:
        check_choice("relation", relation, RELATIONS)
        if relation not in self.relations:
            raise ValueError(f"relation must be one of {', '.join(self.relations)} for sampler {self.name}; "
                             f"got {relation!r}")
        return relation


def _subsampled_laws(phase, refinement: int):
    """The pair (1 - q) N(0, s^2) + q N(d, s^2) vs N(0, s^2) is the engine's at distance 1, s = sigma / d."""
    return subsampled_laws(phase.sigma / phase.spec.distance, phase.sampling_rate, phase.steps, refinement)


def _subsampled_weight(phase):
    """A rate-1 subsampled phase is the Gaussian mechanism at every step."""
    return phase.steps * (phase.spec.distance / phase.sigma) ** 2 if phase.sampling_rate >= 1.0 else None


def _ballsbins_laws(phase, refinement: int):
    return ballsbins_run_laws(phase.sigma, phase.steps_per_epoch, phase.epochs, refinement)


def _deterministic_weight(phase) -> float:
    return phase.epochs / phase.sigma**2


def _shuffle_bounds(phase, quantity: str, values: np.ndarray):
    """Lower: the sets E_C per direction (chua24 eq. (3)); upper: delta_D (Thm 4.1), both directions."""
    sigma, steps, epochs = phase.sigma, phase.steps_per_epoch, phase.epochs
    sensitivity = math.sqrt(epochs)
    if quantity == "delta":
        lower = shuffle.shuffle_delta_lower(values, sigma, steps, epochs)
        upper = gaussian.gaussian_delta(values, sigma, sensitivity)
    else:
        lower = shuffle.shuffle_epsilon_lower(values, sigma, steps, epochs)
        upper = np.array([gaussian.gaussian_epsilon(d, sigma, sensitivity) for d in values])
    bounds = np.empty((values.size, 3, 2))
    for column, direction in enumerate(("remove", "add", "max")):
        bounds[:, column, 0] = lower[direction]
        bounds[:, column, 1] = upper
    # the E_C bound is at most delta_D (Thm 4.1); where both are the same curve up to rounding,
    # the lower one is not allowed above the upper one
    bounds[..., 0] = np.minimum(bounds[..., 0], bounds[..., 1])
    return bounds, {"method": "closed forms (chua24 eq. (3) and Thm 4.1)", "c_grid": list(shuffle.DEFAULT_C_GRID)}


def _reference(phase, quantity: str, values: np.ndarray, accuracy: float):
    return pld.phase_bounds(phase, phase.spec.distance, quantity, values, accuracy)


SAMPLERS = {
    "deterministic": Sampler(
        "deterministic", "D", "deterministic batches", rate_based=False, relations=ADD_OR_REMOVE,
        lower_method=EXACT, upper_method=EXACT,
        doc="each example in exactly one fixed batch per epoch: the Gaussian mechanism, exact",
        gaussian_weight=_deterministic_weight, min_sigma=0.0),
    "shuffle": Sampler(
        "shuffle", "S", "shuffled batches", rate_based=False, relations=ADD_OR_REMOVE,
        lower_method="E_C sets (chua24 eq. (3))", upper_method="delta_S <= delta_D (chua24 Thm 4.1)",
        doc="a fresh permutation per epoch cut into fixed batches; a bracket, no tight pair known",
        closed_form=_shuffle_bounds, min_sigma=0.0, tight=False),
    "poisson": Sampler(
        "poisson", "P", "Poisson subsampling", rate_based=True, relations=ADD_OR_REMOVE,
        lower_method=CERTIFIED_LOWER, upper_method=CERTIFIED_UPPER,
        doc="each example in each step independently with probability q",
        laws=_subsampled_laws, gaussian_weight=_subsampled_weight, reference=_reference),
    "balls_and_bins": Sampler(
        "balls_and_bins", "B", "balls-and-bins", rate_based=False, relations=ADD_OR_REMOVE,
        lower_method=CERTIFIED_LOWER, upper_method=CERTIFIED_UPPER,
        doc="each example in one uniformly random step of each epoch (chua25)",
        laws=_ballsbins_laws),
    "wor": Sampler(
        "wor", "W", "sampling without replacement", rate_based=True, relations=(*ADD_OR_REMOVE, "substitution"),
        lower_method=CERTIFIED_LOWER, upper_method=CERTIFIED_UPPER,
        doc="a uniformly random batch of exactly b of n examples per step, q = b / n (lebeda24)",
        laws=_subsampled_laws, gaussian_weight=_subsampled_weight, substitution=substitution_bounds,
        reference=_reference, distance=2.0, min_sigma=2.0 * MIN_SIGMA),  # its pair is Poisson's at sigma / 2
}


def sampler_spec(name) -> Sampler:
    """The registry entry of ``name`` (ValueError naming the allowed ones otherwise)."""
    return SAMPLERS[check_choice("sampler", name, SAMPLER_NAMES)]


def relation_help() -> str:
    """Which relations each sampler supports, for --help texts."""
    return "; ".join(f"{spec.name}: {', '.join(spec.relations)}" for spec in SAMPLERS.values())


__all__ = ["SAMPLERS", "SAMPLER_NAMES", "Sampler", "relation_help", "sampler_spec"]
