"""Slow plain-numpy/scipy references for dpsampling.accountants.ballsbins (tiny sizes only).

Everything here materialises the full m x T array of coordinates and uses textbook
operations (numpy normals, sorting, rejection sampling, scipy root finding), independent of
the Numba kernels' algorithms (streamed log-sum-exp, Alg. 6 Beta products, Alg. 10).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp
from scipy.stats import norm


def loss_from_coordinates(x, sigma, direction):
    """Eq. (2)/(3): L_{P||Q} (remove) or L_{Q||P} (add) for rows x of shape (m, T)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    steps = x.shape[1]
    remove_loss = logsumexp(x / sigma**2, axis=1) - math.log(steps) - 1 / (2 * sigma**2)
    return remove_loss if direction == "remove" else -remove_loss


def draw_coordinates(sigma, steps, m, direction, rng):
    """x ~ P_1 = N(e_1, sigma^2 I) (remove) or Q_B = N(0, sigma^2 I) (add), shape (m, T)."""
    x = rng.normal(0.0, sigma, size=(m, steps))
    if direction == "remove":
        x[:, 0] += 1.0
    return x


def naive_losses(sigma, steps, m, direction, rng, epochs=1):
    return sum(loss_from_coordinates(draw_coordinates(sigma, steps, m, direction, rng), sigma,
                                     direction) for _ in range(epochs))


def in_importance_event(x, sigma, steps, epsilon, direction):
    """Membership in E_eps of importance.py (corrected add threshold)."""
    if direction == "add":
        threshold = 0.5 + sigma**2 * (math.log(steps) - epsilon)
        return x.max(axis=1) <= threshold
    threshold = 0.5 + sigma**2 * (epsilon - math.log(1 + math.expm1(1 / sigma**2) / steps))
    w = x.copy()
    w[:, 0] -= 1.0
    return w.max(axis=1) >= threshold


def importance_coordinates(sigma, steps, m, direction, epsilon, rng, batch=20000):
    """Rejection sampling from the conditional distribution given E_eps; also returns the
    acceptance rate (an estimate of P(E))."""
    kept, drawn = [], 0
    total = 0
    while total < m:
        x = draw_coordinates(sigma, steps, batch, direction, rng)
        drawn += batch
        x = x[in_importance_event(x, sigma, steps, epsilon, direction)]
        kept.append(x)
        total += x.shape[0]
    return np.concatenate(kept)[:m], total / drawn


def order_statistics_bound(x, sigma, orders, direction):
    """Bound (4) (remove, upper, with k_{r+1} = R + 1) or (5) (add, lower) on the loss of x,
    computed by sorting; remove keeps x_1 exactly and bounds the other R = T - 1 values."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    steps = x.shape[1]
    orders = np.asarray(orders)
    if direction == "remove":
        rest = -np.sort(-x[:, 1:], axis=1)  # descending
        big_r = steps - 1
        following = np.append(orders[1:], big_r + 1)
        weights = following - orders
        terms = np.concatenate([x[:, :1] / sigma**2,
                                np.log(weights) + rest[:, orders - 1] / sigma**2], axis=1)
        return logsumexp(terms, axis=1) - math.log(steps) - 1 / (2 * sigma**2)
    ordered = -np.sort(-x, axis=1)
    weights = np.diff(np.concatenate([[0], orders]))
    terms = np.log(weights) + ordered[:, orders - 1] / sigma**2
    return math.log(steps) + 1 / (2 * sigma**2) - logsumexp(terms, axis=1)


def importance_order_statistics_bound(x, sigma, orders, direction):
    """The bound of Appendix B.3 on the loss of x (drawn given E_eps). add: bound (5) as
    without importance sampling. remove: x_1 is kept exactly; if the maximum of w = x - e_1
    is w_1, the other T - 1 values are bounded with R = T - 1 (bound (4)); otherwise that
    maximum (some x_t, t > 1) is kept exactly too and the remaining T - 2 values are bounded
    with R = T - 2, orders > T - 2 dropped."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    if direction == "add":
        return order_statistics_bound(x, sigma, orders, direction)
    steps = x.shape[1]
    orders = np.asarray(orders)
    result = np.empty(x.shape[0])
    for i, row in enumerate(x):
        rest = np.sort(row[1:])[::-1]  # descending
        if row[0] - 1.0 >= rest[0]:
            exact, big_r = [row[0]], steps - 1
        else:
            exact, rest, big_r = [row[0], rest[0]], rest[1:], steps - 2
        kept = orders[orders <= big_r]
        weights = np.diff(np.append(kept, big_r + 1))
        terms = np.concatenate([np.array(exact) / sigma**2,
                                np.log(weights) + rest[kept - 1] / sigma**2])
        result[i] = logsumexp(terms) - math.log(steps) - 1 / (2 * sigma**2)
    return result


def hockey_stick_terms(losses, epsilons):
    """Matrix Z[i, j] = [1 - exp(eps_j - L_i)]_+."""
    losses = np.asarray(losses)[:, None]
    epsilons = np.asarray(epsilons)[None, :]
    return np.clip(1 - np.exp(epsilons - losses), 0, None)


def kl_ucb(mean, count, beta):
    """Largest p in [mean, 1] with count * KL(mean || p) <= log(1/beta), by brentq."""
    budget = math.log(1 / beta) / count

    def kl(p):
        value = 0.0
        if mean > 0:
            value += mean * math.log(mean / p)
        if mean < 1:
            value += (1 - mean) * (math.log1p(-mean) - math.log1p(-p))
        return value

    if mean >= 1:
        return 1.0
    if kl(np.nextafter(1.0, 0.0)) <= budget:
        return 1.0
    return brentq(lambda p: kl(p) - budget, mean, np.nextafter(1.0, 0.0), xtol=1e-300, rtol=1e-14)


def gaussian_delta(sigma, eps):
    return norm.cdf(-sigma * eps + 1 / (2 * sigma)) - math.exp(eps) * norm.cdf(-sigma * eps - 1 / (2 * sigma))


def lower_bound_grid(sigma, steps, eps, direction, points=200001):
    """Brute-force sup over a fine grid of C of the event bounds in lower_bound.py."""
    c = np.linspace(-30 * sigma - 2, 30 * sigma + 2 + sigma**2 * (abs(eps) + math.log(steps)), points)
    q_cdf = norm.cdf(c / sigma)
    p_cdf = norm.cdf((c - 1) / sigma)
    if direction == "remove":
        value = (1 - p_cdf * q_cdf ** (steps - 1)) - math.exp(eps) * (1 - q_cdf**steps)
    else:
        value = q_cdf**steps - math.exp(eps) * p_cdf * q_cdf ** (steps - 1)
    return max(value.max(), 0.0)
