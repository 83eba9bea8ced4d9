"""A certified lower bound on WOR under substitution for adaptive gradients: the two-step-type game.

Setting as ``certified.substitution`` (lebeda24 Sec. 7, App. D). Under B = N(0, s^2) (engine units,
s = sigma / 2) L = dA/dB = (1 - q) + q Y, A = (1 - q) N(0, s^2) + q N(1, s^2). Two kinds of step
are realized by one pair of substitution neighbours x_i = +1 vs x'_i = -1 (all other examples at
gradient g): g = -1 gives the pair (A, B) (the remove curve f_R), g = +1 the pair (B, A) (the add
curve f_A); both are data in the unit ball, and an adaptive query method (chua25's ABLQ; DP-SGD's
gradients are functions of the released noisy sums) may choose g at every step from the outputs
so far. The value of this game at a = e^eps, G_t(a) = sup over strategies of H_a(run of steps
t..T || ...), is a lower bound on the curve of WOR under substitution with adaptive gradients.
The remove curve of (A, B)^T (the usual lower bound, lebeda24) is the strategy g = -1 throughout.

**Recursion.** Revealing a step's output and conditioning (H_a(P1 P2 || Q1 Q2) = E_{P1}[H_{a/L1}
(P2 || Q2)]), G_T = max(f_R, f_A) and G_t(a) = max(E_A[G_{t+1}(a / L)], E_B[G_{t+1}(a L)]).

**Symmetric laws.** For a pair W with curve F and its swap W' (curve F'(a) = 1 - a + a F(1/a)),
a law U of a ratio under Q with mass 1 and mean 1 is *symmetric* if its curve u satisfies
u(a) = 1 - a + a u(1/a). If u <= G_{t+1} and U is symmetric, then E_A[u(a/L)] = H_a((A, B) x U)
=: F(a) and E_B[u(a L)] = H_a((B, A) x U) = F'(a), so G_t >= max(F, F'). Two constructions give
a symmetric U' with curve <= max(F, F') from a law W of L_W (atoms m_i at l_i, F = sum m (l - a)_+,
F' = sum m (1 - a l)_+):
- Sym(W): the atoms with l > 1, their mirror images (mass m l at 1 / l) and an atom at 1 of mass
  1 - sum_{l > 1} m (1 + l), if that is >= 0. Its curve is F on a >= 1 (only the atoms above 1
  count) and, by symmetry, F' below 1 (``certified.substitution`` proves both for the WOR step).
- at a threshold c > 1 with F(c) <= F'(c): the law of 1 / L_W under P on (1, c) (atoms
  (m l, 1 / l) for 1 / c < l < 1), an atom kappa = sum_{l <= 1/c} m l - sum_{l > c} m at c, the
  atoms with l > c, their mirror images and the atom at 1 that makes mass 1 (needs kappa >= 0 and
  that atom >= 0). On a >= c its curve is F; on [1, c) it is F'(a) - F'(c) + F(c) <= F'(a); below
  1 it is the mirror. Used when Sym's atom at 1 would be negative (the maximum switches from F'
  to F above 1).
Both only need the atoms of a lower law: a Jensen (conditional-mean) law of W has F and F' below
W's, so the construction's curve is below max(F, F') of W itself.

**Bound.** U_1 = Sym(lower law of the (A, B) step) and U_{j+1} = the construction applied to
(lower law of the step) x U_j (a product of lower laws, ``laws.multiply_means``) give
curve(U_T) <= G_1: ``adaptive_lower_bound`` returns its delta (or eps) at the values asked. Every
operation is a lower bound (Jensen merges, dropped mass); a check that fails (a negative atom)
raises instead of returning a number. The steps multiply one at a time on one grid (the game is
not a power of one law): T products, minutes at T = 2,344; not the default path.
"""

from __future__ import annotations

import math

import numpy as np

from ...validation import (
    check_array,
    check_int_at_least,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_rate,
)
from . import _kernels
from .compose import TAIL_BUDGET
from .laws import MeansLaw, _merge_atoms, multiply_means
from .steps import log_sd, subsampled_step

DISTANCE = 2.0
GRID_DIVISOR = 16.0  # default grid step: the step's log-scale sd / GRID_DIVISOR
BISECTIONS = 80


