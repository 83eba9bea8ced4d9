"""Shuffle batches (S): the lower bound of chua24 Sec. 4.3 from the sets E_C.

The pair (chua24 eq. 1-2) P_S = (1/T) sum_t N(2 e_t, sigma^2 I), Q_S = (1/T) sum_t N(e_t, sigma^2 I)
is realised by one adjacent pair of datasets, so any set E gives delta_S(eps) >= P(E) - e^eps Q(E).
With E_C = {w : max_t w_t >= C},

    p_C = P_S(E_C) = 1 - Phi((C - 2)/sigma) Phi(C/sigma)^(T-1),
    q_C = Q_S(E_C) = 1 - Phi((C - 1)/sigma) Phi(C/sigma)^(T-1).

remove (P_S||Q_S): max_C p_C - e^eps q_C          (the paper's bound (3));
add    (Q_S||P_S): max_C (1 - q_C) - e^eps (1 - p_C)  (the complements {max_t w_t < C}).

For K epochs (independent shuffles, same worst-case instance) the pair is (P_S^K, Q_S^K); the
number N of epochs whose maximum reaches C is Bin(K, p_C) under P and Bin(K, q_C) under Q, and
the sets {N >= j} (remove) and {N < j} (add), j = 1..K, give the bound; K = 1 is the paper's.
The add direction searches C over the grid and its mirror image (see _direction_grid).

Since every set gives a valid bound, the maximum over a C grid (the paper: 0..100 step 0.01)
is a lower bound, and a local refinement around the best grid point is kept only where it
raises it. The eps lower bound for a target delta is, per set, eps_E = log((P(E) - delta)/Q(E))
(delta_S(eps) > delta for every eps < eps_E), maximised the same way. Upper bound: Thm 4.1,
delta_S <= delta_D. ``steps`` is T, the steps per epoch; the arguments are those of a validated
run (``accountants.run``).
"""

from __future__ import annotations

import numpy as np
import scipy
from scipy import special

DEFAULT_C_GRID = (0.0, 100.0, 0.01)
"""(start, stop, step) of the C grid: the paper's 0 to 100 in steps of 0.01."""


def c_grid(start: float = 0.0, stop: float = 100.0, step: float = 0.01) -> np.ndarray:
    """The grid start, start + step, ..., stop (inclusive)."""
    return start + step * np.arange(int(round((stop - start) / step)) + 1)


def _log_event_probabilities(c, sigma: float, steps: int):
    """log of (p_C, q_C, 1 - p_C, 1 - q_C) for the sets E_C, accurate to full relative precision."""
    c = np.asarray(c, dtype=float)
    log_rest = (steps - 1) * special.log_ndtr(c / sigma)
    log_not_p = special.log_ndtr((c - 2.0) / sigma) + log_rest  # log(1 - p_C)
    log_not_q = special.log_ndtr((c - 1.0) / sigma) + log_rest  # log(1 - q_C)
    with np.errstate(divide="ignore"):
        return np.log(-np.expm1(log_not_p)), np.log(-np.expm1(log_not_q)), log_not_p, log_not_q


def _event_probabilities(c, sigma: float, steps: int):
    """(p_C, q_C, 1 - p_C, 1 - q_C) for the sets E_C."""
    return tuple(np.exp(v) for v in _log_event_probabilities(c, sigma, steps))


def _binomial_tails(log_p, log_not_p, epochs: int, upper: bool):
    """Pr[Bin(K, p) >= j] (upper) or Pr[Bin(K, p) <= j - 1] for j = 1..K, summed in log space.

    scipy's binom.sf is 1 - cdf and loses everything below ~1e-16; here each term
    C(K, i) p^i (1 - p)^(K - i) is formed from log p and log(1 - p) and the tails are summed
    shifted by each row's largest term (so no term underflows earlier than its own exp would),
    so tails of 1e-200 keep their relative precision.
    """
    i = np.arange(epochs + 1)
    with np.errstate(invalid="ignore"):
        log_terms = (
            special.gammaln(epochs + 1) - special.gammaln(i + 1) - special.gammaln(epochs - i + 1)
        )[None, :] + i[None, :] * log_p[:, None] + (epochs - i)[None, :] * log_not_p[:, None]
    log_terms = np.where(np.isnan(log_terms), -np.inf, log_terms)  # 0 * log 0
    shift = np.max(log_terms, axis=1, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0.0)  # all terms -inf: every tail is 0
    scaled = np.exp(log_terms - shift)
    if upper:  # column j - 1 holds sum_{i >= j}, j = 1..K
        sums = np.cumsum(scaled[:, ::-1], axis=1)[:, ::-1][:, 1:]
    else:  # column j - 1 holds sum_{i <= j - 1}
        sums = np.cumsum(scaled, axis=1)[:, :-1]
    with np.errstate(divide="ignore"):
        return np.exp(shift + np.log(sums))


