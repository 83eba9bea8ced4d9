"""Randomized-response counterexample (Appendix B.1), in exact rational arithmetic.

M(D) outputs the bit b w.p. 3/4 and 1 - b w.p. 1/4, where b = 0 iff every entry of D is 0.
D = (0, ..., 0) and D' = D plus one 1. Subsampled with rate gamma (Poisson or WOR: only whether
the 1 is in the batch matters), one run gives

    M_sub(D)  = (3/4, 1/4)                                        on outputs (0, 1),
    M_sub(D') = (1 - gamma) (3/4, 1/4) + gamma (1/4, 3/4).

With k runs, P = M_sub(D)^k and Q = M_sub(D')^k (product distributions on {0,1}^k) and
H_alpha(P || Q) = sum_o max(P(o) - alpha Q(o), 0). The paper (gamma = 1/2, k = 2) states
H_{4/3}(P||Q) = 11/48 > H_{4/3}(Q||P) = 1/6 but H_2(P||Q) = 1/16 < H_2(Q||P) = 1/8: neither
ordered pair is worst-case for all alpha >= 1 after composition.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from dpsampling.validation import check_int_at_least


def _fraction(name, value) -> Fraction:
    try:
        return Fraction(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a rational number; got {value!r}") from None


def single_run_distributions(rate=Fraction(1, 2), keep_probability=Fraction(3, 4)):
    """(M_sub(D), M_sub(D')) as tuples (Pr[0], Pr[1]) of Fractions."""
    rate = _fraction("sampling_rate", rate)
    keep = _fraction("keep_probability", keep_probability)
    if not 0 < rate <= 1:
        raise ValueError(f"sampling_rate must be in (0, 1]; got {rate}")
    if not 0 <= keep <= 1:
        raise ValueError(f"keep_probability must be in [0, 1]; got {keep}")
    without = (keep, 1 - keep)  # all sampled entries are 0 -> b = 0
    with_one = (1 - keep, keep)  # the 1 is in the batch -> b = 1
    mixed = tuple((1 - rate) * a + rate * b for a, b in zip(without, with_one))
    return without, mixed


def product_distribution(single, runs: int) -> dict:
    """{outcome tuple: probability} of ``runs`` independent runs."""
    runs = check_int_at_least("runs", runs, 1)
    out = {}
    for outcome in itertools.product(range(len(single)), repeat=runs):
        p = Fraction(1)
        for o in outcome:
            p *= single[o]
        out[outcome] = p
    return out


def hockey_stick_discrete(p: dict, q: dict, alpha) -> Fraction:
    """H_alpha(P || Q) = sum over outcomes of max(P(o) - alpha Q(o), 0), exactly."""
    alpha = _fraction("alpha", alpha)
    if alpha < 0:
        raise ValueError(f"alpha must be non-negative; got {alpha}")
    outcomes = set(p) | set(q)
    return sum((max(p.get(o, Fraction(0)) - alpha * q.get(o, Fraction(0)), Fraction(0)) for o in outcomes),
               Fraction(0))


def randomized_response_divergences(alphas=(Fraction(4, 3), Fraction(2)), rate=Fraction(1, 2), runs: int = 2,
                                    keep_probability=Fraction(3, 4)) -> list[dict]:
    """Rows {alpha, H_P_Q, H_Q_P} (Fractions) for P = M_sub(D)^runs, Q = M_sub(D')^runs."""
    single_p, single_q = single_run_distributions(rate, keep_probability)
    p = product_distribution(single_p, runs)
    q = product_distribution(single_q, runs)
    return [{"alpha": _fraction("alpha", a), "H_P_Q": hockey_stick_discrete(p, q, a),
             "H_Q_P": hockey_stick_discrete(q, p, a)} for a in alphas]
