"""Guaranteed bounds from dp-accounting PLDs, with the discretization refined until they meet.

Both Poisson and WOR (``reference.pld``) go through here. For a
discretization interval d, the pessimistic (connect-the-dots) PLD gives an upper bound and the
optimistic (privacy-buckets, rounding down) PLD a lower bound on delta(eps) per direction, and
so on eps(delta). The optimistic PLD rounds every single-step loss down by up to d, so after k
compositions its eps sits up to k d below the truth; only a finer d closes that gap.

Refinement (:func:`refined_bounds`): start at ``max_discretization`` and shrink (by the factor
the widest row's gap asks for, since the gap grows linearly with the interval: between
REFINEMENT_FACTOR and REFINEMENT_FACTOR ** 3 per level, never below ``min_discretization``) until every queried row has, in each
direction, ``upper - lower <= relative_accuracy * upper`` (delta queries: or ``<=
DELTA_ABSOLUTE_ACCURACY``, the floor below which dp-accounting's floating point decides). Every level's
bounds are valid, so a row keeps the smallest upper and the largest lower seen up to the level
where it met the target (or the last level); rows record that level, the accuracy reached and
whether the target was met.

Floating point, fixed at the source (dp-accounting 0.6, ``DensePLDPmf.self_compose``):

* the k-fold composition is an FFT power, ``ifft(fft(p) ** k)``, whose round-off leaves entries
  of about +-1e-17 (relative to a peak ~1e-4) everywhere, many negative; summed over ~1e5 grid
  points where the true mass is ~0 they gave deltas of about -+1e-13, e.g. delta_upper < 0 in
  the add direction. For the upper bound we set the negative entries to 0: every delta (a sum
  of non-negative weights times the entries) can only grow, so it stays an upper bound and is
  >= 0. Positive round-off only raises it too; the remaining error (negative round-off on truly
  positive entries) is of the same ~1e-13 absolute size, far below DELTA_ABSOLUTE_ACCURACY.
  For the lower bound the positive round-off is the danger (before: delta_lower 9.9e-13 above
  delta_upper 3.0e-14 at sigma 0.8, T = 10000, eps = 1). Where the true mass is ~0 the round-off
  is symmetric, so the negative entries show its size: the lower bound counts every negative
  entry three times (p -> p + 2 min(p, 0)), which subtracts about twice the positive round-off.
  This is an estimate of the round-off, not a proof; it matters only below ~1e-12.
* ``self_compose`` truncates each tail to mass tail_mass_truncation / 2 (Chernoff bound), lets
  the truncated mass wrap around the FFT window, and adds tail_mass_truncation to the infinity
  mass -- valid for pessimistic PLDs only (dp-accounting's docstring says so). For the lower
  bound we subtract 2 * TAIL_MASS_TRUNCATION (the added infinity mass plus at most that much
  wrapped-around mass, each weighted by at most 1) and clamp at 0; both keep it a lower bound,
  because the true delta is >= 0 and the subtraction removes at least what the truncation added.
  eps lower bounds use the same corrected curve (eps where raw delta <= delta + 2 * truncation).
"""

from __future__ import annotations

import math

import numpy as np

from dpsampling import DIRECTIONS
from dpsampling.lazy import lazy_import

dp_accounting = lazy_import("dp_accounting")