def _set_pairs(c, sigma: float, steps: int, epochs: int, direction: str):
    """Probabilities (under the first, under the second distribution) of every set, shape (len(c), K)."""
    log_p, log_q, log_not_p, log_not_q = _log_event_probabilities(c, sigma, steps)
    if epochs == 1:
        pairs = (log_p, log_q) if direction == "remove" else (log_not_q, log_not_p)
        return np.exp(pairs[0])[:, None], np.exp(pairs[1])[:, None]
    if direction == "remove":  # sets {N >= j}: N ~ Bin(K, p_C) under P, Bin(K, q_C) under Q
        return (_binomial_tails(log_p, log_not_p, epochs, True), _binomial_tails(log_q, log_not_q, epochs, True))
    # sets {N <= j - 1}, probabilities under Q then under P
    return (_binomial_tails(log_q, log_not_q, epochs, False), _binomial_tails(log_p, log_not_p, epochs, False))


def _delta_for_sets(first, second, eps):
    return first - np.exp(eps) * second


def _eps_for_sets(first, second, delta):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        value = np.log((first - delta) / second)
    return np.where(first > delta, value, -np.inf)


def _best(objective, grid, pairs, setting, target, refine):
    """max over the grid (and a local refinement) of objective(first, second, target).

    ``setting`` = (sigma, steps, epochs, direction); ``pairs`` = _set_pairs(grid, *setting),
    computed once and shared by every target."""
    first, second = pairs
    values = objective(first, second, target)
    flat = int(np.nanargmax(values))
    i, j = divmod(flat, values.shape[1])
    best_value, best_c = float(values[i, j]), float(grid[i])
    if refine and np.isfinite(best_value) and len(grid) > 1:
        step = float(grid[1] - grid[0])

        def negative(c):
            f, s = _set_pairs(np.array([c]), *setting)
            v = objective(f[:, j], s[:, j], target)[0]
            return -v if np.isfinite(v) else np.inf

        result = scipy.optimize.minimize_scalar(
            negative, bounds=(best_c - step, best_c + step), method="bounded", options={"xatol": 1e-9}
        )
        if result.success and -result.fun > best_value:
            best_value, best_c = float(-result.fun), float(result.x)
    return best_value, best_c


def _direction_grid(grid: np.ndarray, direction: str) -> np.ndarray:
    """remove: the grid as given; add: also its mirror image -C, since the best C of the
    complement sets {max_t w_t < C} moves below zero as eps grows (for T = 1 it is 1.5 - sigma^2 eps)."""
    if direction == "remove":
        return grid
    return np.unique(np.concatenate([-grid, grid]))


def _best_per_direction(objective, queries, sigma, steps, epochs, grid, refine) -> dict:
    """For each direction and query, the best set E_C over ``grid`` (refined): value and C."""
    grid = c_grid(*DEFAULT_C_GRID) if grid is None else np.asarray(grid, dtype=float)
    out = {}
    for direction in ("remove", "add"):
        points = _direction_grid(grid, direction)
        pairs = _set_pairs(points, sigma, steps, epochs, direction)
        setting = (sigma, steps, epochs, direction)
        best = [_best(objective, points, pairs, setting, q, refine) for q in queries]
        out[direction] = np.maximum(np.array([b[0] for b in best]), 0.0)
        out[f"c_{direction}"] = np.array([b[1] for b in best])
    out["max"] = np.maximum(out["remove"], out["add"])
    return out


def shuffle_delta_lower(epsilon, sigma: float, steps: int, epochs: int = 1, grid=None, refine: bool = True) -> dict:
    """Lower bounds on delta_S(eps) per direction and their maximum, with the maximising C.

    Returns ``{"remove": array, "add": array, "max": array, "c_remove": array, "c_add": array}``.
    """
    return _best_per_direction(_delta_for_sets, np.atleast_1d(epsilon), sigma, steps, epochs, grid, refine)


def shuffle_epsilon_lower(delta, sigma: float, steps: int, epochs: int = 1, grid=None, refine: bool = True) -> dict:
    """Lower bounds on eps_S(delta) per direction and their maximum (0 where no set beats delta)."""
    return _best_per_direction(_eps_for_sets, np.atleast_1d(delta), sigma, steps, epochs, grid, refine)
