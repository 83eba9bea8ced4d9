"""The Monte Carlo bisection of sigma for a ``MatrixRun`` (``calibrate.calibrate_matrix_sigma``'s
second case; also ``accountants.calibrate``'s for a correlated phase without a certified reduction):
bisection in log sigma on the Monte Carlo upper bound of the ``max`` row at the target eps, the same
seed at every sigma (common random numbers); all N evaluated upper bounds hold together with
probability >= 1 - 2 beta N (union bound); the bisection is ``accountants.bisection``'s. It imports nothing of the certified face, so both
calibrations may import it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dpsampling.accountants.bisection import log_bisection
from dpsampling.accountants.matrix.montecarlo import delta_estimates

MAX_SIGMA = 1e4
MIN_SIGMA = 1e-3


@dataclass(frozen=True)
class MatrixCalibration:
    sigma: float  # shown sufficient
    sigma_not_shown_sufficient: float
    method: str  # "certified" or "monte carlo"
    evaluations: int
    error_probability: float  # 0 for certified
    samples: int | None = None
    beta: float | None = None


def monte_carlo_sigma(run, target, delta, samples, beta, seed, rtol) -> MatrixCalibration:
    """The smallest sigma whose Monte Carlo upper bound of delta at ``target`` is <= ``delta``, from ``run.sigma``."""
    seen: dict[float, bool] = {}

    def sufficient(sigma: float) -> bool:
        if sigma not in seen:
            table = delta_estimates(replace(run, sigma=sigma), [target], samples=samples, beta=beta, seed=seed)
            seen[sigma] = bool(table[table["direction"] == "max"]["upper"].iloc[0] <= delta)
        return seen[sigma]

    high = low = run.sigma
    while not sufficient(high):
        low, high = high, 2.0 * high
        if high > MAX_SIGMA:
            raise ValueError(f"no sigma <= {MAX_SIGMA} is shown sufficient with samples={samples} (too few samples "
                             f"for delta={delta}?)")
    if low == high:
        while sufficient(low):
            high, low = low, low / 2.0
            if low < MIN_SIGMA:
                return MatrixCalibration(high, low, "monte carlo", len(seen), 2 * beta * len(seen), samples, beta)
    low, high = log_bisection(sufficient, low, high, rtol)
    return MatrixCalibration(high, low, "monte carlo", len(seen), 2 * beta * len(seen), samples, beta)
