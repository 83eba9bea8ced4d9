"""Balls-and-bins (B) accounting for one run: Monte Carlo bounds and what they guarantee.

delta_B(eps) = max(remove, add), remove = D_{e^eps}(P_B||Q_B), add = D_{e^eps}(Q_B||P_B) for
the dominating pair of chua25 Thm 3.1 (k epochs: the k-fold products, Alg. 11). For every
eps and direction:

- ``delta_lower``: the lower bound (6) (deterministic; one epoch only, NaN for k > 1);
- ``delta_estimate``, ``delta_stderr``: the Monte Carlo mean and its standard error;
- ``delta_upper``: the KL upper confidence bound (Alg. 4/5, Thm 4.1) at ``error_prob`` = beta:
  it is >= the true value with probability >= 1 - beta. The maximum over the directions is too:
  max(U_r, U_a) >= max(d_r, d_a) as soon as the direction with the larger true delta is
  covered, a single event of probability >= 1 - beta. Each row is a separate guarantee (no
  simultaneous coverage of several eps or delta values is claimed).

Non-importance methods draw one sample set per direction and evaluate it at every eps. The
samples are drawn on ``options.device`` (cpu, cuda or auto; ``ballsbins.device``): the same
streams on either device, so the same numbers (up to the GPU's floating-point rounding).
Importance sampling (Alg. 5) draws a separate set per eps with its own event E_eps.

eps queries (a target delta): one sample set per direction, evaluated on the grid
0, h, 2h, ... up to eps_D(delta) (h = ``epsilon_step``), which is an upper bound on eps_B(delta)
(Prop. 3.3 and joint convexity, for any number of epochs). With U(g) the UCB at grid point g
and U'(g) = max_{g' >= g} U(g') (still a UCB at every g, and non-increasing),
``epsilon_upper`` = the smallest grid g with U'(g) <= delta, or eps_D(delta) if there is none.
Guarantee: P[epsilon_upper < eps_B(delta)] <= beta with no union bound over the grid. Proof:
let g1 be the largest grid point below eps(delta), so delta(g1) > delta. Failing means some
g <= g1 has U'(g) <= delta; as U' is non-increasing, U(g1) <= U'(g1) <= delta < delta(g1),
an event of probability <= beta (Thm 4.1 at the single, fixed point g1). The maximum over
directions holds with probability >= 1 - beta as above. ``epsilon_lower`` is the largest eps
with the lower bound (6) above delta (bisection), so eps_B(delta) >= epsilon_lower surely.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from dpsampling import DIRECTIONS, progress
from dpsampling.accountants.ballsbins.device import resolve_device
from dpsampling.accountants.ballsbins.device import sample_losses as sample_losses_on
from dpsampling.accountants.ballsbins.estimates import estimate_delta
from dpsampling.accountants.ballsbins.importance import log_importance_probability
from dpsampling.accountants.ballsbins.lower_bound import lower_bound_delta
from dpsampling.accountants.ballsbins.orders import validate_orders
from dpsampling.accountants.ballsbins.sampling import DEFAULT_SAMPLES_PER_CHUNK, METHODS, LossLaw
from dpsampling.accountants.closed_form.gaussian import gaussian_epsilon
from dpsampling.validation import (
    check_array,
    check_choice,
    check_int_at_least,
    check_nonnegative,
    check_open_unit,
    check_positive,
)

METHOD_NAMES = {"naive": "naive", "importance": "importance", "order-stats": "order_statistics",
                "importance+order-stats": "importance_order_statistics"}
"""Command-line method names -> dpsampling.accountants.ballsbins method names."""

DIRECTION_INDEX = {"remove": 0, "add": 1}
_BISECTION_STEPS = 80


@dataclass(frozen=True)
class BallsBinsOptions:
    """Monte Carlo settings; every result records them (``as_dict``)."""

    samples: int = 100_000
    seed: int = 0
    error_prob: float = 1e-3
    estimator: str = "naive"  # a key or a value of METHOD_NAMES (the Monte Carlo estimator)
    orders: str | None = None  # e.g. "1..500,510..1000/10"; required for order statistics
    epsilon_step: float = 0.01  # eps grid step of eps queries
    samples_per_chunk: int = DEFAULT_SAMPLES_PER_CHUNK
    device: str = "cpu"  # cpu, cuda or auto (ballsbins.device): where the samples are drawn; same numbers

    def as_dict(self) -> dict:
        return asdict(self)


def _library_method(estimator: str) -> str:
    method = METHOD_NAMES.get(estimator, estimator)
    return check_choice("estimator", method, METHODS)


def _check(sigma, steps, epochs, options: BallsBinsOptions, query: str) -> tuple:
    """Validate everything before any sampling; returns (sigma, steps, epochs, method, orders)."""
    sigma = check_positive("sigma", sigma)
    steps = check_int_at_least("steps", steps, 1)
    epochs = check_int_at_least("epochs", epochs, 1)
    check_int_at_least("samples", options.samples, 1)
    check_int_at_least("seed", options.seed, 0)
    check_open_unit("error_prob", options.error_prob)
    check_positive("epsilon_step", options.epsilon_step)
    method = _library_method(options.estimator)
    resolve_device(options.device)  # ValueError (one line) for cuda without a GPU, before any sampling
    orders = None
    if "order_statistics" in method:
        if options.orders is None:
            raise ValueError(f"orders must be given for estimator {options.estimator} (e.g. '1..500,510..1000/10'); "
                             "got none")
        orders = validate_orders(options.orders, steps)
    elif options.orders is not None:
        raise ValueError(f"orders must be omitted unless estimator is order-stats or importance+order-stats; "
                         f"got orders with estimator {options.estimator}")
    if method.startswith("importance"):
        if epochs != 1:
            raise ValueError(f"epochs must be 1 with importance sampling (chua25 App. B.4); got {epochs}")
        if query == "epsilon":
            raise ValueError(f"estimator must be naive or order-stats for --delta queries (importance sampling "
                             f"draws one sample set per eps); got {options.estimator}")
    return sigma, steps, epochs, method, orders


def _seed(options: BallsBinsOptions, direction: str, index: int = 0) -> np.random.SeedSequence:
    """Stream of one sample set: SeedSequence(seed) with spawn key (direction, set index)."""
    return np.random.SeedSequence(options.seed, spawn_key=(DIRECTION_INDEX[direction], index))


def _draw(law, options: BallsBinsOptions, index: int = 0):
    """Loss samples of ``law`` (a ``LossLaw``) with the options' size, stream and device."""
    return sample_losses_on(law, options.samples, seed=_seed(options, law.direction, index),
                            samples_per_chunk=options.samples_per_chunk, device=options.device)


