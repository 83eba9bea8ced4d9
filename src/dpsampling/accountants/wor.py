"""Sampling without replacement (W): each step a uniform batch of fixed size b of n (q = b / n).

Dominating pair (Lebeda et al. 2024, Theorem 10.2 = Zhu et al. 2022 Thm 11, and Prop. 9.2): the
base Gaussian mechanism's *substitution* pair N(0, sigma^2) vs N(2, sigma^2) (data in [-1, 1]:
swapping -1 for 1 moves the sum by 2) gives, for one step,

    A = (1 - q) N(0, sigma^2) + q N(2, sigma^2),    B = N(0, sigma^2),

remove = D(A^k || B^k), add = D(B^k || A^k), k = steps * epochs. The pair is realized by
D = (-1, ..., -1) and D' = D with one -1 replaced by 1 (Prop. 9.2), so it is tight, and since
only distance / sigma enters, W at sigma is Poisson at sigma / 2 (sigma_W = 2 sigma_P).

Bounds: the certified engine (``accountants.certified``: the pair above is Poisson's at sigma / 2),
or dp-accounting's PLD, pessimistic connect-the-dots (upper) and optimistic (lower), as for
Poisson (method "dp_accounting"); RDP upper bound = the RDP of the same pair = dp-accounting's Poisson RDP at noise
multiplier sigma / 2 (max over directions). Delta and eps queries refine the discretization
(``accountants.pld_bounds``, shared by all rows) until upper and lower bound of every row agree
to ``relative_accuracy``, or ``min_discretization`` is reached.

Substitution (Appendix D): the upper bound self-composes a pair whose curve is Theorem 14's bound
(remove curve for eps >= 0, add curve below; the pointwise maximum of the two): on the certified
engine, that curve realized exactly as a pair of distributions (``certified.substitution``, which
proves it; upper and lower laws, refined until they meet), on dp-accounting, the connect-the-dots
PLD of the maximum curve (``substitution.pld_from_curve``); the lower bound is the
larger of the two directions' lower bounds -- each is the curve of a pair of substitution
neighbours (Section 7: (-1,...,-1,1) vs (-1,...,-1,-1) and back). RDP: dp-accounting's
WOR replace-one bound (Wang et al. 2019) at noise multiplier sigma / 2.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.accountants import pld_bounds
from dpsampling.accountants.gaussian import gaussian_pld
from dpsampling.accountants.pairs import SubsampledPair
from dpsampling.accountants.poisson import (
    PoissonAccounting,
    SubsampledGaussianRun,
    _certified,
    _check_method,
    poisson_rdp_delta,
    poisson_rdp_epsilon,
)
from dpsampling.accountants.relations import DIRECTION_NAMES
from dpsampling.accountants.substitution import pld_from_curve, rdp_wor_substitution_delta, rdp_wor_substitution_epsilon
from dpsampling.validation import check_array, check_nonnegative, check_open_unit

REFINEMENT_FACTOR = pld_bounds.REFINEMENT_FACTOR
SUBSTITUTION_TAIL = 1e-18  # single-step delta left at +infinity by the substitution upper bound


class WorAccounting(SubsampledGaussianRun):
    """A WOR subsampled Gaussian run: ``steps`` per epoch, each a fixed-size batch at rate ``rate``.

    ``rate`` = b / n; default 1 / steps (n = steps * b: one epoch sees n examples).
    """


def wor_pld(run: WorAccounting, pessimistic: bool, discretization: float):
    """The composed dp-accounting PLD of the pair (A, B) above (both directions inside)."""
    return gaussian_pld("wor", run.sigma, run.rate, run.compositions, pessimistic, discretization)


def pld_delta(epsilon, run: WorAccounting, discretization: float = 1e-4, relative_accuracy: float = 1e-2,
              min_discretization: float | None = None, method: str = "certified",
              directions=DIRECTION_NAMES) -> dict:
    """delta_W(eps) bounds: keys ``{remove,add}_{upper,lower}``, ``upper``, ``lower`` (arrays), and
    ``discretization``, ``accuracy``, ``converged`` per eps (method, directions: as ``poisson.pld_delta``)."""
    eps = check_array("epsilon", epsilon, check_nonnegative)
    if _check_method(method) == "certified":
        return _certified("delta", eps, "wor", run, relative_accuracy, directions)
    minimum = discretization if min_discretization is None else min_discretization
    return pld_bounds.refined_bounds(lambda pessimistic, d: wor_pld(run, pessimistic, d), "delta", eps,
                                     relative_accuracy, discretization, minimum)


def _upper_of_pld(pld, kind: str, values) -> np.ndarray:
    """Upper bound (max over the PLD's directions, round-off negatives removed) at ``values``."""
    pmfs = pld_bounds.direction_pmfs(pld, True)
    return np.maximum(*(pld_bounds.query(pmf, kind, values, "upper") for pmf in pmfs.values()))


def refine_upper(build_upper, deltas, relative_accuracy: float, max_discretization: float,
                 min_discretization: float):
    """Shrink the interval 4x from ``max_discretization`` while some eps_upper(delta) still moves
    by more than ``relative_accuracy`` (relative). Every pessimistic PLD is a valid upper bound,
    so each delta keeps its smallest eps. ``build_upper(interval)`` returns an object with
    ``get_epsilon_for_delta``. Returns (best eps per delta, interval per delta)."""
    interval = max_discretization
    best = _upper_of_pld(build_upper(interval), "epsilon", deltas)
    chosen = np.full(len(deltas), interval)
    while interval / REFINEMENT_FACTOR >= min_discretization:
        interval /= REFINEMENT_FACTOR
        values = _upper_of_pld(build_upper(interval), "epsilon", deltas)
        improvement = best - values
        better = values < best
        best = np.where(better, values, best)
        chosen = np.where(better, interval, chosen)
        if np.all(improvement <= relative_accuracy * np.abs(best)):
            break
    return best, chosen


def pld_epsilon(delta, run: WorAccounting, relative_accuracy: float = 1e-2, max_discretization: float = 1e-4,
                min_discretization: float = 1e-6, method: str = "certified", directions=DIRECTION_NAMES) -> dict:
    """eps_W(delta) per direction and bound, their maximum, and the interval, accuracy and
    convergence per delta (method, directions: as ``poisson.pld_epsilon``)."""
    deltas = check_array("delta", delta, check_open_unit)
    if _check_method(method) == "certified":
        return _certified("epsilon", deltas, "wor", run, relative_accuracy, directions)
    return pld_bounds.refined_bounds(lambda pessimistic, d: wor_pld(run, pessimistic, d), "epsilon", deltas,
                                     relative_accuracy, max_discretization, min_discretization)


def _as_poisson(run: WorAccounting) -> PoissonAccounting:
    """The Poisson run with the same RDP: the WOR pair at sigma is the Poisson pair at sigma / 2."""
    return PoissonAccounting(run.sigma / 2.0, run.steps, run.epochs, run.rate)


def rdp_delta(epsilon, run: WorAccounting) -> np.ndarray:
    """RDP upper bound on max(remove, add) delta_W(eps) (the pair's RDP = Poisson's at sigma / 2)."""
    return poisson_rdp_delta(epsilon, _as_poisson(run))


def rdp_epsilon(delta, run: WorAccounting) -> np.ndarray:
    """RDP upper bound on max(remove, add) eps_W(delta)."""
    return poisson_rdp_epsilon(delta, _as_poisson(run))


# --- substitution (Appendix D) --------------------------------------------------------------
def _single_step_max_curve(run: WorAccounting):
    pair = SubsampledPair("gaussian", run.sigma, run.rate, 2.0)

    def curve(e):
        return np.maximum(pair.hockey_stick(e, "remove"), pair.hockey_stick(e, "add"))

    return curve


def substitution_epsilon_max(run: WorAccounting) -> float:
    """The single-step grid's reach: smallest 2^j with max-curve delta_1(2^j) <= SUBSTITUTION_TAIL."""
    curve = _single_step_max_curve(run)
    reach = 1.0
    while curve(np.array([reach]))[0] > SUBSTITUTION_TAIL:
        reach *= 2.0
    return reach


def substitution_upper_pld(run: WorAccounting, discretization: float):
    """The composed PLD of the pointwise-maximum dominating pair (an upper bound under substitution)."""
    single = pld_from_curve(_single_step_max_curve(run), discretization, substitution_epsilon_max(run))
    return single.self_compose(run.compositions) if run.compositions > 1 else single


def _substitution_accuracy(out: dict, kind: str, relative_accuracy: float) -> dict:
    """accuracy / converged of the substitution bracket (its upper bound is not the add/remove one)."""
    out["accuracy"] = pld_bounds.direction_accuracy(kind, out["upper"], out["lower"])
    out["converged"] = pld_bounds.gap_met(kind, out["upper"], out["lower"], relative_accuracy)
    return out


def _certified_substitution_upper(kind: str, values, run: WorAccounting, relative_accuracy: float) -> np.ndarray:
    """The Appendix D upper bound on the certified engine: Theorem 14's curve realized as a pair
    of distributions (``certified.substitution``; its remove and add directions agree), composed
    and refined until its own upper and lower laws meet to a tenth of ``relative_accuracy`` (the
    bracket's gap is then the pair's, not the grid's; ~1 s at T = 2,344)."""
    from dpsampling.accountants.certified.substitution import substitution_bounds

    bounds, _, _ = substitution_bounds(run.sigma, run.steps, run.epochs, run.rate, values, kind,
                                       min(relative_accuracy, 0.5) / 10.0)
    return bounds[:, 2, 1]


def substitution_delta(epsilon, run: WorAccounting, discretization: float = 1e-4,
                       relative_accuracy: float = 1e-2, method: str = "certified") -> dict:
    """delta_W under substitution: ``upper`` (dominating pair), ``lower`` (max of the directions'
    lower bounds), per-direction ``{remove,add}_{upper,lower}`` of the two dataset pairs.
    method "certified": the Appendix D pair on the engine's grids, refined until it moves by less
    than ``relative_accuracy``; "dp_accounting": dp-accounting's PLD at ``discretization`` (one
    interval, no refinement)."""
    eps = check_array("epsilon", epsilon, check_nonnegative)
    out = pld_delta(eps, run, discretization, relative_accuracy, method=method)
    if _check_method(method) == "certified":
        out["upper"] = _certified_substitution_upper("delta", eps, run, relative_accuracy)
    else:
        out["upper"] = _upper_of_pld(substitution_upper_pld(run, discretization), "delta", eps)
    out["rdp"] = rdp_wor_substitution_delta(eps, run.sigma, run.rate, run.compositions)
    return _substitution_accuracy(out, "delta", relative_accuracy)


def substitution_epsilon(delta, run: WorAccounting, relative_accuracy: float = 1e-2,
                         max_discretization: float = 1e-4, min_discretization: float = 1e-6,
                         method: str = "certified") -> dict:
    """eps_W(delta) under substitution (same keys as :func:`substitution_delta`); the lower bound
    is refined as for add/remove, the upper bound until it moves by less than ``relative_accuracy``."""
    deltas = check_array("delta", delta, check_open_unit)
    out = pld_epsilon(deltas, run, relative_accuracy, max_discretization, min_discretization, method=method)
    if _check_method(method) == "certified":
        out["upper"] = _certified_substitution_upper("epsilon", deltas, run, relative_accuracy)
    else:
        upper, chosen = refine_upper(lambda interval: substitution_upper_pld(run, interval), deltas,
                                     relative_accuracy, max_discretization, min_discretization)
        out["upper"] = upper
        out["discretization"] = np.minimum(chosen, out["discretization"])
    out["rdp"] = rdp_wor_substitution_epsilon(deltas, run.sigma, run.rate, run.compositions)
    return _substitution_accuracy(out, "epsilon", relative_accuracy)


# --- tables for dpsampling.accountants.tables (same columns as the Poisson ones) ----------------------
def _columns(quantity: str, bounds: dict, rdp) -> dict:
    columns = {f"{quantity}_lower": bounds["lower"], f"{quantity}_upper": bounds["upper"]}
    for direction in ("remove", "add"):
        for bound in ("lower", "upper"):
            columns[f"{direction}_{quantity}_{bound}"] = bounds[f"{direction}_{bound}"]
    columns[f"{quantity}_upper_rdp"] = rdp
    return columns


def _record(frame: pd.DataFrame, bounds: dict, options) -> pd.DataFrame:
    frame["pld_discretization"] = bounds["discretization"]
    frame["pld_accuracy"] = bounds["accuracy"]
    frame["pld_converged"] = np.asarray(bounds["converged"], dtype=bool)
    frame["pld_relative_accuracy"] = options.pld_relative_accuracy
    frame["pld_method"] = options.pld_method
    return frame


def delta_frame(sigma, steps, epsilons, epochs, options, relation: str, directions=DIRECTION_NAMES) -> pd.DataFrame:
    """delta bounds per eps under ``relation`` (substitution: Appendix D; otherwise Thm 10.2),
    the certified ones refined in ``directions``."""
    eps = check_array("epsilon", epsilons, check_nonnegative)
    run = WorAccounting(sigma, steps, epochs, options.sampling_rate)
    if relation == "substitution":
        bounds = substitution_delta(eps, run, options.pld_discretization, options.pld_relative_accuracy,
                                    method=options.pld_method)
        rdp = bounds["rdp"]
    else:
        bounds = pld_delta(eps, run, options.pld_discretization, options.pld_relative_accuracy,
                           options.pld_min_discretization, method=options.pld_method, directions=directions)
        rdp = rdp_delta(eps, run)
    frame = pd.DataFrame({"epsilon": eps, **_columns("delta", bounds, rdp)})
    frame = _record(frame, bounds, options)
    frame["sampling_rate"] = run.rate
    return frame


def epsilon_frame(sigma, steps, deltas, epochs, options, relation: str, directions=DIRECTION_NAMES) -> pd.DataFrame:
    """eps bounds per delta under ``relation``, the certified ones refined in ``directions``."""
    deltas = check_array("delta", deltas, check_open_unit)
    run = WorAccounting(sigma, steps, epochs, options.sampling_rate)
    settings = (options.pld_relative_accuracy, options.pld_discretization, options.pld_min_discretization)
    if relation == "substitution":
        bounds = substitution_epsilon(deltas, run, *settings, method=options.pld_method)
        rdp = bounds["rdp"]
    else:
        bounds = pld_epsilon(deltas, run, *settings, method=options.pld_method, directions=directions)
        rdp = rdp_epsilon(deltas, run)
    frame = pd.DataFrame({"delta": deltas, **_columns("epsilon", bounds, rdp)})
    frame = _record(frame, bounds, options)
    frame["sampling_rate"] = run.rate
    return frame
