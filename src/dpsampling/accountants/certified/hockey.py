"""Hockey-stick divergences of the engine's laws, with their rounding charged (``rounding``).

Upper law (mass p_k at g_k = exp(k h), exact-arithmetic law within relative rho): the exact
delta is sum_k p_k w_k with w_k = (g_k - e^eps)_+ (remove) or (1 - e^eps g_k)_+ (add). Each term
is computed as a difference of two exps of sums of logs; an exp of an argument with absolute
error e has relative error <= e + 2 U, so a term's error is at most t (both exps) with
t = 4 U (|log p| + |x| + |eps| + 2); a point whose computed log x is within 4 U (|x| + |eps|) of
the threshold may be on either side and is counted with its slack. The sum of n non-negative
terms adds gamma(n); dividing by 1 - rho bounds the exact law's sum.

Lower law (atoms of mass m and first moment M = m exp(lv), each within relative rho): the exact
term (M - c m)_+ (remove) or (m - c M)_+ (add), c = e^eps, is at least M^ / (1 + rho) - c m^ /
(1 - rho) (resp. m^ / (1 + rho) - c M^ / (1 - rho)) less the slack of computing it; the sum is
taken down by gamma(n).

Underflow (docs/PROOF.md M4, R3): an exp or product with a subnormal result loses up to 2^-1074 or
2^-1075 absolutely; the upper sum adds (4 n + 1) 2^-1074 before its factor, the lower subtracts
(5 n + 1) 2^-1074 before its factor (and stops at 0).
"""

from __future__ import annotations

import math

from numba import njit

U = 2.0**-53
TINY = 2.0**-1074  # the absolute loss of one operation whose result is subnormal (PROOF.md M4, R3)


@njit(cache=True)
def _gamma(n):
    return n * U / (1.0 - n * U)


@njit(cache=True)
def upper_delta(p, k0, h, epsilon, remove, rel_error):
    """A bound >= the exact-arithmetic law's sum_k p_k w_k (module docstring)."""
    total = 0.0
    count = 0
    for i in range(p.size):
        m = p[i]
        if m <= 0.0:
            continue
        x = (k0 + i) * h
        lm = math.log(m)
        side = 4.0 * U * (abs(x) + abs(epsilon) + 1.0)
        slack = 4.0 * U * (abs(lm) + abs(x) + abs(epsilon) + 2.0)
        if slack > 0.5:  # the underflow count below assumes it (|x| + |eps| < 2^49)
            raise FloatingPointError("upper_delta: an argument past the certified range")
        if remove:
            if x <= epsilon - side:
                continue
            big = math.exp(lm + x)
            small = math.exp(lm + epsilon)
            total += max(big - small, 0.0) + slack * (big + small)
        else:
            if x + epsilon >= side:
                continue
            small = math.exp(lm + epsilon + x)
            total += max(m - small, 0.0) + slack * (m + small)
        count += 1
    if count == 0:
        return 0.0
    # PROOF Lemma 13: underflow, 4 TINY per term and 1 for the last product and division (PROOF.md M4, R3)
    total += (4.0 * count + 1.0) * TINY
    # PROOF Lemma 13: the upper hockey stick (count + 4 roundings: PROOF.md section 5, F6)
    return total * (1.0 + _gamma(count + 6)) / (1.0 - rel_error)


@njit(cache=True)
def with_excess(upper, excess):
    """upper + excess rounded up: one rounding, covered by the factor 1 + 2 U (PROOF.md section 5, F7)."""
    return (upper + excess) * (1.0 + 2.0 * U)


@njit(cache=True)
def lower_delta(mass, log_value, epsilon, remove, rel_error):
    """A bound <= the exact-arithmetic lower law's sum of (M - c m)_+ or (m - c M)_+."""
    total = 0.0
    count = 0
    up = 1.0 / (1.0 + rel_error)
    down = 1.0 / (1.0 - rel_error)
    for i in range(mass.size):
        m = mass[i]
        if m <= 0.0:
            continue
        lm = math.log(m)
        lv = log_value[i]
        slack = 4.0 * U * (abs(lm) + abs(lv) + abs(epsilon) + 2.0)
        if slack > 0.5:  # the underflow count below assumes it
            raise FloatingPointError("lower_delta: an argument past the certified range")
        if remove:
            if lv <= epsilon:
                continue
            first = math.exp(lm + lv)
            scaled = math.exp(lm + epsilon)
            term = first * up - scaled * down - slack * (first + scaled)
        else:
            if lv + epsilon >= 0.0:
                continue
            scaled = math.exp(lm + epsilon + lv)
            term = m * up - scaled * down - slack * (m + scaled)
        if term > 0.0:
            total += term
            count += 1
    # PROOF Lemma 13: underflow, 5 TINY per term and 1 for the last product (PROOF.md M4, R3)
    total -= (5.0 * count + 1.0) * TINY
    if total <= 0.0:
        return 0.0
    # PROOF Lemma 13: the lower hockey stick (count + 1 roundings: PROOF.md section 5, F6)
    return total * (1.0 - _gamma(count + 2))


@njit(cache=True)
def epsilon_upper(p, k0, h, rel_error, excess, delta, remove):
    """The upper end of a bisection bracket (to ~1e-13) of the smallest eps >= 0 with
    upper_delta + excess <= delta: a value where it holds; inf where excess alone reaches delta."""
    if with_excess(upper_delta(p, k0, h, 0.0, remove, rel_error), excess) <= delta:
        return 0.0
    if excess >= delta:
        return math.inf
    hi = 1.0
    for i in range(p.size):
        if p[i] > 0.0:
            x = (k0 + i) * h
            hi = max(hi, (x if remove else -x) + 1.0)
    if with_excess(upper_delta(p, k0, h, hi, remove, rel_error), excess) > delta:
        return math.inf
    lo = 0.0
    for _ in range(200):
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
        mid = 0.5 * (lo + hi)
        if with_excess(upper_delta(p, k0, h, mid, remove, rel_error), excess) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


@njit(cache=True)
def epsilon_lower(mass, log_value, rel_error, delta, remove):
    """The lower end of a bisection bracket of the largest eps with lower_delta > delta (so the
    exact eps(delta) is above it), 0 if there is none."""
    if lower_delta(mass, log_value, 0.0, remove, rel_error) <= delta:
        return 0.0
    hi = 0.0
    for i in range(mass.size):
        if mass[i] > 0.0:
            hi = max(hi, log_value[i] if remove else -log_value[i])
    lo = 0.0
    for _ in range(200):
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
        mid = 0.5 * (lo + hi)
        if lower_delta(mass, log_value, mid, remove, rel_error) > delta:
            lo = mid
        else:
            hi = mid
    return lo