def _estimate_columns(samples, eps, error_prob) -> dict:
    """Monte Carlo mean, its standard error and the KL upper confidence bound of delta at each eps."""
    estimate = estimate_delta(samples, eps)
    return {"estimate": estimate.mean(), "stderr": estimate.standard_error(),
            "upper": estimate.upper_confidence_bound(error_prob)}


def _importance_columns(method, sigma, steps, eps, direction, orders, options) -> dict:
    """One sample set per eps, drawn on its own event E_eps (Alg. 5)."""
    columns = {k: np.zeros(eps.size) for k in ("estimate", "stderr", "upper", "log_weight")}
    for j, value in enumerate(eps):
        log_weight = log_importance_probability(sigma, steps, value, direction)
        if math.exp(log_weight) <= 1e-300:  # delta <= P(E_eps) (the integrand vanishes off E)
            columns["upper"][j] = math.exp(log_weight)
            columns["log_weight"][j] = log_weight
            continue
        samples = _draw(LossLaw(method, sigma, steps, direction, orders, value), options, j)
        for name, values in _estimate_columns(samples, [value], options.error_prob).items():
            columns[name][j] = values[0]
        columns["log_weight"][j] = log_weight
    return columns


def ballsbins_delta_table(sigma, steps, epsilons, epochs: int = 1, options: BallsBinsOptions | None = None
                          ) -> pd.DataFrame:
    """delta_B bounds and estimates for each eps (rows); columns per direction and their maximum."""
    options = options or BallsBinsOptions()
    sigma, steps, epochs, method, orders = _check(sigma, steps, epochs, options, "delta")
    eps = check_array("epsilon", epsilons, check_nonnegative)
    frame = pd.DataFrame({"epsilon": eps})
    for direction in progress.steps(DIRECTIONS, f"Monte Carlo ({options.samples:,} samples per direction)"):
        if epochs == 1:
            frame[f"{direction}_delta_lower"] = lower_bound_delta(sigma, steps, eps, direction)
        else:
            frame[f"{direction}_delta_lower"] = np.nan
        if method.startswith("importance"):
            columns = _importance_columns(method, sigma, steps, eps, direction, orders, options)
        else:
            samples = _draw(LossLaw(method, sigma, steps, direction, orders, epochs=epochs), options)
            columns = _estimate_columns(samples, eps, options.error_prob)
        for name in ("estimate", "stderr", "upper"):
            frame[f"{direction}_delta_{name}"] = columns[name]
    for bound in ("lower", "upper"):
        frame[f"delta_{bound}"] = np.maximum(frame[f"remove_delta_{bound}"], frame[f"add_delta_{bound}"])
    return frame


