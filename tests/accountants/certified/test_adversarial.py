"""Trying to break the certificate against exact references (mpmath), both directions.

- The Gaussian mechanism composed up to 1e7 times: its closed form (the engine answers it so)
  against mpmath's.
- Poisson at rate q = 1 - 1e-9, T up to 1e7 (the composed engine, not the closed form): its truth
  lies between exact bounds from the Gaussian of the same sigma (P^T >= q^T A^T, A the Gaussian's
  law, and domination by the Gaussian), within ~T (1 - q) of it.
- Poisson subsampled Gaussian, T = 1-2 steps: the exact hockey-stick divergence by mpmath
  quadrature (the last step's integral in closed form, the first by mpmath.quad), at deltas down
  to 1e-15; the certified [lower, upper] must contain it. (T = 3, a 2-D mpmath quadrature, takes
  minutes: not here.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsampling import Accountant, Phase
from dpsampling.accountants.frames import Refused

mpmath = pytest.importorskip("mpmath")
DPS = 30


def gaussian_delta(eps, mu):
    """delta(eps) of N(mu, 1) vs N(0, 1), either direction (the pair is symmetric), in mpmath."""
    eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _rows(frame, quantity):
    return {row.direction: (getattr(row, f"{quantity}_lower"), getattr(row, f"{quantity}_upper"))
            for row in frame.itertuples()}


@pytest.mark.parametrize("steps", [1, 10**3, 10**5, 10**7])
def test_the_gaussian_mechanism_composed_matches_its_exact_closed_form(steps):
    """T-fold Gaussian mechanism (deterministic batches, T epochs: each example in one batch per
    epoch, so T Gaussian mechanisms) = one Gaussian
    mechanism of sensitivity sqrt(T) / sigma: the engine's closed form within 1e-12 (relative, or
    1e-25 absolute) of mpmath's at 30 digits, in both directions."""
    mpmath.mp.dps = DPS
    sigma = math.sqrt(steps) / 1.3
    epsilons = [0.1, 1.0, 3.0, 8.0]
    frame = Accountant(Phase("deterministic", sigma, steps_per_epoch=1, epochs=steps)).delta_bounds(epsilons)
    for eps in epsilons:
        exact = float(gaussian_delta(eps, math.sqrt(steps) / sigma))
        for direction in ("remove", "add"):
            lower, upper = frame[(frame.epsilon == eps) & (frame.direction == direction)][
                ["delta_lower", "delta_upper"]].iloc[0]
            assert abs(lower - exact) <= 1e-12 * exact + 1e-25 and abs(upper - exact) <= 1e-12 * exact + 1e-25


@pytest.mark.parametrize("steps", [1, 10**3, 10**5, 10**7])
def test_poisson_at_rate_one_minus_1e9_against_the_gaussians_exact_bounds(steps):
    """Poisson at q = 1 - 1e-9, sigma = sqrt(T) (mu = 1): the truth d satisfies, with a = -T log q,
    remove: q^T d_G(eps + a) <= d <= d_G(eps); add: d_G(eps - a) - e^eps (1 - q^T) <= d <= d_G(eps)
    (P^T >= q^T A^T and P^T <= q^T A^T + 1 - q^T setwise; Poisson is dominated by the Gaussian).
    Certified lower <= d_G(eps) and upper >= the exact lower end, both directions."""
    mpmath.mp.dps = DPS
    q = 1.0 - 1e-9
    sigma = math.sqrt(steps)
    epsilons = [0.5, 2.0, 5.0]
    rows = Accountant(Phase("poisson", sigma, sampling_rate=q, steps=steps)).delta_bounds(epsilons)
    log_q = mpmath.log1p(-mpmath.mpf(10) ** -9)
    a, q_t = -steps * log_q, mpmath.exp(steps * log_q)
    for eps in epsilons:
        gaussian = gaussian_delta(eps, 1.0)
        truth_low = {"remove": q_t * gaussian_delta(eps + a, 1.0),
                     "add": gaussian_delta(eps - a, 1.0) - mpmath.exp(eps) * (1 - q_t)}
        at = rows[rows.epsilon == eps]
        for direction in ("remove", "add"):
            lower, upper = at[at.direction == direction][["delta_lower", "delta_upper"]].iloc[0]
            assert lower <= float(gaussian) * (1 + 1e-15), (steps, eps, direction, lower, float(gaussian))
            assert upper >= float(truth_low[direction]), (steps, eps, direction, upper, float(truth_low[direction]))


