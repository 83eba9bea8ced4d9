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

Floating point: every rounding is charged (``docs/PROOF.md``: the model, the assumptions, the
numbered lemmas and the theorem; ``rounding``: the bounds). Each law carries its relative error
and every tail it moved or cut; the hockey sticks (``hockey``) divide the upper law's sum by
1 - rho and take the lower law's down, each with its own rounding. An eps query whose delta the
charged tails alone reach is refused, naming them.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from ... import progress
from ..closed_form import gaussian
from ..frames import NoFiniteBound, Refused
from ..relations import DIRECTION_NAMES
from . import hockey
from .compose import subsampled_laws
from .laws import excess
from .pair import Laws

ENGINE_VERSION = 4  # 2: heavy upper tails on a coarse grid (compose.TwoGrid), tilts exp(theta x); 3: FFT rounding charged per composed step, underflow-safe tails and folds; 4: every rounding charged by a proven bound (rounding), relative where the mass is tiny
DELTA_FLOOR = 1e-17
# delta rows with delta_upper <= this times the tail and rounding terms (``excess``) are not
# counted in the gap: there the upper bound is those terms, which no finer grid removes
EXCESS_FLOOR_FACTOR = 100.0
EPSILON_FLOOR = 1e-4
DEFAULT_MAX_GRID_POINTS = 2**21  # ~1 GB at the largest (a single step's law, FFT at 3 tilts)
MIN_SIGMA = 0.05  # below, log Y's grid passes exp's range
FLOOR_REACHED = 1e-14  # a charge this small is the tails' floor (~1e-16), not a coarse grid's blow-up
FP_MODEL = ("docs/PROOF.md: model (section 1: IEEE double, round to nearest), assumptions (section 2: A, "
            "scipy.fft real FFTs of length 2^m within 8 u log2 N, verified at every length 2^1-2^22; B, ndtr "
            "within 2e-14 (1e-12 below z = -11) and one step's quadratures within 1e-10, verified against mpmath; "
            "C, exp/log/expm1/log1p within 1 ulp, verified against mpmath), lemmas 1-16 (section 3), theorem "
            "(section 4), margins (section 5)")


def gaussian_weight(phases) -> float | None:
    """(s / sigma)^2 of the one Gaussian mechanism a run of Gaussian phases is (weights add
    under composition), None if some phase is not a Gaussian mechanism."""
    weights = [phase.spec.gaussian_weight(phase) for phase in phases]
    return None if any(w is None for w in weights) else float(sum(weights))


def gaussian_laws(weight: float, refinement: int) -> tuple[Laws, int]:
    """The laws of one Gaussian mechanism with (s / sigma)^2 = ``weight`` (its T-fold product
    is one Gaussian mechanism: no composition, no composition error; 1 / sqrt(weight) >=
    MIN_SIGMA, checked where the run is described)."""
    return subsampled_laws(1.0 / math.sqrt(weight), 1.0, 1, refinement)


_LAWS_KEPT = 8
"""Run laws kept while ``reusing_laws`` is active (one calibration): the last evaluations' levels."""
_kept_laws: dict | None = None


@contextlib.contextmanager
def reusing_laws():
    """Within this block, ``_run_laws`` of a run and refinement already built is returned again
    (the laws are a function of the run and the refinement only: the same numbers, the same
    proof), keeping the last _LAWS_KEPT; a calibration asks the sigma it reports twice (settled,
    then refined to the accuracy)."""
    global _kept_laws
    outer, _kept_laws = _kept_laws, ({} if _kept_laws is None else _kept_laws)
    try:
        yield
    finally:
        _kept_laws = outer


def _run_laws(phases, refinement: int) -> tuple[Laws, int]:
    """The laws of the whole run (product over phases; its Gaussian phases first combined into
    one Gaussian mechanism) and the largest array length used (kept within ``reusing_laws``)."""
    if _kept_laws is None:
        return _built_laws(phases, refinement)
    key = (tuple(phases), refinement)
    if key not in _kept_laws:
        if len(_kept_laws) >= _LAWS_KEPT:
            del _kept_laws[next(iter(_kept_laws))]
        _kept_laws[key] = _built_laws(phases, refinement)
    return _kept_laws[key]


def _built_laws(phases, refinement: int) -> tuple[Laws, int]:
    gaussian_phases = [phase for phase in phases if phase.spec.gaussian_weight(phase) is not None]
    result, largest = None, 0
    if gaussian_phases:
        result, largest = gaussian_laws(gaussian_weight(gaussian_phases), refinement)
    for phase in phases:
        if phase.spec.gaussian_weight(phase) is not None:
            continue
        laws, used = phase.spec.laws(phase, refinement)
        largest = max(largest, used)
        result = laws if result is None else result.times(laws)
        largest = max(largest, result.size)
    return result, largest


