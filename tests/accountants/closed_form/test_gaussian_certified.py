"""The Gaussian mechanism's certified bracket (docs/PROOF.md Lemma 16) against mpmath at 60 digits:
lower <= exact <= upper for delta(eps) and eps(delta), over sigma from 0.05 to 50, eps from 0 to
1e4 (deltas down to e^-10^5, far below the doubles) and deltas down to 1e-300; and log_ndtr within
assumption B's bound down to z = -1e5. Deterministic: no false-failure probability."""

import math

import mpmath
import numpy as np
import pytest

from dpsampling.accountants.closed_form import gaussian

mpmath.mp.dps = 60


def _exact_delta(eps, sigma, s):
    eps, sigma, s = mpmath.mpf(eps), mpmath.mpf(sigma), mpmath.mpf(s)
    r = s / sigma
    return mpmath.ncdf(r / 2 - eps / r) - mpmath.exp(eps) * mpmath.ncdf(-r / 2 - eps / r)


@pytest.mark.parametrize("sigma", [0.05, 0.3, 1.0, 4.0, 50.0])
def test_delta_bracket_holds_the_exact_value(sigma):
    for eps in [0.0, 1e-9, 0.01, 0.5, 1.0, 3.0, 10.0, 40.0, 200.0, 1e3, 1e4]:
        lower, upper = gaussian.gaussian_delta_bounds(eps, sigma, 1.0)
        exact = _exact_delta(eps, sigma, 1.0)
        assert mpmath.mpf(float(lower)) <= exact <= mpmath.mpf(float(upper)), (sigma, eps)
        if exact > 1e-290:  # not vacuous where the doubles hold the value
            assert float(upper) - float(lower) <= 1e-6 * float(exact)


@pytest.mark.parametrize(("delta", "sigma"), [(1e-5, 1.0), (1e-15, 0.05), (1e-300, 0.5), (0.3, 2.0), (1e-10, 30.0)])
def test_epsilon_bracket_holds_the_exact_value(delta, sigma):
    lower, upper = gaussian.gaussian_epsilon_bounds(delta, sigma, 1.0)
    assert 0.0 <= lower <= upper
    assert _exact_delta(upper, sigma, 1.0) <= delta  # upper meets delta: the exact eps is below it
    assert lower == 0.0 or _exact_delta(lower, sigma, 1.0) > delta
    assert upper - lower <= 1e-6 * max(upper, 1e-12)


def test_log_ndtr_within_assumption_b():
    for z in np.concatenate([-np.logspace(-3, 5, 200), np.linspace(-40, 8, 200)]):
        exact = mpmath.log(mpmath.ncdf(mpmath.mpf(float(z))))
        computed = mpmath.mpf(float(gaussian.special.log_ndtr(z)))
        assert abs(computed - exact) <= gaussian.LOG_NDTR_ABSOLUTE + gaussian.LOG_NDTR_RELATIVE * abs(exact), z


def test_the_engines_gaussian_rows_are_a_bracket():
    """A run that is one Gaussian mechanism: lower <= exact <= upper in every row (no longer lower =
    upper, which left the closed form's rounding uncharged)."""
    from dpsampling.accountants.certified.engine import exact_gaussian_rows

    rows = exact_gaussian_rows(4.0, np.array([0.5, 2.0]), "delta")  # sensitivity 2, sigma 1
    for i, eps in enumerate([0.5, 2.0]):
        exact = _exact_delta(eps, 1.0, 2.0)
        assert rows[i, 0] < rows[i, 1] and mpmath.mpf(rows[i, 0]) <= exact <= mpmath.mpf(rows[i, 1])
    assert math.isclose(rows[0, 0], rows[0, 2]) and rows[0, 1] == rows[0, 3]