REFINEMENT_FACTOR = 4.0
TAIL_MASS_TRUNCATION = 1e-15  # dp-accounting's default for self_compose, passed explicitly
DELTA_ABSOLUTE_ACCURACY = 1e-12  # delta queries: a gap below this counts as converged
BOUNDS = {"upper": True, "lower": False}  # bound -> pessimistic_estimate
LOWER_MIN_DISCRETIZATION = 2.5e-5
"""Cost cap of the optimistic (lower-bound) PLD: dp-accounting builds a single step point by point
(~20 us a point), so below this interval one build takes minutes at T ~ 1e4..1e5, while the
lower bound's error shrinks only linearly. Finer levels still refine the upper bound (cheap to
converge: second-order error); rows whose lower bound misses the target say so (converged False)."""
MAX_COMPOSED_POINTS = 3.0e7
"""Memory cap: a level is not built when its composed PMF is predicted to exceed this many grid
points. dp-accounting's FFT composition holds ~125 bytes per point (measured: 34M points, 4.5 GB),
so one build stays under ~4 GB. The size grows like interval^-a with a between 1 and 1.5 (the add
direction's window widens as the interval shrinks); the prediction uses the last two levels' a."""
GROWTH_EXPONENT = 1.5  # prediction's exponent a before two levels have been built (measured: 0.8 to 1.5)


def compose(single, compositions: int):
    """``single`` self-composed ``compositions`` times with tail truncation TAIL_MASS_TRUNCATION."""
    return single.self_compose(compositions, TAIL_MASS_TRUNCATION) if compositions > 1 else single


def direction_pmfs(pld, pessimistic: bool) -> dict:
    """{"remove", "add"}: dense PMFs of a composed PLD, round-off corrected per bound (module docstring)."""
    pmfs = {"remove": pld._pmf_remove, "add": pld._pmf_add}  # dp-accounting exposes only their maximum
    out = {}
    for direction, pmf in pmfs.items():
        dense = pmf.to_dense_pmf()
        probs = np.asarray(dense._probs, dtype=float)
        # upper: drop the negative round-off; lower: count it three times (see the module docstring)
        probs = np.maximum(probs, 0.0) if pessimistic else probs + 2.0 * np.minimum(probs, 0.0)
        out[direction] = dp_accounting.pld.pld_pmf.DensePLDPmf(dense._discretization, dense._lower_loss, probs,
                                             dense._infinity_mass, pessimistic)
    return out


def predicted_points(sizes: list[tuple[float, int]], interval: float) -> float:
    """The composed PMF size at ``interval`` from the (interval, size) of the levels built so far."""
    if not sizes:
        return 0.0
    (last_interval, last_size) = sizes[-1]
    exponent = GROWTH_EXPONENT
    if len(sizes) > 1 and sizes[-2][0] > last_interval:
        before_interval, before_size = sizes[-2]
        exponent = max(1.0, math.log(last_size / before_size) / math.log(before_interval / last_interval))
    return last_size * (last_interval / interval) ** exponent


def _grid(pmf) -> tuple[np.ndarray, np.ndarray, float]:
    losses = (np.arange(pmf.size) + pmf._lower_loss) * pmf._discretization
    return losses, np.asarray(pmf._probs, dtype=float), float(pmf._infinity_mass)


def hockey_stick(pmf, epsilons) -> np.ndarray:
    """delta(eps) = inf_mass + sum_{loss > eps} p (1 - e^(eps - loss)) of a dense PMF, per eps."""
    losses, probs, infinity = _grid(pmf)
    out = np.empty(len(epsilons))
    for i, eps in enumerate(epsilons):
        start = np.searchsorted(losses, eps, side="right")
        out[i] = infinity + np.dot(-np.expm1(eps - losses[start:]), probs[start:])
    return out


def epsilon_for_delta(pmf, deltas) -> np.ndarray:
    """Smallest eps >= 0 with hockey_stick(pmf, eps) <= delta, per delta (inf if none); vectorized.

    On [l_{k-1}, l_k] (losses above 0 only) delta(eps) = U_k - e^eps W_k with U_k = inf_mass +
    sum_{j >= k} p_j and W_k = sum_{j >= k} p_j e^(-l_j): the same algebra as dp-accounting's
    loop, with cumulative sums.
    """
    losses, probs, infinity = _grid(pmf)
    keep = losses > 0
    losses, probs = losses[keep], probs[keep]
    upper_mass = infinity + np.cumsum(probs[::-1])[::-1]
    lower_mass = np.cumsum((probs * np.exp(-losses))[::-1])[::-1]
    at_right = upper_mass - np.exp(np.minimum(losses, 700.0)) * lower_mass  # delta at eps = l_k; no overflow
    out = np.empty(len(deltas))
    for i, delta in enumerate(deltas):
        if infinity > delta:
            out[i] = math.inf
            continue
        below = np.nonzero(at_right <= delta)[0]
        if len(below) == 0:
            out[i] = losses[-1] if len(losses) else 0.0
            continue
        k = below[0]
        left = losses[k - 1] if k > 0 else 0.0
        if lower_mass[k] > 0 and upper_mass[k] > delta:
            value = math.log((upper_mass[k] - delta) / lower_mass[k])
        else:
            value = left
        out[i] = min(max(value, left), losses[k])
    return out


