"""The accounting of each sampler of the registry (``dpsampling.samplers``): its dominating pair.

``LAWS`` holds, per registry entry, the bodies of its accounting: the law of one step's likelihood
ratio for the certified engine (``laws``), or closed forms, and the bounds under substitution and
by the reference method where they exist. ``sampler_spec(name)`` is the entry with its laws (a
``Sampler``: the registry's fields, read through, and the laws'); tables, compare, calibration,
schedules, the CLI and the integrations ask it instead of comparing names.

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
- cyclic_poisson (C), b_min_sep (M), fixed_balls_and_bins (F), the correlated-noise samplers
  (``matrix_only``): no laws of their own; every phase of them (coefficients [1] too) is accounted
  through ``accountants.matrix`` (docs/MATRIX.md): the certified engine on the phases of
  ``certified_phases`` where that reduction holds (cyclic Poisson with bands <= cycle length;
  fixed bins with one coefficient and whole cycles; b-min-sep with min_separation 1), else
  ``method="monte_carlo"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpsampling.accountants.certified.compose import ballsbins_run_laws, subsampled_laws
from dpsampling.accountants.certified.engine import MIN_SIGMA
from dpsampling.accountants.certified.substitution import substitution_bounds
from dpsampling.accountants.closed_form import gaussian, shuffle
from dpsampling.accountants.reference import pld
from dpsampling.samplers import CERTIFIED_LOWER, CERTIFIED_UPPER, EXACT, SAMPLER_NAMES
from dpsampling.samplers import SAMPLERS as ENTRIES
from dpsampling.samplers import Sampler as Entry
from dpsampling.validation import check_choice


@dataclass(frozen=True)
class Laws:
    """The accounting bodies of one sampler. ``laws(phase, refinement)``: the engine's laws of the
    phase's likelihood ratio and the largest array used; ``gaussian_weight(phase)``: (sensitivity /
    sigma)^2 where the phase is one Gaussian mechanism (answered in closed form), else None;
    ``closed_form(phase, quantity, values)``: bounds of a phase that has no dominating pair to
    compose ((n, 3, 2) and the attrs), else None; ``substitution`` and ``reference`` (dp-accounting's
    PLD): the bounds under substitution and by the reference method, where they exist."""

    laws: Callable | None = None
    gaussian_weight: Callable = lambda phase: None
    closed_form: Callable | None = None
    substitution: Callable | None = None
    reference: Callable | None = None


@dataclass(frozen=True)
class Sampler:
    """A registry entry (``entry``: name, letter, rate_based, relations, distance, tight, ...,
    read through as attributes) with its accounting ``Laws``."""

    entry: Entry
    accounting: Laws

    def __getattr__(self, name):
        if name in ("entry", "accounting"):  # not set yet (copy, unpickling)
            raise AttributeError(name)
        try:
            return getattr(self.accounting, name)
        except AttributeError:
            return getattr(self.entry, name)

    @property
    def composable(self) -> bool:
        """Whether a phase of it composes with other phases (it has a dominating pair)."""
        return self.accounting.closed_form is None

    @property
    def min_sigma(self) -> float:
        """The smallest sigma: the engine's (at the pair's distance) where its laws are composed;
        0 where it is answered in closed form."""
        return MIN_SIGMA * self.entry.distance if self.accounting.laws is not None else 0.0

    def check_sigma(self, sigma: float) -> None:
        if sigma < self.min_sigma:
            raise ValueError(f"sigma must be >= {self.min_sigma} for sampler {self.entry.name} (below, the certified "
                             f"grid of its likelihood ratio passes the range of floating point); got {sigma!r}")

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


SHUFFLE_LOWER_EPOCHS = 100_000
"""The most epochs shuffle's lower bound is computed over (10**9 ran out of memory, issue 42)."""


def _shuffle_bounds(phase, quantity: str, values: np.ndarray):
    """Lower: the sets E_C per direction (chua24 eq. (3)); upper: delta_D (Thm 4.1), both directions."""
    sigma, steps, epochs = phase.sigma, phase.steps_per_epoch, phase.epochs
    sensitivity = math.sqrt(epochs)
    # the lower bound's arrays grow with the epochs; the first SHUFFLE_LOWER_EPOCHS epochs are a
    # post-processing of all of them, so their lower bound is one of the whole run's
    seen = min(epochs, SHUFFLE_LOWER_EPOCHS)
    if quantity == "delta":
        lower = shuffle.shuffle_delta_lower(values, sigma, steps, seen)
        upper = gaussian.gaussian_delta_bounds(values, sigma, sensitivity)[1]  # docs/PROOF.md Lemma 16
    else:
        lower = shuffle.shuffle_epsilon_lower(values, sigma, steps, seen)
        upper = np.array([gaussian.gaussian_epsilon_bounds(d, sigma, sensitivity)[1] for d in values])
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


LAWS = {
    "deterministic": Laws(gaussian_weight=_deterministic_weight),
    "shuffle": Laws(closed_form=_shuffle_bounds),
    "poisson": Laws(laws=_subsampled_laws, gaussian_weight=_subsampled_weight, reference=_reference),
    "balls_and_bins": Laws(laws=_ballsbins_laws),
    "wor": Laws(laws=_subsampled_laws, gaussian_weight=_subsampled_weight, substitution=substitution_bounds,
                reference=_reference),
    "cyclic_poisson": Laws(),  # accountants.matrix (module docstring)
    "b_min_sep": Laws(),
    "fixed_balls_and_bins": Laws(),
}
"""One entry per sampler of the registry (``dpsampling.samplers.SAMPLERS``), in its order."""
if tuple(LAWS) != SAMPLER_NAMES:
    raise ImportError(f"LAWS must have one entry per registry sampler, in its order: {SAMPLER_NAMES}; got {tuple(LAWS)}")

SAMPLERS = {name: Sampler(ENTRIES[name], LAWS[name]) for name in SAMPLER_NAMES}


def sampler_spec(name) -> Sampler:
    """The registry entry of ``name`` with its laws (ValueError naming the allowed ones otherwise)."""
    return SAMPLERS[check_choice("sampler", name, SAMPLER_NAMES)]


def relation_help() -> str:
    """Which relations each sampler supports, for --help texts."""
    return "; ".join(f"{spec.name}: {', '.join(spec.relations)}" for spec in SAMPLERS.values())


__all__ = ["CERTIFIED_LOWER", "CERTIFIED_UPPER", "EXACT", "LAWS", "SAMPLERS", "SAMPLER_NAMES", "Laws", "Sampler",
           "relation_help", "sampler_spec"]
