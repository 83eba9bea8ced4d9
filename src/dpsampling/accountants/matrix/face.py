"""Correlated-noise phases on the face (``Accountant``): their certified reduction, or their Monte Carlo answer.

``reduced_phases(phases)``: each phase with correlated noise, or of a correlated-noise sampler
(``Phase.matrix_accounted``), replaced by the phases of its certified reduction (``certified_phases`` of its ``MatrixRun``); the DP-SGD phases
are kept as they are (the same objects, so their answer is today's bit for bit). The phases that
have no certified reduction are returned apart.

``monte_carlo_bounds(run, quantity, values, ...)``: the (n, 3, 2) bounds (remove, add, max) of one
``MatrixRun`` from ``samples`` loss samples per direction: delta(eps) in [lower, upper], the
Hoeffding relative-entropy confidence bounds (``montecarlo.confidence_bounds``; each fails with
probability <= beta per query value and direction, the max row's upper bound <= 2 beta). An eps
query at delta is the smallest eps whose upper bound of delta is <= delta (upper) and the largest
eps whose lower bound of delta is > delta (lower): since both bounds decrease in eps, the eps
upper bound fails only if the delta upper bound fails at the true eps(delta), so the same error
probabilities hold. The upper eps is found by bisection and reported at the bracket's upper end.
The Monte Carlo modules (numba kernels, pandas) are imported when a Monte Carlo answer is asked
for: a certified query through the face never loads them.

Fixed balls-and-bins has a certified lower bound (``lower_bound.lower_bound_delta``): its lower
bound on the face is the larger of that one and the Monte Carlo lower confidence bound, per row
(``lower_method`` says which: the certified one holds without probability, the Monte Carlo one
with probability >= 1 - beta), and an eps query's certified lower bound is the largest eps whose
certified delta lower bound is above delta (bisection: that bound decreases in eps). Where the
certified lower bound passes the Monte Carlo upper bound (which then failed), the upper bound is
raised to it.
"""

from __future__ import annotations

import math

import numpy as np

from dpsampling.accountants.matrix.reduction import certified_phases

EPSILON_ITERATIONS = 60
"""Bisection steps of an eps query (the bracket shrinks by 2^-60 relative to its start)."""
MAX_EPSILON = 1e3
"""Where the eps search stops: an upper bound of delta still above the target there answers inf."""
LOWER_METHOD = "Monte Carlo lower confidence bound (Hoeffding relative entropy), not certified"
UPPER_METHOD = "Monte Carlo upper confidence bound (Hoeffding relative entropy, chua25 Alg. 4), not certified"
CERTIFIED_LOWER_METHOD = "certified lower bound (event <y, C x_0> > tau, matrix.lower_bound), holds without probability"


def reduced_phases(phases) -> tuple[tuple, tuple]:
    """(the phases the certified engine answers, the correlated phases without a certified reduction)."""
    engine, unreduced = [], []
    for phase in phases:
        if not phase.matrix_accounted:
            engine.append(phase)
            continue
        reduction = certified_phases(phase.matrix_run())
        if reduction is None:
            unreduced.append(phase)
        else:
            engine.extend(reduction)
    return tuple(engine), tuple(unreduced)


def phase_of(run):
    """The face's ``Phase`` of a ``MatrixRun`` (the inverse of ``Phase.matrix_run``): the registry
    sampler whose law it is (``correlated_noise``; a correlated-noise sampler of its own before a
    papers' sampler that takes the same law), with the fields that law takes; ValueError where the
    face cannot describe the run (e.g. cyclic Poisson over a part of a cycle)."""
    from dpsampling.accountants.run import Phase
    from dpsampling.samplers import SAMPLERS

    entries = [spec for spec in SAMPLERS.values() if spec.correlated_noise == run.sampler]
    spec = next((spec for spec in entries if spec.matrix_only), entries[0])
    fields = {"steps": run.steps, "coefficients": run.coefficients}
    if run.cycle_length is not None:
        fields["steps_per_epoch"] = run.cycle_length
    if run.sampling_rate is not None:
        fields["sampling_rate"] = run.sampling_rate
    if run.min_separation is not None:
        fields.update(min_separation=run.min_separation, warm_start=run.warm_start)
    return Phase(spec.name, run.sigma, **fields)


def check_monte_carlo_phase(phase) -> None:
    """ValueError where the Monte Carlo of this phase's run is not implemented (its reason)."""
    from dpsampling.accountants.matrix.montecarlo import check_monte_carlo

    run = phase.matrix_run()
    try:
        check_monte_carlo(run)
    except ValueError as error:
        raise ValueError(f"coefficients {list(phase.coefficients)} have neither a certified bound nor a Monte Carlo "
                         f"here for {phase.sampler} (accounted as {run.sampler} of cycle length {run.cycle_length}): "
                         f"{error}") from None


def _delta_bounds(losses, epsilons: np.ndarray, beta: float) -> np.ndarray:
    from dpsampling.accountants.matrix.montecarlo import DIRECTIONS, confidence_bounds

    bounds = np.empty((epsilons.size, 3, 2))
    for column, direction in enumerate(DIRECTIONS):
        lower, _, upper = confidence_bounds(losses[direction], epsilons, beta)
        bounds[:, column, 0], bounds[:, column, 1] = lower, upper
    bounds[:, 2] = np.maximum(bounds[:, 0], bounds[:, 1])
    return bounds