def level_upper(phases, delta: float, column: int, refinement: int = 0) -> float | None:
    """The upper bound on eps at ``delta`` in direction ``column`` (an index into DIRECTION_NAMES)
    from the laws of one refinement alone, where ``reusing_laws`` already keeps them (nothing is
    built here): valid, but coarser than ``_refined``'s, which keeps the best of every level. A
    calibration's guide to where to look next, never its verdict. None where those laws are not
    kept (a run of Gaussian mechanisms has none: closed form) or the bound is not finite."""
    laws = None if _kept_laws is None else _kept_laws.get((tuple(phases), refinement))
    if laws is None:
        return None
    try:
        with np.errstate(all="ignore"):
            value = float(with_max(epsilon_rows(laws[0], np.array([delta])))[0, column, 1])
    except (ArithmeticError, ValueError):
        return None
    return value if math.isfinite(value) and value > 0.0 else None


def delta_rows(laws: Laws, epsilons: np.ndarray) -> np.ndarray:
    """(n_eps, 4): remove lower, remove upper, add lower, add upper, rounding charged (``hockey``)."""
    points, means = laws.points, laws.means
    remove_excess, add_excess = excess(points)
    out = np.empty((epsilons.size, 4))
    for i, eps in enumerate(epsilons):
        for j, (remove, tail) in enumerate(((True, remove_excess), (False, add_excess))):
            out[i, 2 * j] = hockey.lower_delta(means.m, means.lv, eps, remove, means.rel_error)
            out[i, 2 * j + 1] = hockey.with_excess(hockey.upper_delta(points.p, points.k0, laws.h, eps, remove,
                                                                     points.rel_error), tail)
    return np.clip(out, 0.0, 1.0)


def epsilon_rows(laws: Laws, deltas: np.ndarray) -> np.ndarray:
    """(n_delta, 4): remove lower, remove upper, add lower, add upper (eps >= 0; the upper bound
    inf where the charged tails alone reach delta)."""
    points, means = laws.points, laws.means
    excesses = excess(points)
    out = np.empty((deltas.size, 4))
    for i, delta in enumerate(deltas):
        for j, remove in enumerate((True, False)):
            out[i, 2 * j] = hockey.epsilon_lower(means.m, means.lv, means.rel_error, delta, remove)
            out[i, 2 * j + 1] = hockey.epsilon_upper(points.p, points.k0, laws.h, points.rel_error, excesses[j],
                                                     delta, remove)
    return out


def with_max(rows: np.ndarray) -> np.ndarray:
    """(n, 3, 2): [remove, add, max] x [lower, upper]."""
    remove, add = rows[:, 0:2], rows[:, 2:4]
    return np.stack([remove, add, np.maximum(remove, add)], axis=1)


def direction_gaps(bounds: np.ndarray, floor: float) -> np.ndarray:
    """(n, 3): the relative gap (upper - lower) / upper per row and direction, 0 where upper <=
    floor (the refinement's stopping rule: below the floor no finer grid helps)."""
    lower, upper = bounds[..., 0], bounds[..., 1]
    counted = upper > floor
    with np.errstate(invalid="ignore", divide="ignore"):
        gaps = np.where(np.isinf(upper), np.inf, (upper - lower) / np.where(counted, upper, 1.0))
    return np.where(counted, gaps, 0.0)


def sensitivity_rounding(phases: int) -> float:
    """Relative error bound of a Gaussian run's sensitivity sqrt(sum of epochs / sigma^2) as
    computed: per phase a square, a division and an addition (3 roundings, relative to the sum of
    non-negative terms: gamma(3 phases)), halved by the root, plus the root's own u; doubled."""
    return 2.0 * (1.5 * phases + 1.0) * 2.0**-53 / (1.0 - 3.0 * phases * 2.0**-53)


