"""Monte Carlo accounting of a ``MatrixRun`` (balls-and-bins, fixed balls-and-bins, b-min-sep): delta(eps) with confidence.

``sample_losses`` draws privacy-loss samples: ``remove`` = L(y) for y ~ P, ``add`` = -L(y) for
y ~ Q (docs/MATRIX.md); either way delta(eps) = E[[1 - e^{eps - loss}]_+]. ``delta_estimates``
turns them into the estimator statistics of the balls-and-bins Monte Carlo
(``ballsbins.estimates.DeltaEstimate``: mean, standard error, Bernoulli-KL upper bound, chua25
Alg. 4) plus the matching lower bound (the same Hoeffding relative-entropy bound applied to 1 - Z).

Error probability: at each eps and direction, Pr[delta > upper] <= beta and Pr[delta < lower] <= beta;
the ``max`` row's upper bound holds with probability >= 1 - 2 beta (union over the two directions).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling.accountants.ballsbins.estimates import estimate_delta, kl_upper_confidence_bound
from dpsampling.accountants.matrix import _kernels
from dpsampling.accountants.matrix.reference import draw_outputs, fixed_bins_shifts, reference_losses
from dpsampling.accountants.matrix.run import CYCLIC, EPOCH_BINS, FIXED_BINS, MatrixRun
from dpsampling.validation import check_choice, check_int_at_least, check_open_unit

DIRECTIONS = ("remove", "add")
CHUNK = 4096


def check_monte_carlo(run: MatrixRun) -> None:
    """ValueError where ``run`` has no Monte Carlo here (cyclic Poisson; bands > cycle length)."""
    if not isinstance(run, MatrixRun):
        raise ValueError(f"run must be a MatrixRun; got {type(run).__name__}")
    if run.kind == CYCLIC:
        raise ValueError("sampler cyclic_poisson has no Monte Carlo here: with bands <= cycle_length use "
                         "certified_phases; bands > cycle_length is not implemented (docs/MATRIX.md)")
    if run.kind == EPOCH_BINS and run.bands > run.cycle_length:
        raise ValueError(f"coefficients must have at most cycle_length={run.cycle_length} entries for the "
                         f"balls_and_bins Monte Carlo (bands > cycle length is not implemented); got {run.bands}")


def kernel_losses(run: MatrixRun, outputs: np.ndarray) -> np.ndarray:
    """L(y) for each row of ``outputs`` (n, T), by the Numba kernels (same values as ``reference_losses``)."""
    check_monte_carlo(run)
    outputs = np.ascontiguousarray(outputs, dtype=np.float64)
    out = np.empty(outputs.shape[0])
    column = np.ascontiguousarray(run.column())
    if run.kind == EPOCH_BINS:
        _kernels.epoch_bins_losses(outputs, column, run.cycle_length, run.sigma, out)
    elif run.kind == FIXED_BINS:
        norms = np.ascontiguousarray((fixed_bins_shifts(run) ** 2).sum(axis=1))
        _kernels.ballsbins_losses(outputs, column, run.cycle_length, norms, run.sigma, out)
    else:
        _kernels.bminsep_losses(outputs, column, run.min_separation, run.sampling_rate, run.warm_start,
                                run.sigma, out)
    return out


def sample_losses(run: MatrixRun, samples: int, *, direction: str = "remove", seed: int = 0,
                  reference: bool = False) -> np.ndarray:
    """``samples`` privacy-loss samples in ``direction``; seeded (numpy PCG64 from ``seed`` and the
    direction). ``reference=True`` computes them with the plain numpy reference (same draws)."""
    check_monte_carlo(run)
    samples = check_int_at_least("samples", samples, 1)
    direction = check_choice("direction", direction, DIRECTIONS)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), DIRECTIONS.index(direction)]))
    losses = np.empty(samples)
    for start in range(0, samples, CHUNK):
        count = min(CHUNK, samples - start)
        outputs = draw_outputs(run, count, rng, direction)
        values = reference_losses(run, outputs) if reference else kernel_losses(run, outputs)
        losses[start:start + count] = -values if direction == "add" else values
    return losses


def _lower_confidence_bound(mean, count, beta):
    """Smallest p <= mean with count * KL(mean || p) <= log(1/beta): 1 - the upper bound of 1 - mean."""
    return 1.0 - kl_upper_confidence_bound(1.0 - np.asarray(mean, dtype=np.float64), count, beta)


def confidence_bounds(losses: np.ndarray, epsilons, beta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower, estimate, upper) of delta at each eps from loss samples: Pr[delta < lower] <= beta and
    Pr[delta > upper] <= beta at each eps (module docstring); both are monotone in eps."""
    estimate = estimate_delta(losses, epsilons)
    mean = estimate.mean()
    return _lower_confidence_bound(mean, estimate.count, beta), mean, estimate.upper_confidence_bound(beta)


def delta_estimates(run: MatrixRun, epsilons, *, samples: int, beta: float = 1e-3, seed: int = 0) -> pd.DataFrame:
    """Rows (epsilon, direction in remove/add/max): estimate, standard_error, lower, upper (see module
    docstring for the error probabilities). attrs: method "monte carlo", samples, beta, seed."""
    beta = check_open_unit("beta", beta)
    frames = []
    for direction in DIRECTIONS:
        losses = sample_losses(run, samples, direction=direction, seed=seed)
        lower, mean, upper = confidence_bounds(losses, epsilons, beta)
        estimate = estimate_delta(losses, epsilons)
        frames.append(pd.DataFrame({
            "epsilon": estimate.epsilons, "direction": direction, "estimate": mean,
            "standard_error": estimate.standard_error(), "lower": lower, "upper": upper}))
    remove, add = frames
    both = pd.DataFrame({"epsilon": remove["epsilon"], "direction": "max",
                         "estimate": np.maximum(remove["estimate"], add["estimate"]),
                         "standard_error": np.where(remove["estimate"] >= add["estimate"], remove["standard_error"],
                                                    add["standard_error"]),
                         "lower": np.maximum(remove["lower"], add["lower"]),
                         "upper": np.maximum(remove["upper"], add["upper"])})
    table = pd.concat([remove, add, both], ignore_index=True)
    table.attrs.update({"method": "monte carlo", "samples": samples, "beta": beta, "seed": seed,
                        "error_probability": f"per eps and direction: {beta} for upper, {beta} for lower; "
                                             f"max row upper: {2 * beta}",
                        "sampler": run.sampler, "coefficients": list(run.coefficients)})
    return table


def epsilon_estimate(table: pd.DataFrame, delta: float, column: str = "upper") -> float:
    """Smallest eps of the table's grid whose ``max`` row has ``column`` <= delta (inf if none)."""
    rows = table[(table["direction"] == "max") & (table[column] <= delta)]
    return float(rows["epsilon"].min()) if len(rows) else math.inf
