"""Trying to break the certificate against exact references (mpmath), both directions.

- The Gaussian mechanism composed up to 1e7 times: its closed form (the engine answers it so)
  against mpmath's.
- Poisson at rate q = 1 - 1e-9, T up to 1e7 (the composed engine, not the closed form): its truth
  lies between exact bounds from the Gaussian of the same sigma (P^T >= q^T A^T, A the Gaussian's
  law, and domination by the Gaussian), within ~T (1 - q) of it.
- Poisson subsampled Gaussian, T = 1-2 steps: the exact hockey-stick divergence by mpmath
  quadrature (the last step's integral in closed form, the first by mpmath.quad), at deltas down
  to 1e-15; the certified [lower, upper] must contain it.
- T = 3 steps, three (sigma, q) settings down to sigma 0.3 at q 0.9 (eps up to ~61): an independent
  reference (closed forms and a nested quadrature with the kinks at the ends, its own error measured
  by two rules and checked against mpmath at T = 2) must lie inside the certified brackets, both
  directions, deltas 1e-3 .. 1e-15; a 1% change of sigma must fall outside the converged ones.
- Balls-and-bins, one epoch of 3 steps (sigma 1 and 0.6): the same quadrature on its dominating pair,
  checked against the Gaussian at T = 1 and mpmath at T = 2; the same containment checks.
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


# ---- T = 3: an independent reference by nested quadrature with the hockey-stick's kinks at the ends ----
#
# One step's ratio L(x) = (1 - q) + q exp((2 x - 1) / (2 s^2)) (x ~ Q = N(0, s^2)) is increasing in x
# with L > 1 - q. With c = e^eps and m = log(1 - q), the remove divergence of k steps given the
# others' log ratio ll is G_k(ll) = E[(e^ll L_1 ... L_k - c)_+], the add one A_k(ll) = E[(1 - c e^ll
# L_1 ... L_k)_+]; the T-step deltas are G_T(0) and A_T(0). G_k(ll) = e^ll - c exactly where
# ll >= eps - k m (every product is >= c), and A_k(ll) = 0 where ll >= -eps - k m. So
#   G_k(ll) = int_{x*}^inf (e^ll L(x) - c) phi + int_{-inf}^{x*} G_{k-1}(ll + log L(x)) phi(x) dx,
# x* the point where ll + log L(x*) = eps - (k - 1) m: the first part in closed form,
# e^ll q gap(z - 1/s, z) + c expm1(-(k - 1) m) Phi_bar(z) (z = x*/s, gap(w1, w2) = Phi_bar(w1) -
# e^{(w2^2 - w1^2)/2} Phi_bar(w2) >= 0, every term non-negative), and the second numerically; the add
# one is the second part alone (x* where ll + log L(x*) = -eps - (k - 1) m). G_1 and A_1 are closed
# forms. The functions integrated are smooth but not analytic at x* (G_{k-1}'s kink runs off to
# x = -inf there), which makes a quadrature in x converge slowly; x = x* - e^v makes the integrand
# analytic in v and decay doubly exponentially, and the trapezoid rule in v converges geometrically.
# The reference's error is measured, not assumed: two rules (steps 0.05 and 0.035 in v, cut at e^-80
# and e^-90) agree to REFERENCE_TOLERANCE on every value the test uses, and at T = 2 it matches
# mpmath's quadrature at 25 digits (exact_delta above). It uses no code of the engine.

REFERENCE_TOLERANCE = 1e-9  # relative; the narrowest delta bracket checked here is ~8e-8 wide (sigma 0.3,
# q 0.9, remove, delta ~0.8); measured, the two rules agree to 1.1e-10 (Poisson) and 8e-14 (balls-and-bins)


def _log_ratio(x, q, s):
    return np.logaddexp(math.log1p(-q), math.log(q) + (2 * x - 1) / (2 * s * s))


def _inverse_log_ratio(w, q, s):
    """x with log L(x) = w, -inf where w <= log(1 - q) (no such x)."""
    m = math.log1p(-q)
    with np.errstate(divide="ignore"):
        return np.where(w > m, s * s * np.log((1 - q) * np.expm1(np.maximum(w - m, 0.0)) / q) + 0.5, -np.inf)


def _gap(w1, w2):
    """Phi_bar(w1) - exp((w2^2 - w1^2) / 2) Phi_bar(w2) for w2 > w1, without cancellation for w1 >= 0
    (as phi(w1) times a difference of Mills ratios, erfcx); for w1 < 0 the first term is >= 1/2 and
    the second at most a fixed fraction of it."""
    from scipy.special import erfcx, log_ndtr, ndtr

    w1, w2 = np.broadcast_arrays(np.asarray(w1, float), np.asarray(w2, float))
    out = np.empty(w1.shape)
    pos = w1 >= 0
    out[pos] = np.exp(-w1[pos] ** 2 / 2) / 2 * (erfcx(w1[pos] / math.sqrt(2)) - erfcx(w2[pos] / math.sqrt(2)))
    neg = ~pos
    out[neg] = ndtr(-w1[neg]) - np.exp((w2[neg] ** 2 - w1[neg] ** 2) / 2 + log_ndtr(-w2[neg]))
    return out


def _divergence(k, ll, eps, q, s, remove, hv, vmin):
    """G_k(ll) (remove) or A_k(ll) (add) for an array of ll (see above)."""
    from scipy.special import ndtr

    m = math.log1p(-q)
    ll = np.asarray(ll, float)
    xs = _inverse_log_ratio((eps if remove else -eps) - (k - 1) * m - ll, q, s)
    left = np.isfinite(xs)
    z = np.where(left, xs / s, 0.0)
    if remove:
        cut = 0.0 if k == 1 else math.exp(eps) * math.expm1(-(k - 1) * m)
        out = np.where(left, np.exp(ll + math.log(q)) * _gap(z - 1 / s, z) + cut * ndtr(-z),
                       math.exp(eps) * np.expm1(np.maximum(ll - eps, 0.0)))
    elif k == 1:  # c e^ll q e^a gap(-z, 1/s - z), a = (2 x* - 1) / (2 s^2): the region x < x*
        a = np.where(left, (2 * z * s - 1) / (2 * s * s), 0.0)
        out = np.where(left, np.exp(eps + ll + math.log(q) + a) * _gap(-z, 1 / s - z), 0.0)
    else:
        out = np.zeros(ll.shape)
    if k == 1 or not left.any():
        return out
    top = float(np.max(xs[left])) + 16 * s + 2  # the nodes reach x* - e^v <= -16 s - 2 for every x*
    v = np.arange(vmin, math.log(max(top, 1.0)) + hv, hv)
    ev = np.exp(v)
    flat, index = out.reshape(-1), np.nonzero(left.reshape(-1))[0]
    for start in range(0, index.size, 64):
        rows = index[start:start + 64]
        x = xs.reshape(-1)[rows, None] - ev
        weights = hv * ev * np.exp(-(x / s) ** 2 / 2) / (s * math.sqrt(2 * math.pi))
        inner = _divergence(k - 1, ll.reshape(-1)[rows, None] + _log_ratio(x, q, s), eps, q, s, remove, hv, vmin)
        flat[rows] += np.sum(weights * inner, axis=-1)
    return out


def reference_delta(eps, q, sigma, steps, remove):
    """The T-step subsampled Gaussian's delta(eps) by two quadrature rules, asserted to agree to
    REFERENCE_TOLERANCE (the reference's own error, measured)."""
    values = [float(_divergence(steps, np.zeros(1), float(eps), q, sigma, remove, hv, vmin)[0])
              for hv, vmin in ((0.05, -80.0), (0.035, -90.0))]
    assert abs(values[0] - values[1]) <= REFERENCE_TOLERANCE * max(values), (eps, q, sigma, steps, remove, values)
    return values[0]


@pytest.mark.parametrize("sigma, q, eps, remove", [(1.0, 0.1, 0.2, True), (1.0, 0.1, 4.0, True),
                                                    (1.0, 0.1, 0.05, False), (0.5, 0.5, 1.0, True),
                                                    (0.5, 0.5, 0.5, False), (0.5, 0.5, 1.0, False)])
def test_the_t3_reference_matches_mpmath_at_two_steps(sigma, q, eps, remove):
    """The reference's recursion at T = 2 against mpmath's quadrature (25 digits, split at the
    kink): within 1e-12 relatively."""
    mpmath.mp.dps = 25
    qq, s = mpmath.mpf(q), mpmath.mpf(sigma)
    kink = float(_inverse_log_ratio(np.array((eps if remove else -eps) - math.log1p(-q)), q, sigma))
    points = sorted({*np.linspace(-16 * sigma, 1 + 16 * sigma, 40).tolist(), *([kink] if math.isfinite(kink) else [])})
    exact = mpmath.quad(lambda x: mpmath.npdf(x, 0, s) * _last_step((1 - qq) + qq * mpmath.exp((2 * x - 1) / (2 * s**2)),
                                                                     eps, qq, s, remove), [mpmath.mpf(p) for p in points])
    assert abs(reference_delta(eps, q, sigma, 2, remove) - float(exact)) <= 1e-12 * float(exact)


THREE_STEPS = [(1.0, 0.1), (0.7, 0.5), (0.3, 0.9)]  # the last: small sigma, large q (eps up to ~61)


def _check_three_steps(accountant, reference, least):
    """The checks of the T = 3 tests. ``reference(eps, scale, remove)``: the exact delta of the
    accountant's mechanism with sigma times ``scale``; ``least``: how many converged brackets per
    direction the perturbed mechanisms must be checked against.

    Deltas 1e-3, 1e-9, 1e-15, remove and add: the exact delta at the certified eps_upper is <= delta
    and at eps_lower >= delta (so the exact eps(delta) is inside), and the certified delta bracket at
    each of those eps contains the exact delta. The check can fail: the same mechanism with sigma 1%
    smaller (larger) has a delta above (below) every converged bracket."""
    deltas = [1e-3, 1e-9, 1e-15]
    frame = accountant.epsilon_bounds(deltas)
    tol = REFERENCE_TOLERANCE
    queries = {"remove": set(), "add": set()}
    for delta in deltas:
        for direction in ("remove", "add"):
            lower, upper = frame[(frame.delta == delta) & (frame.direction == direction)][
                ["epsilon_lower", "epsilon_upper"]].iloc[0]
            remove = direction == "remove"
            assert np.isfinite(upper) and lower > 0, (delta, direction, lower, upper)
            assert reference(upper, 1.0, remove) <= delta * (1 + tol), (delta, direction, upper)
            assert reference(lower, 1.0, remove) >= delta * (1 - tol), (delta, direction, lower)
            queries[direction] |= {float(lower), float(upper)}
    perturbed = {"remove": 0, "add": 0}
    for direction, epsilons in queries.items():
        remove = direction == "remove"
        rows = accountant.delta_bounds(sorted(epsilons))
        for eps in sorted(epsilons):
            row = rows[(rows.epsilon == eps) & (rows.direction == direction)].iloc[0]
            lower, upper = row.delta_lower, row.delta_upper
            exact = reference(eps, 1.0, remove)
            assert lower <= exact * (1 + tol) and exact <= upper * (1 + tol), (eps, direction, lower, exact, upper)
            if exact > 0 and bool(row.converged):
                assert reference(eps, 0.99, remove) > upper, (eps, direction, upper)
                assert reference(eps, 1.01, remove) < lower, (eps, direction, lower)
                perturbed[direction] += 1
    for direction, count in least.items():
        assert perturbed[direction] >= count, perturbed


@pytest.mark.parametrize("sigma, q", THREE_STEPS)
def test_three_steps_against_the_reference_both_directions(sigma, q):
    """T = 3 at accuracy 0.01: ``_check_three_steps`` against ``reference_delta`` (the perturbed
    mechanisms: gap <= 0.01; near the add direction's largest loss, 3 log(1 / (1 - q)), and at delta
    1e-15 the delta brackets are wider, so add needs one converged bracket only)."""
    accountant = Accountant(Phase("poisson", sigma, sampling_rate=q, steps=3), accuracy=0.01)
    _check_three_steps(accountant, lambda eps, scale, remove: reference_delta(eps, q, scale * sigma, 3, remove),
                       {"remove": 2, "add": 1})


# ---- balls-and-bins, one epoch of T = 3 steps: the same quadrature on the dominating pair ----
#
# P = (1/T) sum_t N(e_t, s^2 I) vs Q = N(0, s^2 I) (certified.ballsbins): dP/dQ = w sum_t Y_t, w = 1/T,
# Y(x) = exp((2 x - 1) / (2 s^2)) increasing, E_Q Y = 1. With a = w (the Y's integrated so far), the
# remove divergence of k coordinates left is B_k(a) = E[(a + w Y_1 + ... + w Y_k - c)_+] = a + k w - c
# where a >= c, else, x* the point with a + w Y(x*) = c, z = x*/s,
#   B_k(a) = w ((k - 1) Phi_bar(z) + gap(z - 1/s, z)) + int_{-inf}^{x*} B_{k-1}(a + w Y(x)) phi(x) dx;
# the add one C_k(a) = E[(1 - c a - c w (Y_1 + ... + Y_k))_+] is 0 where c a >= 1, else (x* with
# c (a + w Y(x*)) = 1) C_1(a) = (1 - c a) gap(-z, 1/s - z) and C_k the left integral alone.


def _ballsbins_divergence(k, a, eps, w, s, remove, hv, vmin):
    from scipy.special import ndtr

    a = np.asarray(a, float)
    c = math.exp(eps)
    left = a < c if remove else c * a < 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        gap_left = (c - a) / w if remove else (1.0 - c * a) / (c * w)
        xs = np.where(left, s * s * np.log(np.where(left, gap_left, 1.0)) + 0.5, -np.inf)
    z = np.where(left, xs / s, 0.0)
    if remove:
        out = np.where(left, w * ((k - 1) * ndtr(-z) + _gap(z - 1 / s, z)), a + k * w - c)
    elif k == 1:
        out = np.where(left, (1.0 - c * a) * _gap(-z, 1 / s - z), 0.0)
    else:
        out = np.zeros(a.shape)
    if k == 1 or not left.any():
        return out
    top = float(np.max(xs[left])) + 16 * s + 2
    v = np.arange(vmin, math.log(max(top, 1.0)) + hv, hv)
    ev = np.exp(v)
    flat, index = out.reshape(-1), np.nonzero(left.reshape(-1))[0]
    for start in range(0, index.size, 64):
        rows = index[start:start + 64]
        x = xs.reshape(-1)[rows, None] - ev
        weights = hv * ev * np.exp(-(x / s) ** 2 / 2) / (s * math.sqrt(2 * math.pi))
        inner = _ballsbins_divergence(k - 1, a.reshape(-1)[rows, None] + w * np.exp((2 * x - 1) / (2 * s * s)),
                                      eps, w, s, remove, hv, vmin)
        flat[rows] += np.sum(weights * inner, axis=-1)
    return out


def ballsbins_reference(eps, sigma, steps, remove):
    """One epoch of ``steps`` balls-and-bins steps: delta(eps) by two rules, asserted to agree."""
    values = [float(_ballsbins_divergence(steps, np.zeros(1), float(eps), 1.0 / steps, sigma, remove, hv, vmin)[0])
              for hv, vmin in ((0.05, -80.0), (0.035, -90.0))]
    assert abs(values[0] - values[1]) <= REFERENCE_TOLERANCE * max(values), (eps, sigma, steps, remove, values)
    return values[0]


def _ballsbins_two_steps_mpmath(eps, sigma, remove):
    """T = 2 by mpmath: quad over x1, the x2 integral in closed form (Q = N(0, s^2), w = 1/2)."""
    s, c, w = mpmath.mpf(sigma), mpmath.exp(eps), mpmath.mpf(1) / 2

    def inner(a):
        if remove:
            if a >= c:
                return a + w - c
            t = s**2 * mpmath.log((c - a) / w) + mpmath.mpf(1) / 2
            return w * mpmath.ncdf(-(t - 1) / s) - (c - a) * mpmath.ncdf(-t / s)
        if c * a >= 1:
            return mpmath.mpf(0)
        t = s**2 * mpmath.log((1 - c * a) / (c * w)) + mpmath.mpf(1) / 2
        return (1 - c * a) * mpmath.ncdf(t / s) - c * w * mpmath.ncdf((t - 1) / s)

    kink = s**2 * mpmath.log((c if remove else 1 / c) / w) + mpmath.mpf(1) / 2
    points = sorted({*[mpmath.mpf(p) for p in np.linspace(-16 * sigma, 1 + 16 * sigma, 40)], kink})
    return mpmath.quad(lambda x: mpmath.npdf(x, 0, s) * inner(w * mpmath.exp((2 * x - 1) / (2 * s**2))), points)


@pytest.mark.parametrize("sigma, eps, remove", [(1.0, 0.5, True), (1.0, 3.0, True), (0.6, 6.0, True),
                                                 (1.0, 0.5, False), (0.6, 2.0, False), (0.6, 5.0, False)])
def test_the_ballsbins_reference_matches_mpmath_at_one_and_two_steps(sigma, eps, remove):
    """One step is the Gaussian mechanism of sensitivity 1 (gaussian_delta); two steps against mpmath
    quadrature at 25 digits: both within 1e-12 relatively."""
    mpmath.mp.dps = 25
    one = float(gaussian_delta(eps, 1 / sigma))
    assert abs(ballsbins_reference(eps, sigma, 1, remove) - one) <= 1e-12 * one
    two = float(_ballsbins_two_steps_mpmath(eps, sigma, remove))
    assert abs(ballsbins_reference(eps, sigma, 2, remove) - two) <= 1e-12 * two


@pytest.mark.parametrize("sigma", [1.0, 0.6])
def test_ballsbins_three_steps_against_the_reference_both_directions(sigma):
    """One epoch of 3 steps at accuracy 0.01: ``_check_three_steps`` against ``ballsbins_reference``
    (at least two converged brackets per direction checked against sigma 1% smaller and larger)."""
    accountant = Accountant(Phase("balls_and_bins", sigma, steps_per_epoch=3, epochs=1), accuracy=0.01)
    _check_three_steps(accountant, lambda eps, scale, remove: ballsbins_reference(eps, scale * sigma, 3, remove),
                       {"remove": 2, "add": 2})