def _threshold(c, q, s):
    """t with (1 - q) + q exp((2 t - 1) / (2 s^2)) = c, -inf if c <= 1 - q."""
    if c <= 1 - q:
        return -mpmath.inf
    return s**2 * mpmath.log((c - (1 - q)) / q) + mpmath.mpf(1) / 2


def _last_step(l_rest, eps, q, s, remove):
    """The last step's integral in closed form, given the product l_rest of the others' ratios:
    remove E_Q[(l_rest L - e^eps)_+], add E_Q[(1 - e^eps l_rest L)_+], L = dP/dQ of one step
    (P = (1 - q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2)), increasing in x."""
    if remove:
        t = _threshold(mpmath.exp(eps) / l_rest, q, s)
        return (l_rest * ((1 - q) * mpmath.ncdf(-t / s) + q * mpmath.ncdf(-(t - 1) / s))
                - mpmath.exp(eps) * mpmath.ncdf(-t / s))
    t = _threshold(mpmath.exp(-eps) / l_rest, q, s)
    if t == -mpmath.inf:
        return mpmath.mpf(0)
    return mpmath.ncdf(t / s) - mpmath.exp(eps) * l_rest * ((1 - q) * mpmath.ncdf(t / s) + q * mpmath.ncdf((t - 1) / s))


def exact_delta(eps, q, sigma, steps, remove):
    """The T-step subsampled Gaussian's delta(eps) (T <= 2): mpmath.quad over the first step
    (Q = N(0, s^2)), the last in closed form."""
    q, s = mpmath.mpf(q), mpmath.mpf(sigma)

    def ratio(x):
        return (1 - q) + q * mpmath.exp((2 * x - 1) / (2 * s**2))

    def density(x):
        return mpmath.npdf(x, 0, s)

    span = [-14 * s, -4 * s, 0, mpmath.mpf(1) / 2, 1, 1 + 4 * s, 1 + 14 * s]
    if steps == 1:
        return _last_step(mpmath.mpf(1), eps, q, s, remove)
    assert steps == 2
    return mpmath.quad(lambda x: density(x) * _last_step(ratio(x), eps, q, s, remove), span)


CASES = [(1, 1.0, 0.1), (2, 1.0, 0.1), (1, 0.7, 0.5), (2, 0.7, 0.5)]


@pytest.mark.parametrize("steps, sigma, q", CASES)
def test_few_steps_against_mpmath_quadrature_both_directions(steps, sigma, q):
    """T = 1-2, deltas 1e-3, 1e-9, 1e-15 (eps queries; a delta below the proven floor may be refused,
    not answered wrongly): eps_lower <= eps <= eps_upper, i.e. delta_exact(eps_upper) <= delta <=
    delta_exact(eps_lower) (delta decreasing in eps); delta queries at the certified eps values:
    delta_lower <= delta_exact <= delta_upper. Remove and add."""
    mpmath.mp.dps = 20
    deltas = [1e-3, 1e-9, 1e-15]
    accountant = Accountant(Phase("poisson", sigma, sampling_rate=q, steps=steps))
    try:
        frame = accountant.epsilon_bounds(deltas)
    except Refused:
        deltas = deltas[:-1]
        frame = accountant.epsilon_bounds(deltas)
    eps_queries = set()
    for delta in deltas:
        for direction in ("remove", "add"):
            lower, upper = frame[(frame.delta == delta) & (frame.direction == direction)][
                ["epsilon_lower", "epsilon_upper"]].iloc[0]
            remove = direction == "remove"
            if np.isfinite(upper):
                assert exact_delta(upper, q, sigma, steps, remove) <= delta * (1 + 1e-12), (delta, direction, upper)
            if lower > 0:
                assert exact_delta(lower, q, sigma, steps, remove) >= delta * (1 - 1e-12), (delta, direction, lower)
            eps_queries.add(round(float(lower), 6))
    epsilons = sorted(eps_queries)
    rows = accountant.delta_bounds(epsilons)
    for eps in epsilons:
        for direction in ("remove", "add"):
            lower, upper = rows[(rows.epsilon == eps) & (rows.direction == direction)][
                ["delta_lower", "delta_upper"]].iloc[0]
            exact = exact_delta(eps, q, sigma, steps, direction == "remove")
            assert lower <= exact * (1 + 1e-12) and exact <= upper * (1 + 1e-12), (eps, direction, lower, exact, upper)
