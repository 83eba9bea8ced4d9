"""WOR under substitution: the tightest single-step dominating pair, as laws the engine composes.

Setting (lebeda24 Sec. 7, App. D). A WOR step draws a batch of b of n (q = b / n) and releases the
sum of its clipped gradients plus N(0, sigma^2 I); substitution neighbours differ in one example.
The base mechanism (a batch's sum) under substitution moves by at most 2, so it is dominated by
N(2, sigma^2) vs N(0, sigma^2), and Theorem 14 (= Zhu et al. 2022, Prop. 30) bounds the curve of
one step, for every pair of neighbours, by

    f(a) = H_a(A || B)  for a >= 1,        f(a) = H_a(B || A)  for a < 1,

A = (1 - q) N(0, sigma^2) + q N(2, sigma^2), B = N(0, sigma^2). In the engine's units (distance 1,
s = sigma / 2, ``steps``) dA/dB = L = (1 - q) + q Y under B, E_B[L] = 1.

**The pair realizing f (proof).** Let Q* be the law of a ratio L* >= 0 made of three parts:
(i) on (1, inf): the law of L under B restricted to {L > 1}; (ii) an atom at 1 of mass
m_1 = 1 - B(L > 1) - A(L > 1); (iii) on (0, 1): L* = 1 / L with weight L dB on {L > 1}
(Q*(L* in d(1/l)) = l B(L in dl)), and P* = L* Q*. With c = 1 / (2 s) (data units: 1 / sigma),
B(L > 1) = Phi(-c) and A(L > 1) = (1 - q) Phi(-c) + q Phi(c), so m_1 = (1 - q)(1 - 2 Phi(-c)) >= 0:
Q* is a probability law (parts (i) + (iii) have mass B(L > 1) + E_B[L; L > 1]) and E_Q*[L*] =
E_B[L; L > 1] + m_1 + B(L > 1) = 1 (no mass of P* at infinity). Its curve is f:
- a >= 1: H_a(P* || Q*) = E_Q*[(L* - a)_+] = E_B[(L - a)_+; L > 1] = E_B[(L - a)_+] = H_a(A || B);
- a < 1: E_Q*[(L* - a)_+] = 1 - a + E_Q*[(a - L*)_+], and only part (iii) has L* < a, so this is
  1 - a + E_B[L (a - 1/L)_+; L > 1] = 1 - a + E_B[(a L - 1)_+] = E_B[(1 - a L)_+] = H_a(B || A).
So (P*, Q*) dominates every WOR step under substitution (Theorem 14), and by the composition
theorem of dominating pairs (Zhu et al. 2022, Thm 10; adaptive steps) (P*, Q*)^T dominates T
steps: ``delta(eps) <= H_{e^eps}(P*^T || Q*^T)``, in both orders of the neighbours (the pair is
symmetric: the curve of (Q*, P*) is 1 - a + a f(1/a) = f(a), so remove and add agree).

**No single-step pair does better.** f is attained at every a: for a >= 1 by the datasets
(-1, ..., -1, 1) vs (-1, ..., -1, -1), for a < 1 by the same two in the other order (lebeda24
Sec. 7). Any pair dominating the step has a curve >= f everywhere, hence (Blackwell) is a
post-processing-above of (P*, Q*), and its T-fold product dominates (P*, Q*)^T. Any tighter bound
must use that the two halves of f are attained by different pairs of neighbours (notes:
/work/notes/integrations-research.md, "WOR substitution").

**Laws.** Part (i) is ``steps._cells_laws`` on the cells k >= 0 of L (grid point g_0 = 1): the
upper law spreads each cell onto its ends with the mean kept, the lower law keeps its
conditional mean. Part (iii) is their mirror image: cell [g_k, g_{k+1}) of L becomes cell
[g_{-k-1}, g_{-k}) of L* with Q*-mass E_B[L; cell] and first moment B(cell). The mirror of the
upper law (mass g_j p_j at g_{-j} for mass p_j at g_j) is exactly the mean-kept spread of each
mirrored cell onto its ends (mass g_k P_k - E_k / expm1(h) at g_{-k}, E_k e^h / expm1(h) at
g_{-k-1}, with P_k, E_k = E_B[L - g_k; cell]): an upper law in convex order; the mirror of a
conditional-mean atom (mass m at e^v) is the conditional-mean atom of the mirrored cell (mass
m e^v at e^{-v}): a lower law (Jensen). The atom m_1 is exact. Top tail: the upper law moves the
mass of L above its top point g_hi down to g_hi (``remove_excess`` += its first moment lost, as in
``steps``); mirrored, that point at g_{-hi} carries the tail's exact first moment B(L > g_hi) but
only mass g_hi B(L > g_hi) of its E_B[L; L > g_hi]: the difference is the spread of the mirrored
tail onto {0, g_{-hi}} (a convex-order upper bound), whose mass at 0 (at most the tail's first
moment under B, ``remove_excess``) is charged to the add direction (``add_excess``). The lower law keeps both tails as open
cells at their conditional means. The engine composes these laws (``compose.power``) and refines
until the two laws of (P*, Q*)^T meet: the gap it reports is the discretization error of the
upper bound, not the gap to the true curve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import erf

from ..reference import rdp
from . import rounding
from .compose import STEP_POINTS, TAIL_BUDGET, TwoGrid, level_step, power
from .engine import _refined
from .laws import MeansLaw, PointsLaw, _merge_atoms, prune_points
from .pair import Laws
from .steps import _cells_laws, _top_log_y, log_sd

DISTANCE = 2.0  # a substitution moves a batch's sum by at most 2 (data in the unit ball)
UPPER_METHOD = "certified: Theorem 14 pair (P*, Q*) composed (lebeda24 App. D)"
RDP_METHOD = "RDP, WOR replace-one (Wang et al. 2019, dp-accounting)"
LOWER_METHOD = "certified lower law of the remove/add pair (lebeda24 Section 7)"


def atom_at_one(sigma: float, q: float) -> float:
    """m_1 = (1 - q)(1 - 2 Phi(-c)) = (1 - q) erf(c / sqrt 2), c = 1 / (2 sigma) (module docstring;
    ``sigma`` in the engine's units, distance 1)."""
    return (1.0 - q) * float(erf(1.0 / (2.0 * sigma * math.sqrt(2.0))))


def top_index(sigma: float, q: float, h: float, tail: float) -> int:
    """Index of the top point g_hi of L's upper law: E[L; L > g_hi] <= ``tail`` (as ``steps``)."""
    return max(math.ceil(math.log1p(q * math.expm1(_top_log_y(sigma, q, tail))) / h), 2)


def symmetric_step(sigma: float, q: float, h: float, tail: float) -> tuple[PointsLaw, MeansLaw]:
    """(upper, lower) laws of L* under Q* on the grid of step h (module docstring), for the WOR
    step at noise ``sigma`` in the engine's units (data sigma / 2) and rate q < 1; ``tail``
    bounds the first moment of L above the top point."""
    k_hi = top_index(sigma, q, h, tail)
    up, low = _cells_laws(q, sigma, 0, k_hi, h, lowest=False, top=True)
    atom = atom_at_one(sigma, q)
    j = np.arange(up.p.size)  # up.k0 = 0: up.p[j] sits at g_j
    p = np.zeros(2 * k_hi + 1)
    p[k_hi:] += up.p
    p[k_hi::-1] += np.exp(j * h) * up.p  # mirror: mass g_j p_j at g_{-j}
    p[k_hi] += atom
    # the mirror's g_j p_j: one exp and one product more (``rounding``); the atom: assumption B
    # PROOF Lemma 9: the mirrored law
    mirrored = rounding.tilt_rounding(746.0 + k_hi * h) + rounding.gamma(3)
    rel = rounding.grow(max(up.rel_error, rounding.STEP_LAW_ACCURACY), mirrored)
    # the mirrored tail's mass missing at 0, q (E[Y; Y > y_hi] - y_hi P(Y > y_hi)), is at most
    # q E[Y; Y > y_hi] = up.remove_excess: charged to the add direction (module docstring)
    upper = prune_points(PointsLaw(-k_hi, p, remove_excess=up.remove_excess, add_excess=up.remove_excess,
                                   rel_error=rel), h)
    keep = low.m > 0
    m, lv = low.m[keep], low.lv[keep]
    mass = np.concatenate([m, m * np.exp(lv), [atom]])
    log_value = np.concatenate([lv, -lv, [0.0]])
    return upper, _merge_atoms(mass, log_value, h, rounding.grow(low.rel_error, mirrored))


def symmetric_laws(sigma: float, q: float, compositions: int, refinement: int) -> tuple[Laws, int]:
    """Laws of (P*, Q*)^compositions at ``refinement`` (one grid; steps as ``compose``) and the
    largest array length used."""
    sd_one = math.sqrt(2.0) * log_sd(sigma, q)  # L* has about twice the variance of L
    tail = TAIL_BUDGET / compositions
    h = level_step(sd_one, 1, refinement)
    top = math.log1p(q * math.expm1(_top_log_y(sigma, q, tail)))
    h = max(h, 2.0 * top / STEP_POINTS)
    upper, lower = symmetric_step(sigma, q, h, tail)
    laws, largest = power(TwoGrid(Laws(upper, lower, h), None, h), compositions, sd_one, refinement)
    return laws, max(largest, upper.p.size)


class _PairSpec:
    """The engine's view of (P*, Q*) (``engine._run_laws`` asks a phase's ``spec`` for its laws)."""

    @staticmethod
    def laws(phase, refinement: int) -> tuple[Laws, int]:
        return symmetric_laws(phase.sigma / DISTANCE, phase.sampling_rate, phase.steps, refinement)

    @staticmethod
    def gaussian_weight(phase) -> float | None:
        """Rate 1: every step is the Gaussian mechanism at distance 2, exactly."""
        return phase.steps * (DISTANCE / phase.sigma) ** 2 if phase.sampling_rate >= 1.0 else None


@dataclass(frozen=True)
class SubstitutionPhase:
    """A WOR phase under substitution as the engine composes it: (P*, Q*)^steps."""

    sigma: float
    steps: int
    sampling_rate: float
    sampler: str = "wor-substitution"
    spec = _PairSpec()


def _substitution_bounds(phase, quantity: str, values: np.ndarray, accuracy: float, max_grid_points: int):
    """((n, 3, 2) bounds, (lower, upper) methods, attrs) of a validated WOR phase under substitution,
    every direction the same (the relation is symmetric). Upper: the smaller of (P*, Q*)^T's
    certified upper bound (module docstring) and dp-accounting's RDP bound for WOR under
    replace-one (Wang et al. 2019), each row naming which. Lower: the add/remove pair of the run
    (realised by substitution neighbours, lebeda24 Sec. 7), the larger direction."""
    pair = SubstitutionPhase(phase.sigma, phase.steps, phase.sampling_rate)
    lower_bounds, lower_attrs = _refined((phase,), values, quantity, accuracy, max_grid_points, [2])
    try:
        upper_bounds, upper_attrs = _refined((pair,), values, quantity, accuracy, max_grid_points, [2])
        certified = upper_bounds[:, 2, 1]
    except FloatingPointError as error:  # the pair's laws leave floating point (small sigma): RDP alone
        certified = np.full(values.size, np.inf)
        upper_attrs = {"converged": False, "failed": f"{error} (the pair's laws pass floating point's range)"}
    try:
        alternative = rdp.query(rdp.wor_substitution(phase.sigma, phase.sampling_rate, phase.steps), quantity, values)
    except (ValueError, ArithmeticError):  # dp-accounting's RDP conversion fails at some tiny rates
        alternative = np.full(values.size, np.inf)
    use_rdp = alternative < certified
    bounds = np.empty((values.size, 3, 2))
    bounds[..., 0] = lower_bounds[:, 2, 0][:, None]
    bounds[..., 1] = np.where(use_rdp, alternative, certified)[:, None]
    bounds[..., 0] = np.minimum(bounds[..., 0], bounds[..., 1])  # both valid; equal up to rounding at most
    upper_method = np.where(use_rdp, RDP_METHOD, UPPER_METHOD)[:, None].repeat(3, axis=1)
    attrs = {"method": "lebeda24 Theorem 14 pair (upper) and Section 7 pair (lower)", "upper_bound": upper_attrs,
             "lower_bound": lower_attrs, "certified_upper": certified.tolist(), "rdp_upper": alternative.tolist(),
             "converged": bool(upper_attrs["converged"] and lower_attrs["converged"])}
    return bounds, (LOWER_METHOD, upper_method), attrs