def exact_gaussian_rows(weight: float, values: np.ndarray, kind: str, phases: int = 1) -> np.ndarray:
    """Rows as ``delta_rows`` / ``epsilon_rows`` for a run that is one Gaussian mechanism with
    (s / sigma)^2 = weight: its closed form (chua24 Prop. 3.1), the same in both directions
    (the pair is symmetric), bracketed by its evaluation's rounding (docs/PROOF.md Lemma 16).
    The weight (phases' epochs / sigma^2, summed) and its square root carry a few roundings: the
    sensitivity is bracketed within ``sensitivity_rounding`` of the computed one, and delta grows with
    it, so the lower row is taken at the smaller end and the upper at the larger."""
    root = math.sqrt(weight)  # PROOF Lemma 16: the sensitivity's rounding
    margin = sensitivity_rounding(phases)
    small = math.nextafter(root * (1.0 - margin), 0.0)
    large = math.nextafter(root * (1.0 + margin), math.inf)
    if kind == "delta":
        lower = gaussian.gaussian_delta_bounds(values, 1.0, small)[0]
        upper = gaussian.gaussian_delta_bounds(values, 1.0, large)[1]
    else:
        lower = np.array([gaussian.gaussian_epsilon_bounds(d, 1.0, small)[0] for d in values])
        upper = np.array([gaussian.gaussian_epsilon_bounds(d, 1.0, large)[1] for d in values])
    return np.stack([lower, upper, lower, upper], axis=1)


MEAN_SLACK = 1e-6


def _check_mean(laws: Laws) -> None:
    """The invariant every upper law keeps, E[L] = 1 under Q: its mean plus the first moment it
    charged (remove_excess) is at least 1 - MEAN_SLACK; a law that lost it (e.g. its top beyond
    e^709 cut without its charge, found at T = 1.5e9) certifies nothing (FloatingPointError), nor
    does one whose relative rounding error reached 1 (T 1e12 at rate 1e-12)."""
    points = laws.points
    rel = max(points.rel_error, laws.means.rel_error)
    if not rel < 1.0:  # every entry's rounding at least the entry: the bounds divide by 1 - rel
        raise FloatingPointError(f"its rounding bounds outgrew the laws (relative error {rel:.3g} >= 1)")
    with np.errstate(over="ignore", invalid="ignore"):
        total = points.mean(laws.h) + points.remove_excess
    if not total >= 1.0 - MEAN_SLACK:
        raise FloatingPointError(f"the upper law lost its mean (E[L] + charged = {total:.3g} < 1)")


def settled(bounds: np.ndarray, settle: tuple[int, float]) -> bool:
    """Whether every row's bracket in direction ``settle[0]`` already answers "is the quantity
    <= settle[1]?": its upper bound is <= it (yes) or its lower bound is above it (no). Later
    refinements keep the smallest upper and the largest lower bound, so neither answer can change."""
    column, threshold = settle
    lower, upper = bounds[:, column, 0], bounds[:, column, 1]
    return bool(np.all((upper <= threshold) | (lower > threshold)))


