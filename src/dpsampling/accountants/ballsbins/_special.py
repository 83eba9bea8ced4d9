"""Standard normal quantile Phi^{-1} inside Numba kernels, without calling SciPy.

Wichura's algorithm AS 241 (PPND16, Applied Statistics 37(3), 1988): rational
approximations of degree 7/7, relative error about 1e-16,
- central:  |p - 1/2| <= 0.425:  x = q A(r) / B(r),  q = p - 1/2, r = 0.180625 - q^2;
- tails:    s = sqrt(-log(min(p, 1 - p))):  x = +-C(s - 1.6) / D(s - 1.6) for s <= 5,
            x = +-E(s - 5) / F(s - 5) for 5 < s (fitted up to s = 27, p ~ 1e-316).
The tail branches need only log(min(p, 1 - p)), so a caller holding log p keeps full
precision for p far below the smallest double. Beyond s = 26 (log p < -676) the quantile is
found by Newton's method on the asymptotic series
    log Phi(x) = -x^2/2 - log(-x) - log(2 pi)/2 + log(1 + sum_{n>=1} (-1)^n (2n-1)!! / x^{2n}),
which for x < -36 has a first omitted term below 1e-16 with n <= 7.

Pure Numba (no ctypes function pointers), so kernels that use it can be cached on disk.
Accuracy is tested against scipy.special.ndtri / ndtri_exp and mpmath.
"""

from __future__ import annotations

import math

from numba import njit

_LOG_HALF = math.log(0.5)
_LOG_TWO_PI = math.log(2.0 * math.pi)
_NEWTON_BELOW = -676.0  # log p below which s = sqrt(-log p) > 26: use the asymptotic series


@njit(inline="always", error_model="numpy")
def _central(q):
    """x for p = 1/2 + q, |q| <= 0.425."""
    r = 0.180625 - q * q
    num = (((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r
                + 6.7265770927008700853e+4) * r + 4.5921953931549871457e+4) * r
              + 1.3731693765509461125e+4) * r + 1.9715909503065514427e+3) * r
            + 1.3314166789178437745e+2) * r + 3.3871328727963666080e+0)
    den = (((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r
                + 3.9307895800092710610e+4) * r + 2.1213794301586595867e+4) * r
              + 5.3941960214247511077e+3) * r + 6.8718700749205790830e+2) * r
            + 4.2313330701600911252e+1) * r + 1.0)
    return q * num / den


@njit(inline="always", error_model="numpy")
def _tail(s):
    """|x| for min(p, 1 - p) = exp(-s^2), 1.3 < s <= 27 (|p - 1/2| > 0.425)."""
    if s <= 5.0:
        r = s - 1.6
        num = (((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r
                    + 2.41780725177450611770e-1) * r + 1.27045825245236838258e+0) * r
                  + 3.64784832476320460504e+0) * r + 5.76949722146069140550e+0) * r
                + 4.63033784615654529590e+0) * r + 1.42343711074968357734e+0)
        den = (((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r
                    + 1.51986665636164571966e-2) * r + 1.48103976427480074590e-1) * r
                  + 6.89767334985100004550e-1) * r + 1.67638483018380384940e+0) * r
                + 2.05319162663775882187e+0) * r + 1.0)
        return num / den
    r = s - 5.0
    num = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
                + 1.24266094738807843860e-3) * r + 2.65321895265761230930e-2) * r
              + 2.96560571828504891230e-1) * r + 1.78482653991729133580e+0) * r
            + 5.46378491116411436990e+0) * r + 6.65790464350110377720e+0)
    den = (((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r
                + 1.84631831751005468180e-5) * r + 7.86869131145613259100e-4) * r
              + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r
            + 5.99832206555887937690e-1) * r + 1.0)
    return num / den


@njit(inline="always", error_model="numpy")
def _asymptotic_log_cdf(x):
    """(log Phi(x), d/dx log Phi(x)) for x < -36 from the asymptotic series."""
    z = 1.0 / (x * x)
    # S = 1 - z + 3 z^2 - 15 z^3 + 105 z^4 - 945 z^5 + 10395 z^6 - 135135 z^7
    series = 1.0 + z * (-1.0 + z * (3.0 + z * (-15.0 + z * (105.0 + z * (
        -945.0 + z * (10395.0 - 135135.0 * z))))))
    # dS/dz, and dz/dx = -2 z / x
    slope = -1.0 + z * (6.0 + z * (-45.0 + z * (420.0 + z * (-4725.0 + z * (
        62370.0 - 945945.0 * z)))))
    value = -0.5 * x * x - math.log(-x) - 0.5 * _LOG_TWO_PI + math.log(series)
    derivative = -x - 1.0 / x + slope * (-2.0 * z / x) / series
    return value, derivative


@njit(error_model="numpy")
def _far_lower_quantile(log_p):
    """Phi^{-1}(exp(log_p)) for log_p < -676 (x < -36): Newton on the asymptotic series."""
    if log_p == -math.inf:
        return -math.inf
    x = -math.sqrt(-2.0 * log_p - math.log(-4.0 * math.pi * log_p))
    for _ in range(6):
        value, derivative = _asymptotic_log_cdf(x)
        step = (value - log_p) / derivative
        x -= step
        if abs(step) <= 1e-15 * abs(x):
            break
    return x


@njit(inline="always", error_model="numpy")
def normal_quantile(p):
    """Phi^{-1}(p) for p in (0, 1)."""
    q = p - 0.5
    if abs(q) <= 0.425:
        return _central(q)
    if q < 0.0:
        return -_tail(math.sqrt(-math.log(p)))
    return _tail(math.sqrt(-math.log1p(-p)))


@njit(error_model="numpy")
def normal_quantile_from_log_cdf(log_p):
    """Phi^{-1}(exp(log_p)) for log_p < 0, accurate for tiny p and for p close to 1."""
    if log_p < _LOG_HALF:
        p = math.exp(log_p)
        if p >= 0.075:
            return _central(p - 0.5)
        if log_p < _NEWTON_BELOW:
            return _far_lower_quantile(log_p)
        return -_tail(math.sqrt(-log_p))
    survival = -math.expm1(log_p)  # 1 - p with full relative precision
    if survival >= 0.075:
        return _central(0.5 - survival)
    if survival == 0.0:
        return math.inf
    log_survival = math.log(survival)
    if log_survival < _NEWTON_BELOW:
        return -_far_lower_quantile(log_survival)
    return _tail(math.sqrt(-log_survival))