def _epsilon_upper(grid, ucb, delta, epsilon_cap) -> float:
    """Smallest grid eps <= epsilon_cap with U'(eps) <= delta (see module docstring), else the cap."""
    running = np.maximum.accumulate(ucb[::-1])[::-1]  # U'(g) = max over g' >= g
    admissible = (running <= delta) & (grid <= epsilon_cap)
    return float(grid[np.argmax(admissible)]) if admissible.any() else float(epsilon_cap)


def _epsilon_lower(sigma, steps, delta, direction, epsilon_cap) -> float:
    """Largest eps (to bisection precision, from below) with lower bound (6) > delta; 0 if none."""
    def lower(e):
        return float(lower_bound_delta(sigma, steps, [e], direction)[0])

    if lower(0.0) <= delta:
        return 0.0
    low, high = 0.0, max(float(epsilon_cap), 1e-12)
    if lower(high) > delta:  # cannot happen (bound (6) <= delta_B <= delta_D); stay safe
        return high
    for _ in range(_BISECTION_STEPS):
        middle = 0.5 * (low + high)
        if lower(middle) > delta:
            low = middle
        else:
            high = middle
    return low


def ballsbins_epsilon_table(sigma, steps, deltas, epochs: int = 1, options: BallsBinsOptions | None = None
                            ) -> pd.DataFrame:
    """eps_B bounds for each delta (rows), from one sample set per direction on a fine eps grid."""
    options = options or BallsBinsOptions()
    sigma, steps, epochs, method, orders = _check(sigma, steps, epochs, options, "epsilon")
    deltas = check_array("delta", deltas, check_open_unit)
    caps = np.array([gaussian_epsilon(d, sigma, math.sqrt(epochs)) for d in deltas])  # deterministic batches
    grid = np.arange(0.0, float(caps.max()) + options.epsilon_step, options.epsilon_step)
    frame = pd.DataFrame({"delta": deltas, "epsilon_deterministic": caps,
                          "epsilon_step": options.epsilon_step})
    for direction in progress.steps(DIRECTIONS, f"Monte Carlo ({options.samples:,} samples per direction)"):
        samples = _draw(LossLaw(method, sigma, steps, direction, orders, epochs=epochs), options)
        ucb = estimate_delta(samples, grid).upper_confidence_bound(options.error_prob)
        frame[f"{direction}_epsilon_upper"] = [_epsilon_upper(grid, ucb, d, cap) for d, cap in zip(deltas, caps)]
        if epochs == 1:
            frame[f"{direction}_epsilon_lower"] = [_epsilon_lower(sigma, steps, d, direction, cap)
                                                   for d, cap in zip(deltas, caps)]
        else:
            frame[f"{direction}_epsilon_lower"] = np.nan
    for bound in ("lower", "upper"):
        frame[f"epsilon_{bound}"] = np.maximum(frame[f"remove_epsilon_{bound}"], frame[f"add_epsilon_{bound}"])
    return frame