def _curves(values: np.ndarray, masses: np.ndarray, alphas: np.ndarray):
    """F(a) = sum m (l - a)_+ and F'(a) = sum m (1 - a l)_+ at ``alphas``, atoms sorted by value."""
    c0 = np.concatenate([[0.0], np.cumsum(masses)])
    c1 = np.concatenate([[0.0], np.cumsum(masses * values)])
    above = np.searchsorted(values, alphas, side="right")
    below = np.searchsorted(values, 1.0 / alphas, side="left")
    return (np.maximum((c1[-1] - c1[above]) - alphas * (c0[-1] - c0[above]), 0.0),
            np.maximum(c0[below] - alphas * c1[below], 0.0))


def _threshold(values: np.ndarray, masses: np.ndarray, h: float) -> float:
    """The largest c >= 1 found with F(c) <= F'(c) before F overtakes F' (grid of step h in log a,
    then bisection)."""
    alphas = np.exp(h * np.arange(1, 1 + int(math.ceil(20.0 / h))))
    f, fd = _curves(values, masses, alphas)
    over = np.nonzero(f > fd)[0]
    if over.size == 0:
        raise FloatingPointError("the add curve stays above the remove curve: no threshold")
    j = int(over[0])
    lo, hi = (1.0 if j == 0 else float(alphas[j - 1])), float(alphas[j])
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        f, fd = _curves(values, masses, np.array([mid]))
        lo, hi = (mid, hi) if f[0] <= fd[0] else (lo, mid)
    return lo


def symmetrized(law: MeansLaw, h: float) -> MeansLaw:
    """A symmetric lower law whose curve is <= max(F, F') of any law this one is a Jensen lower
    law of (module docstring: Sym, or the threshold construction)."""
    values = np.exp(law.lv)
    order = np.argsort(values)
    values, masses = values[order], law.m[order]
    up = values > 1.0
    atom = 1.0 - float(np.sum(masses[up] * (1.0 + values[up])))
    if atom >= 0.0:
        w, v = masses[up], values[up]
    else:
        c = _threshold(values, masses, h)
        high, low = values > c, (values < 1.0) & (values > 1.0 / c)
        kappa = float(np.sum((masses * values)[values <= 1.0 / c])) - float(np.sum(masses[high]))
        if kappa < 0.0:
            raise FloatingPointError(f"threshold construction: kappa = {kappa} < 0 at c = {c}")
        w = np.concatenate([masses[high], (masses * values)[low], [kappa]])
        v = np.concatenate([values[high], 1.0 / values[low], [c]])
        atom = 1.0 - float(np.sum(w * (1.0 + v)))
        if atom < 0.0:
            raise FloatingPointError(f"threshold construction: atom at 1 = {atom} < 0 at c = {c}")
    log_v = np.log(v)
    return _merge_atoms(np.concatenate([w, w * v, [atom]]), np.concatenate([log_v, -log_v, [0.0]]), h, 0.0)


def game_lower_law(sigma: float, rate: float, compositions: int, h: float) -> MeansLaw:
    """The symmetric lower law U_T of the game (``sigma`` in data units, distance 2)."""
    step = subsampled_step(sigma / DISTANCE, rate, h, TAIL_BUDGET / compositions)[1]
    law = symmetrized(step, h)
    for _ in range(compositions - 1):
        law = symmetrized(multiply_means(law, step, h), h)
    return law


def adaptive_lower_bound(sigma: float, steps: int, epochs: int, rate: float, values, kind: str,
                         h: float | None = None) -> np.ndarray:
    """Certified lower bounds on WOR under substitution with adaptive gradients: delta at eps
    (kind "delta") or eps at delta ("epsilon") of the game above (``steps * epochs`` steps at
    rate ``rate`` < 1, noise ``sigma`` = std / clip norm); ``h``: the grid step in log L (default
    the step's log-scale sd / 16)."""
    sigma = check_positive("sigma", sigma)
    compositions = check_int_at_least("steps", steps, 1) * check_int_at_least("epochs", epochs, 1)
    rate = check_rate("sampling_rate", rate)
    if rate >= 1.0:
        raise ValueError(f"sampling_rate must be < 1 for the game (rate 1 is the Gaussian mechanism); got {rate!r}")
    if kind not in ("delta", "epsilon"):
        raise ValueError(f"kind must be delta or epsilon; got {kind!r}")
    h = log_sd(sigma / DISTANCE, rate) / GRID_DIVISOR if h is None else check_positive("h", h)
    law = game_lower_law(sigma, rate, compositions, h)
    if kind == "delta":
        eps = check_array("epsilon", values, check_nonnegative)
        return np.array([min(1.0, _kernels.hockey_stick(law.m, law.lv, float(e), True)) for e in eps])
    deltas = check_array("delta", values, check_open_unit)
    return np.array([_kernels.epsilon_for_delta(law.m, law.lv, 0.0, float(d), True, False) for d in deltas])
