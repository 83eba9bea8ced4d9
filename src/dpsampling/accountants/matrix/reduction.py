"""Certified reductions of a ``MatrixRun`` to the certified engine's ``Phase`` (docs/MATRIX.md).

``certified_phases(run)`` returns the list of phases whose composition dominates the run (to be
passed to ``Accountant``), or None when no certified reduction is known:

- cyclic Poisson with bands <= cycle length (Choquette-Choo et al. 2023, amplified banded MF): group
  0's pair, which dominates every group's (it has the most blocks, each cut least by the end of the
  run), is exactly the product of its blocks' Poisson-subsampled Gaussians: ceil(T / k) - 1 steps at
  noise multiplier sigma / ||c|| and the last block at sigma / ||c[:r]||, r = T - (ceil(T / k) - 1) k
  its rows inside the run (one phase of ceil(T / k) steps where r >= bands): an exact reduction, so
  its lower bounds hold for the run too;
- balls-and-bins with one coefficient: today's balls-and-bins DP-SGD run at sigma / c_0;
- fixed balls-and-bins with one coefficient and steps = E k: one epoch of balls-and-bins at
  sigma / (c_0 sqrt(E)) (the k shifts are orthogonal of norm c_0 sqrt(E): a rotation, exact);
- b-min-sep with min_separation 1 (that is Poisson sampling, one coefficient): Poisson at rate p.

With ``coefficients == [1]`` the phase is exactly today's DP-SGD phase (sigma / 1.0 == sigma). Every
noise multiplier sigma / s of a reduction is rounded down (``sigma_at_most``): a smaller sigma only
raises the upper bounds, and where sigma / s is a double it is that double, bit for bit.
"""

from __future__ import annotations

import math
from fractions import Fraction

from dpsampling.accountants.matrix.run import CYCLIC, EPOCH_BINS, FIXED_BINS, MatrixRun
from dpsampling.samplers import BALLS_AND_BINS, POISSON


def _phase(*args, **kwargs):
    from dpsampling.accountants.run import Phase

    return Phase(*args, **kwargs)


def sigma_at_most(sigma: float, squared_sensitivity: Fraction) -> float:
    """The double s = fl(sigma / sqrt(S)), stepped down until s^2 S <= sigma^2 holds in exact
    arithmetic (S the exact squared sensitivity): s <= sigma / sqrt(S), and equal to it where that
    is a double (the square root and the division round; no rounding may lower a noise multiplier
    the certified engine is given)."""
    s = sigma / math.sqrt(float(squared_sensitivity))
    while Fraction(s) ** 2 * squared_sensitivity > Fraction(sigma) ** 2:
        s = math.nextafter(s, 0.0)
    return s


def _squared_norm(coefficients) -> Fraction:
    return sum((Fraction(c) ** 2 for c in coefficients), Fraction(0))


def effective_sigma(run: MatrixRun) -> float:
    """sigma / ||c|| rounded down (``sigma_at_most``): the noise multiplier of one participation."""
    return sigma_at_most(run.sigma, _squared_norm(run.coefficients))


def certified_phases(run: MatrixRun) -> list | None:
    """The Phase(s) of the certified face that dominate ``run``, or None (use the Monte Carlo)."""
    if run.kind == CYCLIC:
        if run.bands > run.cycle_length:
            return None
        blocks = math.ceil(run.steps / run.cycle_length)
        inside = run.steps - (blocks - 1) * run.cycle_length  # the last block's rows inside the run
        if inside >= run.bands:
            return [_phase(POISSON.name, effective_sigma(run), sampling_rate=run.sampling_rate, steps=blocks)]
        last = _phase(POISSON.name, sigma_at_most(run.sigma, _squared_norm(run.coefficients[:inside])),
                      sampling_rate=run.sampling_rate, steps=1)
        if blocks == 1:
            return [last]
        return [_phase(POISSON.name, effective_sigma(run), sampling_rate=run.sampling_rate, steps=blocks - 1), last]
    if run.kind == EPOCH_BINS:
        if run.bands > 1:
            return None
        return [_phase(BALLS_AND_BINS.name, effective_sigma(run), steps=run.steps, steps_per_epoch=run.cycle_length)]
    if run.kind == FIXED_BINS:
        if run.bands > 1 or run.steps % run.cycle_length:
            return None
        epochs = run.steps // run.cycle_length
        sigma = sigma_at_most(run.sigma, Fraction(run.coefficients[0]) ** 2 * epochs)
        return [_phase(BALLS_AND_BINS.name, sigma, steps=run.cycle_length, steps_per_epoch=run.cycle_length)]
    if run.min_separation == 1:  # b_min_sep; bands <= min_separation = 1
        return [_phase(POISSON.name, effective_sigma(run), sampling_rate=run.sampling_rate, steps=run.steps)]
    return None
