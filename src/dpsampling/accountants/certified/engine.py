"""Certified (eps, delta) brackets of a run: one or more phases, each a sampler with its noise.

A phase's steps are independent mechanisms, and so are the phases: the run's likelihood ratio
under Q is the product G of the phases' ratios, and delta(eps) is E_Q[(G - e^eps)_+] (remove) or
E_Q[(1 - e^eps G)_+] (add) for the product of the phases' dominating pairs (a product of
dominating pairs dominates the composition). Each phase gives its two laws (``laws``:
upper in convex order, lower by Jensen); their products keep both orders, so the run's delta
lies between the two laws' hockey-stick divergences (plus the tracked tail terms).

Refinement r halves every grid step; each refinement's bounds are valid, so a row keeps the
smallest upper and the largest lower bound seen. It stops when every row's relative gap, in
each refined direction (default: both directions and their maximum; the maximum alone for a
query of the guarantee, whose add direction at a small eps may need two more refinements), is
<= ``accuracy`` (rows with delta_upper <= DELTA_FLOOR or
eps_upper <= EPSILON_FLOOR not counted, nor delta rows whose upper bound is within
EXCESS_FLOOR_FACTOR of the tail and FFT-rounding terms), when the next refinement's arrays
would pass ``max_grid_points``, or when a refinement no longer halves the gap of any row still
above the accuracy (the frame says not converged, and each row how close it got).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import progress
from ...validation import check_int_at_least, check_open_unit, check_positive, check_rate
from .. import deterministic
from ..relations import DIRECTION_NAMES
from . import _kernels
from .compose import ballsbins_run_laws, subsampled_laws
from .laws import Laws, charged_excess

ENGINE_VERSION = 2  # 2: heavy upper tails on a coarse grid (compose.TwoGrid), tilts exp(theta x)
DELTA_FLOOR = 1e-12
# delta rows with delta_upper <= this times the tail and rounding terms (``excess``) are not
# counted in the gap: there the upper bound is those terms, which no finer grid removes
EXCESS_FLOOR_FACTOR = 100.0
EPSILON_FLOOR = 1e-4
DEFAULT_MAX_GRID_POINTS = 2**21  # ~1 GB at the largest (a single step's law, FFT at 3 tilts)
MIN_SIGMA = 0.05  # below, log Y's grid passes exp's range
CERTIFIED_SAMPLERS = ("poisson", "wor", "balls_and_bins", "deterministic")


@dataclass(frozen=True)
class Phase:
    """``steps`` steps per epoch for ``epochs`` epochs of one sampler at noise ``sigma``.

    poisson, wor: each step samples at ``sampling_rate`` (default 1 / steps); balls_and_bins:
    each example in one uniformly random step of the epoch; deterministic: each example in
    exactly one step of the epoch (Gaussian mechanism, sensitivity 1, once per epoch)."""

    sampler: str
    sigma: float
    steps: int
    epochs: int = 1
    sampling_rate: float | None = None

    def __post_init__(self):
        if self.sampler not in CERTIFIED_SAMPLERS:
            allowed = ", ".join(CERTIFIED_SAMPLERS)
            why = " (shuffle has no upper bound to compose)" if self.sampler == "shuffle" else ""
            raise ValueError(f"sampler must be one of {allowed}{why}; got {self.sampler!r}")
        sigma = check_positive("sigma", self.sigma)
        if sigma < MIN_SIGMA:
            raise ValueError(f"sigma must be >= {MIN_SIGMA} for the certified bounds; got {self.sigma!r}")
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "steps", check_int_at_least("steps", self.steps, 1))
        object.__setattr__(self, "epochs", check_int_at_least("epochs", self.epochs, 1))
        if self.sampler in ("poisson", "wor"):
            rate = 1.0 / self.steps if self.sampling_rate is None else check_rate("sampling_rate", self.sampling_rate)
            object.__setattr__(self, "sampling_rate", rate)
        elif self.sampling_rate is not None:
            raise ValueError(f"sampling_rate applies to samplers poisson and wor only; got {self.sampling_rate!r} "
                             f"with sampler {self.sampler!r}")

    def gaussian_weight(self) -> float | None:
        """(s / sigma)^2 of the Gaussian mechanism this phase is (deterministic: one step of
        sensitivity 1 per epoch; poisson and wor at rate 1: every step), None if it is not one."""
        if self.sampler == "deterministic":
            return self.epochs / self.sigma**2
        if self.sampler in ("poisson", "wor") and self.sampling_rate >= 1.0:
            return self.steps * self.epochs * (_distance(self.sampler) / self.sigma) ** 2
        return None

    def laws(self, refinement: int) -> tuple[Laws, int]:
        """The two laws of this phase's likelihood ratio at ``refinement``, and the largest
        array length used to build them."""
        if self.sampler == "balls_and_bins":
            return ballsbins_run_laws(self.sigma, self.steps, self.epochs, refinement)
        weight = self.gaussian_weight()
        if weight is not None:
            return gaussian_laws(weight, refinement)
        sigma = self.sigma / _distance(self.sampler)
        return subsampled_laws(sigma, self.sampling_rate, self.steps * self.epochs, refinement)

    def as_dict(self) -> dict:
        return {"sampler": self.sampler, "sigma": self.sigma, "steps": self.steps, "epochs": self.epochs,
                "sampling_rate": self.sampling_rate}


def _distance(sampler: str) -> float:
    """WOR's pair is Poisson's at distance 2 (lebeda24 Thm 10.2): its sigma counts as sigma / 2."""
    return 2.0 if sampler == "wor" else 1.0


def gaussian_weight(phases) -> float | None:
    """(s / sigma)^2 of the one Gaussian mechanism a run of Gaussian phases is (weights add
    under composition), None if some phase is not a Gaussian mechanism."""
    weights = [phase.gaussian_weight() for phase in phases]
    return None if any(w is None for w in weights) else float(sum(weights))


def gaussian_laws(weight: float, refinement: int) -> tuple[Laws, int]:
    """The laws of one Gaussian mechanism with (s / sigma)^2 = ``weight`` (its T-fold product
    is one Gaussian mechanism: no composition, no composition error)."""
    sigma = 1.0 / math.sqrt(weight)
    if sigma < MIN_SIGMA:
        raise ValueError(f"the Gaussian phases of this run together are a Gaussian mechanism with sigma {sigma:.3g}; "
                         f"in a run with other samplers it must be >= {MIN_SIGMA} for the certified grid")
    return subsampled_laws(sigma, 1.0, 1, refinement)


def run_laws(phases: tuple[Phase, ...], refinement: int) -> tuple[Laws, int]:
    """The laws of the whole run (product over phases; its Gaussian phases first combined into
    one Gaussian mechanism) and the largest array length used."""
    gaussian = [phase for phase in phases if phase.gaussian_weight() is not None]
    result, largest = None, 0
    if gaussian:
        result, largest = gaussian_laws(gaussian_weight(gaussian), refinement)
    for phase in phases:
        if phase.gaussian_weight() is not None:
            continue
        laws, used = phase.laws(refinement)
        largest = max(largest, used)
        result = laws if result is None else result.times(laws)
        largest = max(largest, result.size)
    return result, largest


def _point_logs(laws: Laws) -> np.ndarray:
    return (laws.points.k0 + np.arange(laws.points.p.size)) * laws.h


def delta_rows(laws: Laws, epsilons: np.ndarray) -> np.ndarray:
    """(n_eps, 4): remove lower, remove upper, add lower, add upper."""
    lv = _point_logs(laws)
    points, means = laws.points, laws.means
    remove_excess, add_excess = charged_excess(points, laws.h)
    out = np.empty((epsilons.size, 4))
    for i, eps in enumerate(epsilons):
        out[i, 0] = _kernels.hockey_stick(means.m, means.lv, eps, True)
        out[i, 1] = _kernels.hockey_stick(points.p, lv, eps, True) + remove_excess
        out[i, 2] = _kernels.hockey_stick(means.m, means.lv, eps, False)
        out[i, 3] = _kernels.hockey_stick(points.p, lv, eps, False) + add_excess
    return np.clip(out, 0.0, 1.0)


def epsilon_rows(laws: Laws, deltas: np.ndarray) -> np.ndarray:
    """(n_delta, 4): remove lower, remove upper, add lower, add upper (eps >= 0)."""
    lv = _point_logs(laws)
    points, means = laws.points, laws.means
    excesses = charged_excess(points, laws.h)
    out = np.empty((deltas.size, 4))
    for i, delta in enumerate(deltas):
        for j, remove in enumerate((True, False)):
            out[i, 2 * j] = _kernels.epsilon_for_delta(means.m, means.lv, 0.0, delta, remove, False)
            out[i, 2 * j + 1] = _kernels.epsilon_for_delta(points.p, lv, excesses[j], delta, remove, True)
    return out


def with_max(rows: np.ndarray) -> np.ndarray:
    """(n, 3, 2): [remove, add, max] x [lower, upper]."""
    remove, add = rows[:, 0:2], rows[:, 2:4]
    return np.stack([remove, add, np.maximum(remove, add)], axis=1)


def direction_gaps(bounds: np.ndarray, floor: float) -> np.ndarray:
    """(n, 3): the relative gap (upper - lower) / upper per row and direction (0 where upper <= floor)."""
    lower, upper = bounds[..., 0], bounds[..., 1]
    counted = upper > floor
    with np.errstate(invalid="ignore", divide="ignore"):
        gaps = np.where(np.isinf(upper), np.inf, (upper - lower) / np.where(counted, upper, 1.0))
    return np.where(counted, gaps, 0.0)


def direction_columns(directions) -> list[int]:
    """Indices into DIRECTION_NAMES of a non-empty selection of directions."""
    directions = (directions,) if isinstance(directions, str) else tuple(directions)
    unknown = [d for d in directions if d not in DIRECTION_NAMES]
    if not directions or unknown:
        raise ValueError(f"directions must be a non-empty selection of {', '.join(DIRECTION_NAMES)}; got {directions!r}")
    return sorted({DIRECTION_NAMES.index(d) for d in directions})


def exact_gaussian_rows(weight: float, values: np.ndarray, kind: str) -> np.ndarray:
    """Rows as ``delta_rows`` / ``epsilon_rows`` for a run that is one Gaussian mechanism with
    (s / sigma)^2 = weight: its closed form (chua24 Prop. 3.1), the same in both directions
    (the pair is symmetric), lower = upper."""
    sensitivity = math.sqrt(weight)
    if kind == "delta":
        exact = deterministic.gaussian_delta(values, 1.0, sensitivity)
    else:
        exact = np.array([deterministic.gaussian_epsilon(d, 1.0, sensitivity) for d in values])
    return np.repeat(exact[:, None], 4, axis=1)


def refined(phases, values: np.ndarray, kind: str, accuracy: float, max_grid_points: int,
            directions=DIRECTION_NAMES):
    """Bounds at ``values`` (eps for kind "delta", delta for "epsilon"). A run of Gaussian
    mechanisms only is answered by its closed form; any other is refined until every row's gap
    in ``directions`` is <= accuracy, the next level would pass max_grid_points, or a refinement
    no longer halves the gap of any row still open (rounding, not the grid, limits it then).
    Returns ((n, 3, 2) bounds, (n, 3) gaps per row and direction, attrs)."""
    accuracy = check_open_unit("accuracy", accuracy)
    max_grid_points = check_int_at_least("max_grid_points", max_grid_points, 2)
    columns = direction_columns(directions)
    refined_names = [DIRECTION_NAMES[c] for c in columns]
    weight = gaussian_weight(phases)
    if weight is not None:
        bounds = with_max(exact_gaussian_rows(weight, values, kind))
        attrs = {"method": "exact Gaussian mechanism (chua24 Prop. 3.1)", "engine_version": ENGINE_VERSION,
                 "gaussian_sigma": 1.0 / math.sqrt(weight), "grid_step": 0.0, "grid_points_largest": 0,
                 "max_grid_points": int(max_grid_points), "accuracy_requested": accuracy, "accuracy_reached": 0.0,
                 "accuracy_floor": 0.0, "excess": 0.0, "refinements": 0, "converged": True,
                 "directions_refined": refined_names}
        return bounds, np.zeros((values.size, 3)), attrs
    rows_of = (lambda laws: delta_rows(laws, values)) if kind == "delta" else (lambda laws: epsilon_rows(laws, values))
    best, refinement, previous = None, 0, None
    label = " + ".join(f"{p.sampler}(sigma={p.sigma:g}, T={p.steps}, K={p.epochs})" for p in phases)
    with progress.bar(f"certified bounds [{label}]: refinements") as bar:
        while True:
            laws, largest = run_laws(phases, refinement)
            bar.update()
            if refinement == 0 and largest > max_grid_points:
                raise ValueError(f"max_grid_points must be at least {largest} for {label}; got {max_grid_points}")
            bounds = with_max(rows_of(laws))
            if best is None:
                best = bounds
            else:
                best[..., 0] = np.maximum(best[..., 0], bounds[..., 0])
                best[..., 1] = np.minimum(best[..., 1], bounds[..., 1])
            excess = max(charged_excess(laws.points, laws.h))
            floor = max(DELTA_FLOOR, EXCESS_FLOOR_FACTOR * excess) if kind == "delta" else EPSILON_FLOOR
            all_gaps = direction_gaps(best, floor)
            gaps = np.max(all_gaps[:, columns], axis=1)
            worst = float(np.max(gaps)) if gaps.size else 0.0
            converged = worst <= accuracy
            open_rows = gaps > accuracy
            # stalled: no row still above the accuracy halved its gap in the last refinement
            stalled = refinement >= 2 and bool(np.all(gaps[open_rows] > 0.5 * previous[open_rows]))
            if converged or stalled or 2 * largest > max_grid_points:
                break
            previous = gaps
            refinement += 1
    attrs = {"method": "certified", "engine_version": ENGINE_VERSION, "grid_step": laws.h,
             "grid_points_largest": int(largest), "max_grid_points": int(max_grid_points),
             "accuracy_requested": accuracy, "accuracy_reached": worst, "accuracy_floor": floor,
             "excess": excess, "refinements": refinement + 1, "converged": converged,
             "directions_refined": refined_names}
    return best, all_gaps, attrs


def as_phases(phases) -> tuple[Phase, ...]:
    """A Phase, or a non-empty sequence of them, as a tuple."""
    if isinstance(phases, Phase):
        return (phases,)
    phases = tuple(phases)
    if not phases or not all(isinstance(p, Phase) for p in phases):
        raise ValueError(f"phases must be a Phase or a non-empty sequence of Phase; got {phases!r}")
    return phases

