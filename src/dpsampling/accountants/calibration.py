"""Calibration: the smallest noise multiplier sigma that makes a run (eps, delta)-DP.

For Poisson and WOR the delta evaluated is the rigorous upper bound (pessimistic PLD, so the
returned sigma certainly suffices for the chosen relation): add, remove, add_or_remove via the
dominating pairs of Theorem 10 (``lebeda.gaussian``), and for WOR also substitution via the
Appendix D pair (``accountants.wor``). sigma is found by bisection on log(sigma) until the
bracket [sigma_low (infeasible), sigma (feasible)] has relative width <= rtol.
"""

from __future__ import annotations

from dpsampling.accountants import wor
from dpsampling.accountants.gaussian import bisect_sigma, calibrate_sigma_at_rate
from dpsampling.accountants.relations import DEFAULT_RELATION, SUBSAMPLED_SAMPLERS, check_sampler_relation
from dpsampling.validation import check_choice, check_int_at_least, check_nonnegative, check_open_unit, check_positive

CALIBRATED_SAMPLERS = SUBSAMPLED_SAMPLERS


def calibrate_sigma(sampler: str, epsilon: float, delta: float, steps: int, epochs: int = 1,
                    sampling_rate: float | None = None, relation: str = DEFAULT_RELATION,
                    discretization: float = 1e-4, rtol: float = 1e-3, sigma_start: float = 1.0) -> dict:
    """Smallest sigma with delta_upper(eps) <= delta for ``steps * epochs`` steps at ``sampling_rate``
    (default 1 / steps). Returns sigma, sigma_low, evaluations and the inputs."""
    check_choice("sampler", sampler, CALIBRATED_SAMPLERS)
    check_sampler_relation(sampler, relation)
    epsilon = check_nonnegative("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    steps = check_int_at_least("steps", steps, 1)
    epochs = check_int_at_least("epochs", epochs, 1)
    discretization = check_positive("discretization", discretization)
    rtol = check_positive("rtol", rtol)
    rate = wor.WorAccounting(1.0, steps, epochs, sampling_rate).rate  # validates; default 1 / steps
    compositions = steps * epochs
    if relation != "substitution":
        result = calibrate_sigma_at_rate(sampler, epsilon, delta, rate, compositions, relation, "upper", discretization,
                                rtol, sigma_start)
    else:
        def delta_of_sigma(sigma):
            run = wor.WorAccounting(sigma, steps, epochs, rate)
            return float(wor.substitution_upper_pld(run, discretization).get_delta_for_epsilon(epsilon))

        result = bisect_sigma(delta_of_sigma, delta, rtol, sigma_start)
    return {"sampler": sampler, "relation": relation, "epsilon": epsilon, "delta": delta, "steps": steps,
            "epochs": epochs, "sampling_rate": rate, "discretization": discretization, "rtol": rtol,
            "sigma": result["sigma"], "sigma_low": result["sigma_low"], "evaluations": result["evaluations"]}
