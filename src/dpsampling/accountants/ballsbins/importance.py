"""Importance-sampling events E_eps (Alg. 5) for the balls-and-bins pair, with proofs.

Alg. 5 needs an event E with L(x) <= eps outside E; then for x ~ P,
    E[(1 - e^{eps - L(x)})_+] = P(E) * E[(1 - e^{eps - L(x)})_+ | x in E],
because the integrand is 0 off E. Write S(x) = sum_t exp(x_t / sigma^2), so
L_{P||Q} = log S - log T - 1/(2 sigma^2) and L_{Q||P} = -L_{P||Q} (eqs. (2), (3)).

add, D(Q_B || P_B), x ~ N(0, sigma^2 I_T):  E = {max_t x_t <= C} with
    C = 1/2 + sigma^2 (log T - eps).
  Proof: off E some x_s > C, so S(x) >= exp(x_s/sigma^2) > exp(C/sigma^2) and
  L_{Q||P}(x) < log T + 1/(2 sigma^2) - C/sigma^2 = eps. The constant cannot be lowered:
  with x_s slightly above C and the other coordinates -> -inf the loss tends to eps.
  NOTE: Section 4 of the paper uses C = 1/2 - eps sigma^2, from the step
  "S(x) >= T exp(C/sigma^2)", which needs *every* coordinate above C. With only the maximum
  above C that step fails: at x = (C' , -inf, ..., -inf), C' just above the paper's C, the
  loss is eps + log T > eps. The paper's event is too small by sigma^2 log T and the
  estimator built on it would be biased downward; we use the corrected C.
  P(E) = Phi(C/sigma)^T; given E the coordinates are i.i.d. N(0, sigma^2) truncated to
  (-inf, C] (sampled by rejection from N(0, sigma^2) when Phi(C/sigma) >= 1/4, else by
  inverse CDF, Fact B.3: ``_random.truncated_normal_below``).

remove, D(P_B || Q_B), x ~ P_1 = N(e_1, sigma^2 I_T) (symmetry, Section 4), w = x - e_1:
  E = {max_t w_t >= C} with
    C = 1/2 + sigma^2 (eps - log(1 + (e^{1/sigma^2} - 1)/T)).
  Proof: off E, x_1 = 1 + w_1 < 1 + C and x_t = w_t < C (t > 1), so
  S(x) < e^{(C+1)/sigma^2} + (T - 1) e^{C/sigma^2} = e^{C/sigma^2}(e^{1/sigma^2} + T - 1), hence
  L_{P||Q}(x) < C/sigma^2 + log((e^{1/sigma^2} + T - 1)/T) - 1/(2 sigma^2) = eps.
  (Agrees with the paper.) P(E) = 1 - Phi(C/sigma)^T; w | E is drawn by Alg. 10.

Both events shrink as eps grows (C increases for remove, decreases for add), so samples drawn
for a threshold eps_0 give unbiased estimates for every eps >= eps_0 (not below it).
"""

from __future__ import annotations

import math

import numpy as np

from dpsampling import DIRECTIONS
from dpsampling.lazy import lazy_import
from dpsampling.validation import check_choice, check_int_at_least, check_positive

special = lazy_import("scipy.special")  # loaded by the first importance law (~0.2 CPU s): naive sampling never pays it


def _finite(name: str, value) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a finite real number; got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite real number; got {value!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite real number; got {value!r}")
    return x


def importance_threshold(sigma, steps, epsilon, direction) -> float:
    """The constant C of the event E_eps above (in units of x, not x / sigma)."""
    sigma = check_positive("sigma", sigma)
    steps = check_int_at_least("steps", steps, 1)
    epsilon = _finite("epsilon", epsilon)
    direction = check_choice("direction", direction, DIRECTIONS)
    variance = sigma * sigma
    if direction == "add":
        return 0.5 + variance * (math.log(steps) - epsilon)
    log_others = math.log(steps - 1) if steps > 1 else -math.inf
    log_ratio = float(np.logaddexp(1.0 / variance, log_others)) - math.log(steps)
    return 0.5 + variance * (epsilon - log_ratio)


def log_importance_probability(sigma, steps, epsilon, direction) -> float:
    """log P(E_eps) under the sampling distribution (Q_B for add, P_1 for remove)."""
    threshold = importance_threshold(sigma, steps, epsilon, direction)
    log_cdf = float(special.log_ndtr(threshold / float(sigma)))
    if direction == "add":
        return int(steps) * log_cdf
    mass = -math.expm1(int(steps) * log_cdf)
    return math.log(mass) if mass > 0 else -math.inf


def _kernel_threshold_parameter(sigma, steps, epsilon, direction) -> float:
    """What the kernels take: add -> log Phi(C/sigma); remove -> 1 - Phi(C/sigma)^T."""
    threshold = importance_threshold(sigma, steps, epsilon, direction)
    log_cdf = float(special.log_ndtr(threshold / float(sigma)))
    if direction == "add":
        return log_cdf
    mass = -math.expm1(int(steps) * log_cdf)
    if not mass > 1e-300:
        raise ValueError(f"importance_epsilon must be small enough that P(E_eps) > 1e-300 for "
                         f"sigma={sigma}, T={steps} (delta is below that anyway); got {epsilon!r}")
    return mass
