"""Balls-in-bins with each example's bin kept across epochs, as a balls-and-bins phase.

The sampler (jax-privacy 2.0's ``BallsInBinsSampling(iterations, cycle_length)``): each example
draws one bin in {0, ..., T - 1} (T = cycle_length) uniformly, once, and takes part in every step
i with i mod T = its bin. With iterations = K T (K epochs) every example is in K steps, one per
epoch, at the same position in each epoch.

**Claim.** Under add/remove (zero-out) adjacency, for adaptively chosen clipped gradients (the
ABLQ model of chua25, noise N(0, sigma^2 I), clip norm 1), K epochs with kept bins have exactly
the privacy curve of ONE epoch of balls-and-bins at noise sigma / sqrt(K), in both directions.

**Proof.** (1) Dominating pair: P_K = (1/T) sum_t N(e_t (x) 1_K, sigma^2 I_{KT}),
Q_K = N(0, sigma^2 I_{KT}) (coordinate (k, t): step t of epoch k). chua25 Thm 3.1's argument
carries over unchanged: for a fixed assignment Gamma of the other examples, the post-processing
v -> g_{k,t} = sum_{i in S'_t} psi_{k,t}(x_i) + psi_{k,t}(x_n) v_{k,t} + e_{k,t}, e_{k,t} ~
N(0, sigma^2 (I - psi psi^T)), built step by step in the order of the run (psi_{k,t} may depend
on all earlier outputs), maps Q_K to the run without x_n and P_K (given t* = t) to the run with
x_n in bin t for all K epochs; the run is the mixture over Gamma of such runs, so joint
convexity gives (P_K, Q_K) >= the run, for every adaptive query method; the datasets
(0, ..., 0, 1) vs (0, ..., 0, bottom) with psi(x) = x realize it (tight). (2) Sufficient
statistic: s_t = K^{-1/2} sum_k v_{k,t}. Under Q_K the s_t are N(0, sigma^2); under P_K given
t*, N(sqrt(K) 1[t = t*], sigma^2); the components of v orthogonal to the K-vectors 1_K (one per
t) are N(0, sigma^2) under both and independent of t* and of s. So v -> s maps (P_K, Q_K) to
(P_B, Q_B) = ((1/T) sum_t N(sqrt(K) e_t, sigma^2 I_T), N(0, sigma^2 I_T)), and s -> (s, fresh
orthogonal noise) maps it back: the two pairs are post-processings of each other and have the
same curve; scaling by 1/sqrt(K), (P_B, Q_B) is chua25's balls-and-bins pair at sigma / sqrt(K).

A permutation of the bins between epochs that is fixed in advance changes nothing (relabel the
coordinates); a secret random one makes the run a mixture of such runs (no worse). A partial
last epoch (iterations = K T + r, 0 < r < T: bins < r are used K + 1 times): shrinking the
coordinates of the bins used K + 1 times to K uses (v -> a v + N(0, sigma^2 (1 - a^2))) maps the
pair at K + 1 uses everywhere to the run's, and the run's to the pair at K uses everywhere, so the
curve lies between balls-and-bins at sigma / sqrt(K + 1) and at sigma / sqrt(K).
Substitution (replace-one) is not covered: the engine's balls-and-bins pair is add/remove.
"""

from __future__ import annotations

import math

from ...samplers import BALLS_AND_BINS
from ...validation import check_int_at_least, check_positive
from ..run import Phase


def kept_bins_phase(sigma: float, steps: int, epochs: int) -> Phase:
    """The balls-and-bins phase with exactly the curve of ``epochs`` epochs of ``steps`` steps
    with each example's bin kept (module docstring): one epoch at sigma / sqrt(epochs)."""
    sigma = check_positive("sigma", sigma)
    epochs = check_int_at_least("epochs", epochs, 1)
    return Phase(BALLS_AND_BINS.name, sigma / math.sqrt(epochs), steps_per_epoch=check_int_at_least("steps", steps, 1),
                 epochs=1)


def kept_bins_phases(sigma: float, cycle_length: int, iterations: int) -> tuple[Phase, Phase]:
    """(dominated, dominating) phases of ``iterations`` steps of balls-in-bins with period
    ``cycle_length`` (jax-privacy's ``BallsInBinsSampling``): the same phase twice when
    ``cycle_length`` divides ``iterations``, else one epoch at sigma / sqrt(K) and at
    sigma / sqrt(K + 1), K = iterations // cycle_length (module docstring)."""
    cycle_length = check_int_at_least("cycle_length", cycle_length, 1)
    iterations = check_int_at_least("iterations", iterations, cycle_length)
    epochs, remainder = divmod(iterations, cycle_length)
    lower = kept_bins_phase(sigma, cycle_length, epochs)
    return lower, (lower if remainder == 0 else kept_bins_phase(sigma, cycle_length, epochs + 1))