def _refined(phases, values: np.ndarray, kind: str, accuracy: float, max_grid_points: int, columns, settle=None):
    """Bounds at ``values`` (eps for kind "delta", delta for "epsilon") of a validated run.
    A run of Gaussian mechanisms only is answered by its closed form; any other is refined until
    every row's gap in the directions ``columns`` (indices into DIRECTION_NAMES) is <= accuracy,
    the next level would pass max_grid_points, or a refinement no longer halves the gap of any
    row still open (rounding, not the grid, limits it then). ``settle`` = (direction, threshold):
    stop as soon as the bounds are ``settled`` (a calibration's question: is eps <= target?); the
    answer to it is then the one the full refinement would give (the same levels, stopped
    earlier), the bounds looser.
    Returns ((n, 3, 2) bounds, attrs)."""
    refined_names = [DIRECTION_NAMES[c] for c in columns]
    weight = gaussian_weight(phases)
    if weight is not None:
        bounds = with_max(exact_gaussian_rows(weight, values, kind, len(phases)))
        reached = direction_gaps(bounds, 0.0)
        attrs = {"method": "exact Gaussian mechanism (chua24 Prop. 3.1)", "engine_version": ENGINE_VERSION,
                 "gaussian_sigma": 1.0 / math.sqrt(weight), "grid_step": 0.0, "grid_points_largest": 0,
                 "max_grid_points": int(max_grid_points),
                 "accuracy_reached": float(np.max(reached)) if reached.size else 0.0, "accuracy_floor": 0.0,
                 "excess": 0.0, "relative_error": 0.0,
                 "fp_model": "closed form in intervals (docs/PROOF.md Lemma 16; assumptions B, C)",
                 "refinements": 0, "converged": True,
                 "directions_refined": refined_names}
        return bounds, attrs
    best, refinement, previous, unreachable_before, charged_before = None, 0, None, False, math.inf
    done = False
    label = " + ".join(f"{p.sampler}(sigma={p.sigma:g}, {p.steps} steps)" for p in phases)
    with progress.bar(f"certified bounds [{label}]: refinements") as bar:
        while True:
            try:
                laws, largest = _run_laws(phases, refinement)
                _check_mean(laws)
                rows = delta_rows(laws, values) if kind == "delta" else epsilon_rows(laws, values)
                if np.isnan(rows).any():
                    raise FloatingPointError("a bound came out NaN")
            except FloatingPointError as error:  # a law lost to rounding (e.g. T ~ 1e30): no certificate
                if best is None:
                    raise Refused(f"the certified engine cannot bound {label}: {error} (at its first grid); "
                                  "no bound holds there (fewer steps or more noise)") from None
                break  # the coarser grids' bounds stand (not converged)
            bar.update()
            if refinement == 0 and largest > max_grid_points:
                raise Refused(f"max_grid_points must be at least {largest} for {label}; got {max_grid_points}")
            bounds = with_max(rows)
            if best is None:
                best = bounds
            else:
                best[..., 0] = np.maximum(best[..., 0], bounds[..., 0])
                best[..., 1] = np.minimum(best[..., 1], bounds[..., 1])
            charged = max(excess(laws.points))
            floor = max(DELTA_FLOOR, EXCESS_FLOOR_FACTOR * charged) if kind == "delta" else EPSILON_FLOOR
            gaps = np.max(direction_gaps(best, floor)[:, columns], axis=1)
            worst = float(np.max(gaps)) if gaps.size else 0.0
            converged = worst <= accuracy
            open_rows = gaps > accuracy
            # stalled: no row still above the accuracy halved its gap in the last refinement
            stalled = refinement >= 2 and bool(np.all(gaps[open_rows] > 0.5 * previous[open_rows]))
            # unreachable: every open row has a direction whose delta is below its charged tails
            # (upper inf, refused below) at two refinements running, and the charge sits at the tails'
            # own floor (FLOOR_REACHED; a larger one may still collapse at a finer grid: 4e-4 or 1e87
            # at two grids and 1e-16 at the next, seen) and no longer shrinks
            unreachable = kind == "epsilon" and bool(np.all(np.isinf(best[open_rows][:, columns, 1]).any(axis=1)))
            hopeless = unreachable and unreachable_before and 0.5 * charged_before <= charged <= FLOOR_REACHED
            done = settle is not None and settled(best, settle)
            if converged or stalled or 2 * largest > max_grid_points or hopeless or done:
                break
            unreachable_before, charged_before = unreachable, charged
            previous = gaps
            refinement += 1
    if kind == "epsilon":
        unreachable = np.isinf(best[:, columns, 1]).any(axis=1)
        if unreachable.any() and not charged < 1.0:
            raise NoFiniteBound(f"the certified engine cannot bound {label}: the tails it moved or cut and their rounding "
                          f"already weigh {charged:.3g} >= 1, so no delta is certified (fewer steps or more noise); "
                          f"got delta {float(values[unreachable].min()):g}")
        if unreachable.any():
            raise NoFiniteBound(f"delta must be above the proven floor {charged:.3g} of {label} (the tails it moved or cut "
                          f"and their rounding, charged to every delta); got {float(values[unreachable].min()):g}")
    attrs = {"method": "certified", "engine_version": ENGINE_VERSION, "grid_step": laws.h,
             "grid_points_largest": int(largest), "max_grid_points": int(max_grid_points),
             "accuracy_reached": worst, "accuracy_floor": floor, "excess": charged,
             "relative_error": max(laws.points.rel_error, laws.means.rel_error), "fp_model": FP_MODEL,
             "refinements": refinement + 1, "converged": converged, "directions_refined": refined_names}
    if laws.bottom_step is not None:  # one step's law on a coarser grid (balls-and-bins' levels)
        attrs["grid_step_bottom"] = laws.bottom_step
    if settle is not None:
        attrs["settled"] = done
    return best, attrs


__all__ = ["DEFAULT_MAX_GRID_POINTS", "DELTA_FLOOR", "ENGINE_VERSION", "EPSILON_FLOOR", "EXCESS_FLOOR_FACTOR",
           "FLOOR_REACHED", "FP_MODEL", "MEAN_SLACK", "MIN_SIGMA", "delta_rows", "direction_gaps", "epsilon_rows",
           "exact_gaussian_rows", "gaussian_laws", "gaussian_weight", "level_upper", "reusing_laws",
           "sensitivity_rounding", "settled", "with_max"]
