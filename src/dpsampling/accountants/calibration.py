"""Calibration: the smallest noise multiplier sigma that makes a run (eps, delta)-DP.

``sigma`` is always *sufficient*: the delta evaluated is a certified upper bound for the chosen
relation, so the returned sigma certainly gives (eps, delta)-DP:
- poisson, wor, balls_and_bins: the certified upper bound (``accountants.certified``, one path for
  all three; WOR substitution via the pessimistic PLD of the Appendix D pair, ``accountants.wor``);
- deterministic: the exact Gaussian-mechanism delta (chua24 Prop. 3.1, sensitivity sqrt(epochs));
- shuffle: delta_D, an upper bound on delta_S (chua24 Thm 4.1). Shuffle has no tight upper bound,
  so its result adds ``sigma_necessary``: the smallest sigma that the E_C lower bound does not rule
  out (every smaller sigma is certainly insufficient). The truth lies in between.
sigma is found by bisection on log(sigma) until the bracket [sigma_low (insufficient by the bound
used), sigma (sufficient)] has relative width <= rtol.
"""

from __future__ import annotations

import numpy as np

from dpsampling import SAMPLERS
from dpsampling.accountants import deterministic, shuffle, wor
from dpsampling.accountants.gaussian import DEFAULT_SEARCH, SigmaSearch, bisect_sigma
from dpsampling.accountants.relations import (
    DEFAULT_RELATION,
    SUBSAMPLED_SAMPLERS,
    check_sampler_relation,
    relation_direction,
)
from dpsampling.validation import check_choice, check_int_at_least, check_nonnegative, check_open_unit

CALIBRATED_SAMPLERS = SAMPLERS


def _direction_delta(frame, relation: str, column: str = "delta_upper") -> float:
    """The relation's value of a per-direction bounds frame (rows remove, add, max)."""
    return float(frame.loc[frame["direction"] == relation_direction(relation), column].iloc[0])


def _shuffle_lower(sigma, epsilon, steps, epochs, relation) -> float:
    bounds = shuffle.shuffle_delta_lower([epsilon], sigma, steps, epochs)
    values = {direction: float(np.asarray(bounds[direction]).reshape(-1)[0]) for direction in ("remove", "add")}
    return max(values.values()) if relation == "add_or_remove" else values[relation]


def calibrate_sigma(sampler: str, epsilon: float, delta: float, steps: int, epochs: int = 1,
                    sampling_rate: float | None = None, relation: str = DEFAULT_RELATION,
                    search: SigmaSearch = DEFAULT_SEARCH) -> dict:
    """Smallest sigma whose certified upper bound gives delta(eps) <= delta for ``steps`` steps per
    epoch and ``epochs`` epochs (poisson, wor: at ``sampling_rate``, default 1 / steps). Returns
    sigma (sufficient), sigma_low, how the bound was computed (``method``), evaluations and the
    inputs; for shuffle also sigma_necessary (see the module docstring). ``search``: the
    bisection (rtol, sigma_start), the certified bound's accuracy, and the discretization of
    WOR substitution's Appendix D pair (a dp-accounting PLD)."""
    check_choice("sampler", sampler, CALIBRATED_SAMPLERS)
    check_sampler_relation(sampler, relation)
    if sampling_rate is not None and sampler not in SUBSAMPLED_SAMPLERS:
        raise ValueError(f"sampling_rate applies to samplers {', '.join(SUBSAMPLED_SAMPLERS)} only; got "
                         f"{sampling_rate!r} with sampler {sampler!r}")
    epsilon = check_nonnegative("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    steps = check_int_at_least("steps", steps, 1)
    epochs = check_int_at_least("epochs", epochs, 1)
    rtol, sigma_start, accuracy = search.rtol, search.sigma_start, search.accuracy
    rate = wor.WorAccounting(1.0, steps, epochs, sampling_rate).rate if sampler in SUBSAMPLED_SAMPLERS else None
    common = {"sampler": sampler, "relation": relation, "epsilon": epsilon, "delta": delta, "steps": steps,
              "epochs": epochs, "sampling_rate": rate, "rtol": rtol}
    if sampler in ("deterministic", "shuffle"):
        # the Gaussian mechanism is symmetric: both directions have the same curve
        result = bisect_sigma(lambda s: float(deterministic.deterministic_delta([epsilon], s, epochs)[0]), delta,
                              rtol, sigma_start)
        out = dict(common, sigma=result["sigma"], sigma_low=result["sigma_low"], evaluations=result["evaluations"],
                   method="exact Gaussian mechanism (chua24 Prop. 3.1)" if sampler == "deterministic"
                   else "delta_D, an upper bound on delta_S (chua24 Thm 4.1)")
        if sampler == "shuffle":
            necessary = bisect_sigma(lambda s: _shuffle_lower(s, epsilon, steps, epochs, relation), delta, rtol,
                                     result["sigma"])
            out.update(sigma_necessary=necessary["sigma"], sigma_ruled_out=necessary["sigma_low"],
                       necessary_method="E_C sets lower bound (chua24 eq. (3)): smaller sigma are certainly insufficient",
                       evaluations=result["evaluations"] + necessary["evaluations"])
        return out
    if relation == "substitution":
        discretization = search.discretization

        def substitution_upper(sigma):
            run = wor.WorAccounting(sigma, steps, epochs, rate)
            return float(wor.substitution_upper_pld(run, discretization).get_delta_for_epsilon(epsilon))

        result = bisect_sigma(substitution_upper, delta, rtol, sigma_start)
        return dict(common, sigma=result["sigma"], sigma_low=result["sigma_low"], evaluations=result["evaluations"],
                    discretization=discretization, method="pessimistic PLD of the Appendix D pair (dp-accounting)")
    from dpsampling.accountants.certified import ENGINE_VERSION, Accountant, Phase

    def certified_upper(sigma):
        frame = Accountant([Phase(sampler, sigma, steps, epochs, rate)], accuracy=accuracy,
                           directions=(relation_direction(relation),)).delta_bounds([epsilon])
        return _direction_delta(frame, relation)

    result = bisect_sigma(certified_upper, delta, rtol, sigma_start)
    return dict(common, sigma=result["sigma"], sigma_low=result["sigma_low"], evaluations=result["evaluations"],
                method="certified upper bound (accountants.certified)", accuracy=accuracy,
                engine_version=ENGINE_VERSION)
