"""Correlated noise: DP-MF with banded Toeplitz C under balls-and-bins, cyclic Poisson, b-min-sep.

See docs/MATRIX.md. ``MatrixRun`` (validated run); ``certified_phases`` (reduction to the certified
face's Phase, or None); ``delta_estimates`` / ``sample_losses`` (Monte Carlo with confidence bounds);
``lower_bound_delta`` (certified lower bound, fixed balls-and-bins only); ``importance_estimate``
(importance sampling, fixed balls-and-bins, remove); ``calibrate_matrix_sigma``.
"""

from dpsampling.accountants.matrix.calibrate import MatrixCalibration, calibrate_matrix_sigma
from dpsampling.accountants.matrix.importance import importance_estimate
from dpsampling.accountants.matrix.lower_bound import lower_bound_delta
from dpsampling.accountants.matrix.montecarlo import delta_estimates, epsilon_estimate, sample_losses
from dpsampling.accountants.matrix.reduction import certified_phases, effective_sigma
from dpsampling.accountants.matrix.run import MATRIX_SAMPLERS, MatrixRun

__all__ = ["MATRIX_SAMPLERS", "MatrixCalibration", "MatrixRun", "calibrate_matrix_sigma", "certified_phases",
           "delta_estimates", "effective_sigma", "epsilon_estimate", "importance_estimate", "lower_bound_delta",
           "sample_losses"]