def _epsilon_of(losses, delta: float, beta: float, bound: int) -> float:
    """Upper (bound 1): the smallest eps with upper(eps) <= delta; lower (bound 0): the largest eps
    with lower(eps) > delta; bisection, the end on the safe side reported."""
    from dpsampling.accountants.matrix.montecarlo import confidence_bounds

    def above(eps: float) -> bool:
        bounds = confidence_bounds(losses, np.array([eps]), beta)
        return bool(bounds[2 * bound][0] > delta)

    low, high = _crossing(above)
    return high if bound == 1 else low


def _crossing(above) -> tuple[float, float]:
    """(low, high) around where the decreasing test ``above(eps)`` turns false: above(low) holds
    (or low = 0) and above(high) does not, after EPSILON_ITERATIONS halvings of a doubling bracket;
    (0, 0) where above(0) fails, (eps, inf) where it still holds at eps >= MAX_EPSILON."""
    if not above(0.0):
        return 0.0, 0.0
    low, high = 0.0, 1.0
    while above(high):
        if high >= MAX_EPSILON:
            return high, math.inf
        low, high = high, 2.0 * high
    for _ in range(EPSILON_ITERATIONS):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if above(middle) else (low, middle)
    return low, high


def _certified_epsilon(run, delta: float, column: int) -> float:
    """The largest eps whose certified delta lower bound (direction ``column``) is above ``delta``
    (0 where none is); bisection, the lower end reported."""
    from dpsampling.accountants.matrix.lower_bound import lower_bound_delta

    def above(eps: float) -> bool:
        return bool(lower_bound_delta(run, [eps])["lower"].iloc[column] > delta)

    return _crossing(above)[0]


def certified_lower_bounds(run, quantity: str, values: np.ndarray) -> np.ndarray | None:
    """(n, 3) certified lower bounds (remove, add, max) where the run has them (fixed balls-and-bins:
    ``lower_bound.lower_bound_delta``), else None."""
    from dpsampling.accountants.matrix.lower_bound import lower_bound_delta
    from dpsampling.accountants.matrix.run import FIXED_BINS

    if run.kind != FIXED_BINS:
        return None
    if quantity == "delta":
        return lower_bound_delta(run, values)["lower"].to_numpy().reshape(-1, 3)
    lower = np.array([[_certified_epsilon(run, float(delta), column) for column in (0, 1)] for delta in values])
    return np.column_stack([lower, lower.max(axis=1)])


def _with_certified_lower(bounds: np.ndarray, certified: np.ndarray) -> np.ndarray:
    """The lower bounds raised to the certified ones where those are larger (in place), each upper
    bound raised to its lower one; the (n, 3) lower methods."""
    chosen = certified >= bounds[..., 0]
    bounds[..., 0] = np.maximum(bounds[..., 0], certified)
    bounds[..., 1] = np.maximum(bounds[..., 1], bounds[..., 0])
    return np.where(chosen, CERTIFIED_LOWER_METHOD, LOWER_METHOD).astype(object)


def monte_carlo_bounds(run, quantity: str, values: np.ndarray, *, samples: int, beta: float, seed: int):
    """((n, 3, 2) bounds, (lower, upper) methods, attrs) of ``run`` by Monte Carlo (module docstring)."""
    from dpsampling.accountants.matrix.montecarlo import DIRECTIONS, sample_losses

    losses = {direction: sample_losses(run, samples, direction=direction, seed=seed) for direction in DIRECTIONS}
    if quantity == "delta":
        bounds = _delta_bounds(losses, values, beta)
    else:
        bounds = np.empty((values.size, 3, 2))
        for row, delta in enumerate(values):
            for column, direction in enumerate(DIRECTIONS):
                for bound in (0, 1):
                    bounds[row, column, bound] = _epsilon_of(losses[direction], float(delta), beta, bound)
        bounds[:, 2] = np.maximum(bounds[:, 0], bounds[:, 1])
    attrs = {"method": "monte carlo", "samples": samples, "error_prob": beta, "seed": seed,
             "error_probability": f"each bound fails with probability <= {beta:g} per query value and direction; "
                                  f"the max row's upper bound with probability <= {2 * beta:g}",
             "matrix_sampler": run.sampler}
    certified = certified_lower_bounds(run, quantity, values)
    if certified is None:
        return bounds, (LOWER_METHOD, UPPER_METHOD), attrs
    lower_methods = _with_certified_lower(bounds, certified)
    attrs["certified_lower"] = (f"each lower bound is the larger of the certified one (holds without probability) "
                                f"and the Monte Carlo one (holds with probability >= 1 - {beta:g}); "
                                f"certified in {int((lower_methods == CERTIFIED_LOWER_METHOD).sum())} of "
                                f"{lower_methods.size} rows (lower_method)")
    return bounds, (lower_methods, UPPER_METHOD), attrs
