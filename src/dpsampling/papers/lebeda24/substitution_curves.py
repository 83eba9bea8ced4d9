"""WOR under the substitution relation (Section 7 and Appendix D).

Laplace example (Section 7, Fig. 3): n = 2, batch 1 (q = 1/2), Laplace scale 2, two queries,
P = 0.5 Lap(-1, 2) + 0.5 Lap(1, 2), Q = Lap(-1, 2). Shifting by +1 this is the pair
A = (1 - q) Lap(0, 2) + q Lap(2, 2), B = Lap(0, 2) of pairs.SubsampledPair, so

* H(PxP || QxQ): loss L_1 + L_2, both ln(A/B)(Y), Y ~ A  (remove, remove);
* H(QxQ || PxP): both ln(B/A)(Y), Y ~ B                  (add, add);
* H(PxQ || QxP): ln(A/B)(Y_1) + ln(B/A)(Y_2), Y_1 ~ A, Y_2 ~ B (remove, add),

each evaluated exactly as E_{L_1}[H_{e^{eps - L_1}}(second pair)] (atoms + quad).

Gaussian (Appendix D): the base mechanism's substitution pair is N(0, s^2) vs N(2, s^2), so for
one WOR step A = (1 - q) N(0) + q N(2), B = N(0). By Theorem 14 the single-step curve is at most
delta_1(eps) = max(H_{e^eps}(A||B), H_{e^eps}(B||A)) for every real eps (remove dominates for
eps >= 0, add for eps < 0). This maximum is convex in e^eps, hence the curve of a pair of
distributions (the tests' reference for the engine's Theorem 14 pair is its connect-the-dots PLD,
tests/connect_the_dots.py). The composed bounds of Fig. 4 are the face's
(``dpsampling.Accountant``, relation substitution, and the reference method rdp: ``subst_gaussian``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.papers.lebeda24.laplace_mechanism import _two_fold_delta
from dpsampling.papers.lebeda24.pairs import SubsampledPair
from dpsampling.validation import check_array, check_nonnegative

LAPLACE_COMBINATIONS = {
    "H_PxP_QxQ": ("remove", "remove"),
    "H_QxQ_PxP": ("add", "add"),
    "H_PxQ_QxP": ("remove", "add"),
}


def laplace_substitution_curves(epsilons, laplace_scale: float = 2.0, rate: float = 0.5) -> pd.DataFrame:
    """Columns epsilon, H_PxP_QxQ, H_QxQ_PxP, H_PxQ_QxP, largest (name of the maximum)."""
    eps = check_array("epsilon", epsilons, check_nonnegative)
    pair = SubsampledPair("laplace", laplace_scale, rate, 2.0)
    frame = pd.DataFrame({"epsilon": eps})
    for name, (first, second) in LAPLACE_COMBINATIONS.items():
        frame[name] = [_two_fold_delta(pair, first, second, float(e)) for e in eps]
    names = list(LAPLACE_COMBINATIONS)
    frame["largest"] = frame[names].idxmax(axis=1)
    return frame


def largest_intervals(frame: pd.DataFrame, min_margin: float = 0.0) -> dict:
    """For each H column: the eps grid points where it exceeds both others by > min_margin."""
    names = list(LAPLACE_COMBINATIONS)
    out = {}
    for name in names:
        others = frame[[n for n in names if n != name]].max(axis=1)
        out[name] = frame.loc[frame[name] > others + min_margin, "epsilon"].to_numpy()
    return out


def gaussian_single_step_curves(epsilons, sigma: float, rate: float) -> pd.DataFrame:
    """One WOR step: delta_remove = H(A||B), delta_add = H(B||A), delta_max (Fig. 4 left)."""
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    pair = SubsampledPair("gaussian", sigma, rate, 2.0)
    frame = pd.DataFrame({"epsilon": eps,
                          "delta_remove": pair.hockey_stick(eps, "remove"),
                          "delta_add": pair.hockey_stick(eps, "add")})
    frame["delta_max"] = np.maximum(frame["delta_remove"], frame["delta_add"])
    return frame