def query(pmf, kind: str, values, bound: str) -> np.ndarray:
    """delta (kind "delta": values are eps) or eps (kind "epsilon") of one direction's PMF.

    lower: corrected for the tail truncation (see the module docstring) and clamped at 0.
    """
    slack = 0.0 if bound == "upper" else 2.0 * TAIL_MASS_TRUNCATION
    if kind == "delta":
        return np.maximum(hockey_stick(pmf, values) - slack, 0.0)
    return epsilon_for_delta(pmf, np.asarray(values, dtype=float) + slack)


def gap_met(kind, upper, lower, relative_accuracy) -> np.ndarray:
    """upper - lower <= relative_accuracy * upper (delta: or <= DELTA_ABSOLUTE_ACCURACY), per row."""
    gap = upper - lower
    with np.errstate(invalid="ignore"):
        met = gap <= relative_accuracy * upper
    if kind == "delta":
        met |= gap <= DELTA_ABSOLUTE_ACCURACY
    return met | (upper <= 0)


def relative_gap(upper, lower) -> np.ndarray:
    """(upper - lower) / upper (0 where upper is 0, NaN where upper is infinite)."""
    upper, lower = np.asarray(upper, dtype=float), np.asarray(lower, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.where(upper > 0, (upper - lower) / upper, 0.0)
    return np.where(np.isfinite(upper), gap, np.nan)


def _next_interval(kind, interval, minimum, out, active, relative_accuracy) -> float:
    """The next (finer) interval: the gap of the optimistic PLD grows linearly with the interval
    (k compositions shift its losses by up to k * interval), so shrink by what the widest active
    row asks for, times a margin; at least REFINEMENT_FACTOR, at most REFINEMENT_FACTOR ** 3 per level."""
    ratio = 1.0 / REFINEMENT_FACTOR
    with np.errstate(divide="ignore", invalid="ignore"):
        for direction in DIRECTIONS:
            upper, lower = out[f"{direction}_upper"][active], out[f"{direction}_lower"][active]
            if kind == "delta":  # log(upper / lower) is ~linear in the interval
                gap = np.log(upper / np.maximum(lower, 1e-300))
                allowed = -np.log1p(-min(relative_accuracy, 0.5))
            else:
                gap, allowed = upper - lower, relative_accuracy * upper
            wanted = np.where((gap > 0) & np.isfinite(gap), 0.8 * allowed / gap, ratio)
            if len(wanted):
                ratio = min(ratio, float(np.nanmin(wanted)))
    ratio = max(ratio, REFINEMENT_FACTOR ** -3)
    return max(interval * ratio, minimum)


def direction_accuracy(kind: str, upper, lower) -> np.ndarray:
    """relative_gap, except 0 for delta rows whose gap is within DELTA_ABSOLUTE_ACCURACY (round-off)."""
    gap = relative_gap(upper, lower)
    if kind == "delta":
        gap = np.where(np.asarray(upper) - np.asarray(lower) <= DELTA_ABSOLUTE_ACCURACY, 0.0, gap)
    return gap


def refined_bounds(build, kind: str, values, relative_accuracy: float, max_discretization: float,
                   min_discretization: float, max_points: float = MAX_COMPOSED_POINTS) -> dict:
    """Bounds per direction of ``kind`` ("delta" at eps ``values``, "epsilon" at delta ``values``).

    ``build(pessimistic, discretization)`` returns the composed PLD. Returns arrays
    ``{remove,add}_{upper,lower}``, ``upper``, ``lower`` (maxima over the directions),
    ``discretization`` (the finest interval each row used), ``accuracy`` (the largest relative
    gap over the directions; delta: 0 where the gap is <= DELTA_ABSOLUTE_ACCURACY) and ``converged`` (the target was
    met before ``min_discretization`` or the memory cap ``max_points``, see MAX_COMPOSED_POINTS, ran out). The
    pessimistic PLD (upper bound; connect-the-dots, whose error is second order in
    the interval) is rebuilt at a finer interval only while its bounds still move by more than a
    quarter of the target; the optimistic one (first-order error) at every level.
    """
    interval = max_discretization
    minimum = min(min_discretization, interval)
    values = np.asarray(values, dtype=float)
    n = len(values)
    out = {f"{d}_{b}": np.full(n, math.inf if b == "upper" else -math.inf) for d in DIRECTIONS for b in BOUNDS}
    used = np.full(n, interval)
    active = np.ones(n, dtype=bool)
    refine_upper = True
    have_lower = False
    sizes = {bound: [] for bound in BOUNDS}  # (interval, composed points) per built level
    while True:
        for bound, pessimistic in BOUNDS.items():
            if bound == "upper" and not refine_upper:
                continue
            if bound == "lower" and have_lower and interval < LOWER_MIN_DISCRETIZATION:
                continue
            have_lower = have_lower or bound == "lower"
            pmfs = direction_pmfs(build(pessimistic, interval), pessimistic)
            sizes[bound].append((interval, max(pmf.size for pmf in pmfs.values())))
            moved = np.zeros(n, dtype=bool)
            for direction in DIRECTIONS:
                key = f"{direction}_{bound}"
                fresh = query(pmfs[direction], kind, values[active], bound)
                previous = out[key][active]
                better = np.minimum(previous, fresh) if bound == "upper" else np.maximum(previous, fresh)
                with np.errstate(invalid="ignore"):
                    change = np.abs(better - previous)
                    moved[active] |= ~(change <= 0.25 * relative_accuracy * np.abs(better))
                out[key][active] = better
            if bound == "upper":
                refine_upper = bool(moved.any())
        used[active] = interval
        met = np.ones(n, dtype=bool)
        for direction in DIRECTIONS:
            met &= gap_met(kind, out[f"{direction}_upper"], out[f"{direction}_lower"], relative_accuracy)
        active &= ~met
        lower_done = interval < LOWER_MIN_DISCRETIZATION * REFINEMENT_FACTOR
        if not active.any() or interval <= minimum or (lower_done and not refine_upper):
            break
        previous = interval
        interval = _next_interval(kind, interval, minimum, out, active, relative_accuracy)
        if interval < LOWER_MIN_DISCRETIZATION:  # below the lower bound's cap only the upper one is
            # refined, and its error is second order: shrink 4x at a time (memory grows like 1/interval)
            interval = max(interval, min(previous / REFINEMENT_FACTOR, LOWER_MIN_DISCRETIZATION), minimum)
        next_builds = [bound for bound, wanted in (("upper", refine_upper),
                                                   ("lower", interval >= LOWER_MIN_DISCRETIZATION)) if wanted]
        if any(predicted_points(sizes[bound], interval) > max_points for bound in next_builds):
            break  # the next level would not fit the memory cap: rows not yet met stay converged False
    out["upper"] = np.maximum(out["remove_upper"], out["add_upper"])
    out["lower"] = np.maximum(out["remove_lower"], out["add_lower"])
    out["discretization"] = used
    out["accuracy"] = np.maximum(*(direction_accuracy(kind, out[f"{d}_upper"], out[f"{d}_lower"]) for d in DIRECTIONS))
    out["converged"] = ~active
    return out
