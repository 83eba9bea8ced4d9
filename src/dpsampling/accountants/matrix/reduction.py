"""Certified reductions of a ``MatrixRun`` to the certified engine's ``Phase`` (docs/MATRIX.md).

``certified_phases(run)`` returns the list of phases whose composition dominates the run (to be
passed to ``Accountant``), or None when no certified reduction is known:

- cyclic Poisson with bands <= cycle length (Choquette-Choo et al. 2023, amplified banded MF):
  ceil(T / k) Poisson-subsampled Gaussian steps at noise multiplier sigma / ||c||, rate q;
- balls-and-bins with one coefficient: today's balls-and-bins DP-SGD run at sigma / c_0;
- fixed balls-and-bins with one coefficient and steps = E k: one epoch of balls-and-bins at
  sigma / (c_0 sqrt(E)) (the k shifts are orthogonal of norm c_0 sqrt(E): a rotation, exact);
- b-min-sep with min_separation 1 (that is Poisson sampling, one coefficient): Poisson at rate p.

With ``coefficients == [1]`` the phase is exactly today's DP-SGD phase (sigma / 1.0 == sigma).
"""

from __future__ import annotations

import math

from dpsampling.accountants.matrix.run import CYCLIC, EPOCH_BINS, FIXED_BINS, MatrixRun


def _phase(*args, **kwargs):
    from dpsampling.accountants.run import Phase

    return Phase(*args, **kwargs)


def effective_sigma(run: MatrixRun) -> float:
    """sigma / ||c||: the noise multiplier of one participation (sigma itself when ||c|| == 1)."""
    norm = run.column_norm
    return run.sigma if norm == 1.0 else run.sigma / norm


def certified_phases(run: MatrixRun) -> list | None:
    """The Phase(s) of the certified face that dominate ``run``, or None (use the Monte Carlo)."""
    if run.kind == CYCLIC:
        if run.bands > run.cycle_length:
            return None
        return [_phase("poisson", effective_sigma(run), sampling_rate=run.sampling_rate,
                       steps=math.ceil(run.steps / run.cycle_length))]
    if run.kind == EPOCH_BINS:
        if run.bands > 1:
            return None
        return [_phase("balls_and_bins", effective_sigma(run), steps=run.steps, steps_per_epoch=run.cycle_length)]
    if run.kind == FIXED_BINS:
        if run.bands > 1 or run.steps % run.cycle_length:
            return None
        epochs = run.steps // run.cycle_length
        sigma = effective_sigma(run) if epochs == 1 else run.sigma / (run.coefficients[0] * math.sqrt(epochs))
        return [_phase("balls_and_bins", sigma, steps=run.cycle_length, steps_per_epoch=run.cycle_length)]
    if run.min_separation == 1:  # b_min_sep; bands <= min_separation = 1
        return [_phase("poisson", effective_sigma(run), sampling_rate=run.sampling_rate, steps=run.steps)]
    return None
