"""Subsampled Gaussian accountant for Poisson and WOR under add and remove (Sections 4 and 6).

Dominating pairs (Theorem 10, Prop. 9), data in [-1, 1], noise std sigma, rate q:

* Poisson: B = N(0, sigma^2), A = (1 - q) N(0, sigma^2) + q N(1, sigma^2)  (distance 1);
* WOR (fixed batch b of n, q = b/n): the base mechanism's *substitution* pair (-1 -> 1) enters,
  so A = (1 - q) N(0, sigma^2) + q N(2, sigma^2)  (distance 2).

remove: delta_R(eps) = H_{e^eps}(A^k || B^k); add: delta_A(eps) = H_{e^eps}(B^k || A^k);
add_or_remove: max of the two (computed separately -- Section 5). Since only distance/sigma
enters, WOR at sigma equals Poisson at sigma/2, hence sigma_WOR = 2 sigma_Poisson (Prop. 9).

Numerics: dp_accounting's PLD (``accountants.reference.pld.gaussian_pld``: ``from_gaussian_mechanism``
with ``sensitivity`` = distance and ``sampling_prob`` = q). The upper bound is the pessimistic
connect-the-dots PLD, the lower bound the optimistic privacy-buckets PLD (rounding every loss down;
it loses up to about k * discretization in eps, so it is much looser than the upper bound at large
k), both with their round-off and tail truncation corrected (``reference.pld_bounds``) so that they
are guaranteed bounds. The sigma searches (``calibrate_sigma_at_rate``) use the certified engine
(``dpsampling.Accountant``) for the upper bound. lebeda24's code only (``papers.lebeda24``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpsampling import DIRECTIONS
from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.frames import headline_value
from dpsampling.accountants.reference import pld, pld_bounds
from dpsampling.accountants.run import Phase
from dpsampling.papers.lebeda24.subsampled import check_relation, check_sampler, sampler_distance
from dpsampling.validation import (
    check_array,
    check_int_at_least,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_rate,
)

BOUNDS = {"upper": True, "lower": False}  # bound name -> pessimistic_estimate


def _check(sampler, sigma, rate, steps, discretization):
    check_sampler(sampler)
    sigma = check_positive("sigma", sigma)
    rate = check_rate("sampling_rate", rate)
    steps = check_int_at_least("steps", steps, 1)
    discretization = check_positive("discretization", discretization)
    return sigma, rate, steps, discretization


def gaussian_pld(sampler: str, sigma: float, rate: float, steps: int, pessimistic: bool = True,
                 discretization: float = 1e-4):
    """The k-fold composed dp_accounting PLD (both directions inside) of ``sampler``
    (``reference.pld.gaussian_pld`` at the sampler's distance; rate 1: one Gaussian step with noise
    sigma / sqrt(k), composed exactly)."""
    sigma, rate, steps, discretization = _check(sampler, sigma, rate, steps, discretization)
    return pld.gaussian_pld(sigma, rate, steps, sampler_distance(sampler), pessimistic, discretization)


def direction_pmfs(composed) -> dict:
    """{"remove", "add"}: dp_accounting's raw PMFs of a composed PLD (an estimate, not a bound:
    ``certified_pmfs`` are the bounds)."""
    return {"remove": composed._pmf_remove, "add": composed._pmf_add}


def certified_pmfs(setting: dict, bound: str) -> dict:
    """{"remove", "add"}: the PMFs of ``setting``'s PLD with the round-off and tail truncation
    corrected so that each gives a guaranteed ``bound`` ("upper": pessimistic, "lower": optimistic;
    ``reference.pld_bounds.direction_pmfs``)."""
    composed = gaussian_pld(setting["sampler"], setting["sigma"], setting["sampling_rate"], setting["steps"],
                            BOUNDS[bound], setting["discretization"])
    return pld_bounds.direction_pmfs(composed, BOUNDS[bound])


def _table(values, key, query, setting: dict, bounds=("upper", "lower")):
    """``query`` (delta or epsilon) at each of ``values`` per direction and bound, guaranteed bounds
    (``certified_pmfs``, ``pld_bounds.query``); ``setting``: sampler, sigma, sampling_rate, steps,
    discretization (also written as columns)."""
    frame = pd.DataFrame({key: values})
    for bound in bounds:
        pmfs = certified_pmfs(setting, bound)
        for direction in DIRECTIONS:
            frame[f"{query}_{direction}_{bound}"] = pld_bounds.query(pmfs[direction], query, values, bound)
        frame[f"{query}_{bound}"] = np.maximum(frame[f"{query}_remove_{bound}"], frame[f"{query}_add_{bound}"])
    for name, value in setting.items():
        frame[name] = value
    return frame


def _setting(sampler, sigma, rate, steps, discretization) -> dict:
    return {"sampler": sampler, "sigma": sigma, "sampling_rate": rate, "steps": steps,
            "discretization": discretization}


def query_one(pmf, query: str, value: float) -> float:
    if query == "delta":
        return float(pmf.get_delta_for_epsilon(float(value)))
    return float(pmf.get_epsilon_for_delta(float(value)))


def delta_for_epsilon(epsilons, sampler: str, sigma: float, rate: float, steps: int,
                      discretization: float = 1e-4, bounds=("upper", "lower")) -> pd.DataFrame:
    """delta(eps) per direction and bound.

    Columns: epsilon, delta_remove_upper, delta_add_upper, delta_upper (max), and the same with
    ``lower``; plus sampler, sigma, sampling_rate, steps, discretization.
    """
    sigma, rate, steps, discretization = _check(sampler, sigma, rate, steps, discretization)
    eps = check_array("epsilon", epsilons, check_nonnegative)
    return _table(eps, "epsilon", "delta", _setting(sampler, sigma, rate, steps, discretization), bounds)


def epsilon_for_delta(deltas, sampler: str, sigma: float, rate: float, steps: int,
                      discretization: float = 1e-4, bounds=("upper", "lower")) -> pd.DataFrame:
    """eps(delta) per direction and bound: columns epsilon_{remove,add}_{upper,lower}, epsilon_{upper,lower}."""
    sigma, rate, steps, discretization = _check(sampler, sigma, rate, steps, discretization)
    deltas = check_array("delta", deltas, check_open_unit)
    return _table(deltas, "delta", "epsilon", _setting(sampler, sigma, rate, steps, discretization), bounds)


def delta_at(sampler: str, relation: str, epsilon: float, sigma: float, rate: float, steps: int,
             pessimistic: bool = True, discretization: float = 1e-4) -> float:
    """delta of ``relation`` ("remove", "add" or "add_or_remove", the max) at one eps."""
    check_relation(relation, "gaussian_pld", sampler)
    pmfs = direction_pmfs(gaussian_pld(sampler, sigma, rate, steps, pessimistic, discretization))
    directions = DIRECTIONS if relation == "add_or_remove" else (relation,)
    return max(query_one(pmfs[d], "delta", epsilon) for d in directions)


@dataclass(frozen=True)
class SigmaSearch:
    """How a sigma is searched: bisection on log(sigma) from ``sigma_start`` until the bracket's
    relative width is <= ``rtol`` (at most ``max_iterations`` evaluations); the certified bound
    refined to ``accuracy``; a dp-accounting PLD, where one is used, at ``discretization``."""

    rtol: float = 1e-3
    sigma_start: float = 1.0
    max_iterations: int = 100
    accuracy: float = 0.01
    discretization: float = 1e-4

    def __post_init__(self):
        check_positive("rtol", self.rtol)
        check_positive("sigma_start", self.sigma_start)
        check_int_at_least("max_iterations", self.max_iterations, 1)
        check_open_unit("accuracy", self.accuracy)
        check_positive("discretization", self.discretization)


DEFAULT_SEARCH = SigmaSearch()


def calibrate_sigma_at_rate(sampler: str, epsilon: float, delta: float, rate: float, steps: int,
                            relation: str = "add_or_remove", bound: str = "upper",
                            search: SigmaSearch = DEFAULT_SEARCH) -> dict:
    """Smallest sigma with delta_relation(eps) <= delta, by bisection on log(sigma).

    delta is evaluated with the ``bound`` estimate ("upper": the certified engine's upper bound,
    so the returned sigma certainly suffices; "lower": dp-accounting's optimistic PLD at
    ``search.discretization``). The bracket [sigma_low, sigma_high] (infeasible, feasible) is
    shrunk until sigma_high / sigma_low <= 1 + search.rtol; ``sigma`` is sigma_high. So the true
    smallest sigma (for that estimate) lies within a relative rtol below the returned value.
    """
    check_sampler(sampler)
    check_relation(relation, "gaussian_pld", sampler)
    epsilon = check_nonnegative("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    rate = check_rate("sampling_rate", rate)
    steps = check_int_at_least("steps", steps, 1)
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {', '.join(BOUNDS)}; got {bound!r}")

    def delta_of_sigma(s):
        if bound == "upper":  # the certified engine, refined in the direction the relation reads
            phase = Phase(sampler, s, steps=steps, sampling_rate=rate)
            return headline_value(Accountant(phase, relation=relation, accuracy=search.accuracy,
                                             refine="relation").delta_bounds([epsilon]))
        return delta_at(sampler, relation, epsilon, s, rate, steps, BOUNDS[bound], search.discretization)

    result = bisect_sigma(delta_of_sigma, delta, search.rtol, search.sigma_start, search.max_iterations)
    return {
        "sampler": sampler, "relation": relation, "bound": bound, "epsilon": epsilon, "delta": delta,
        "sampling_rate": rate, "steps": steps, "rtol": search.rtol,
        **({"accuracy": search.accuracy, "method": "certified"} if bound == "upper" else
           {"discretization": search.discretization, "method": "dp_accounting optimistic PLD"}), **result,
    }


def bisect_sigma(delta_of_sigma, delta: float, rtol: float = 1e-3, sigma_start: float = 1.0,
                 max_iterations: int = 100) -> dict:
    """Smallest sigma with delta_of_sigma(sigma) <= delta, for a non-increasing delta_of_sigma.

    Brackets by doubling / halving from ``sigma_start``, then bisects log(sigma) until
    sigma_high / sigma_low <= 1 + rtol. Returns {"sigma" (= sigma_high, feasible), "sigma_low"
    (infeasible), "sigma_high", "evaluations"}.
    """
    evaluations = 0

    def feasible(s):
        nonlocal evaluations
        evaluations += 1
        return delta_of_sigma(s) <= delta

    lo = hi = sigma_start
    if feasible(sigma_start):
        while True:
            lo = hi / 2.0
            if lo < 1e-6:
                raise ValueError(f"sigma below 1e-6 already gives delta <= {delta}; got no lower bracket")
            if not feasible(lo):
                break
            hi = lo
    else:
        while True:
            hi = lo * 2.0
            if hi > 1e6:
                raise ValueError(f"delta must be reachable with sigma <= 1e6; got delta = {delta}")
            if feasible(hi):
                break
            lo = hi
    iterations = 0
    while hi / lo > 1.0 + rtol and iterations < max_iterations:
        mid = math.sqrt(lo * hi)
        if feasible(mid):
            hi = mid
        else:
            lo = mid
        iterations += 1
    return {"sigma": hi, "sigma_low": lo, "sigma_high": hi, "evaluations": evaluations}


def conjecture12_search(sigmas, rates, steps_list, epsilons, discretization: float = 1e-3,
                        rtol: float = 1e-6, atol: float = 1e-12) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Conjecture 12 (Poisson Gaussian): delta_remove(eps) >= delta_add(eps) for eps >= 0?

    For each (sigma, rate, k) computes both directions with the pessimistic (upper) and the
    optimistic (lower) PLD at every eps, both corrected into guaranteed bounds
    (``reference.pld_bounds``). A row is an *apparent* counterexample when
    delta_add_upper > delta_remove_upper (1 + rtol) + atol (same estimator for both directions)
    and a *certain* one when delta_add_lower > delta_remove_upper + atol (rigorous bounds). The
    tolerances absorb floating-point noise: at eps = 0 both directions equal the total
    variation distance exactly, and dp_accounting's deltas below ~1e-14 are rounding noise. Returns
    (grid, counterexamples): grid has one row per (sigma, rate, steps, epsilon) with the
    four deltas and the two flags; counterexamples is the subset flagged apparent or certain.
    """
    sigmas = check_array("sigma", sigmas, check_positive)
    rates = check_array("sampling_rate", rates, check_rate)
    steps_values = [check_int_at_least("steps", k, 1) for k in np.atleast_1d(steps_list)]
    eps = check_array("epsilon", epsilons, check_nonnegative)
    rows = []
    for sigma in sigmas:
        for rate in rates:
            for steps in steps_values:
                frame = delta_for_epsilon(eps, "poisson", sigma, rate, steps, discretization)
                rows.append(frame)
    grid = pd.concat(rows, ignore_index=True)
    grid["rtol"] = rtol
    grid["atol"] = atol
    grid["apparent_counterexample"] = grid["delta_add_upper"] > grid["delta_remove_upper"] * (1 + rtol) + atol
    grid["certain_counterexample"] = grid["delta_add_lower"] > grid["delta_remove_upper"] + atol
    bad = grid[grid["apparent_counterexample"] | grid["certain_counterexample"]].reset_index(drop=True)
    return grid, bad
