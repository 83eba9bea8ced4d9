"""Correlated noise: DP-MF with banded Toeplitz C under balls-and-bins, cyclic Poisson, b-min-sep.

See docs/MATRIX.md. ``MatrixRun`` (validated run); ``certified_phases`` (reduction to the certified
face's Phase, or None); ``delta_estimates`` / ``sample_losses`` (Monte Carlo with confidence bounds);
``lower_bound_delta`` (certified lower bound, fixed balls-and-bins only); ``importance_estimate``
(importance sampling, remove direction, every Monte Carlo sampler); ``calibrate_matrix_sigma``.
"""

from dpsampling.lazy import lazy_attributes

_NAMES = {
    "MatrixCalibration": "dpsampling.accountants.matrix.bisection",
    "calibrate_matrix_sigma": "dpsampling.accountants.matrix.calibrate",
    "importance_estimate": "dpsampling.accountants.matrix.importance",
    "lower_bound_delta": "dpsampling.accountants.matrix.lower_bound",
    "delta_estimates": "dpsampling.accountants.matrix.montecarlo",
    "epsilon_estimate": "dpsampling.accountants.matrix.montecarlo",
    "sample_losses": "dpsampling.accountants.matrix.montecarlo",
    "certified_phases": "dpsampling.accountants.matrix.reduction",
    "effective_sigma": "dpsampling.accountants.matrix.reduction",
    "MATRIX_SAMPLERS": "dpsampling.accountants.matrix.run",
    "MatrixRun": "dpsampling.accountants.matrix.run",
}
"""Each public name and its module, imported at first use (the face imports ``matrix.face`` and
``matrix.run``; none of them may pull in the calibration, which imports the face)."""


__getattr__, __dir__ = lazy_attributes(__name__, {name: (module, name) for name, module in _NAMES.items()})

__all__ = sorted(_NAMES)
