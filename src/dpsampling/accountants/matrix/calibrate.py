"""Calibrate sigma of a ``MatrixRun`` for a target (eps, delta).

- With a certified reduction (``certified_phases``): the project's ``calibrate_sigma`` on the
  phase, its sigma mapped back (the phase's sigma is the run's divided by a constant: ||c||, or
  c_0 sqrt(E) for fixed bins). method "certified".
- Otherwise: bisection in log sigma on the Monte Carlo upper bound of the ``max`` row at the target
  eps, with the same seed at every sigma (common random numbers). method "monte carlo". The sigma
  returned had upper bound <= delta; all N evaluated upper bounds hold together with probability
  >= 1 - 2 beta N (union bound), so the returned sigma is (eps, delta)-DP with at least that
  probability (``error_probability``). The jax-privacy / Dong & Ganesh 2026 App. A tighter
  selection rule is not used.
"""

from __future__ import annotations

from dpsampling.accountants.matrix.bisection import MatrixCalibration, monte_carlo_sigma
from dpsampling.accountants.matrix.reduction import certified_phases
from dpsampling.accountants.matrix.run import MatrixRun
from dpsampling.validation import check_int_at_least, check_open_unit, check_positive


def calibrate_matrix_sigma(run: MatrixRun, target_epsilon: float, delta: float, *, samples: int = 100_000,
                           beta: float = 1e-3, seed: int = 0, rtol: float = 1e-2, **certified_options
                           ) -> MatrixCalibration:
    """The smallest sigma shown sufficient for (target_epsilon, delta) (module docstring). The run's
    own sigma is the Monte Carlo bisection's start; ``certified_options`` go to ``calibrate_sigma``."""
    if not isinstance(run, MatrixRun):
        raise ValueError(f"run must be a MatrixRun; got {type(run).__name__}")
    target = check_positive("target_epsilon", target_epsilon)
    delta = check_open_unit("delta", delta)
    rtol = check_open_unit("rtol", rtol)
    phases = certified_phases(run)
    if phases is not None:
        from dpsampling.accountants.calibrate import calibrate_sigma

        factor = run.sigma / phases[0].sigma
        answer = calibrate_sigma(phases, target, delta, rtol=rtol, **certified_options)
        return MatrixCalibration(answer.sigma * factor, answer.sigma_not_shown_sufficient * factor, "certified",
                                 answer.evaluations, 0.0)
    samples = check_int_at_least("samples", samples, 1)
    beta = check_open_unit("beta", beta)
    return monte_carlo_sigma(run, target, delta, samples, beta, seed, rtol)
