"""Subsampled Laplace mechanism under add and under remove (Section 5, Appendix B.2, Fig. 1-2).

One step, after shifting (Prop. 9 and Theorem 10 with the Laplace in place of the Gaussian):
B = Lap(0, s), A = (1 - q) Lap(0, s) + q Lap(d, s) with d = 1 (Poisson, D = (0,...,0) vs
D' = (0,...,0,1)) or d = 2 (WOR, all -1 vs one -1 replaced by 1). Only d / s matters, so
Poisson with s = 1 and WOR with s = 2 have the same curves (the spec's "distance/scale = 1").

* remove: delta_R(eps) = H_{e^eps}(A^k || B^k) = E[(1 - e^{eps - L_1 - ... - L_k})_+],
  L_i iid ln(A/B)(Y), Y ~ A.
* add:    delta_A(eps) = H_{e^eps}(B^k || A^k), L_i iid ln(B/A)(Y), Y ~ B.

The single-step PLD has two atoms (y <= 0 and y >= d, where the Laplace ratio is constant):
for add they sit at -ln(1 - q + q e^{-d/s}) (mass 1/2; = -ln(0.1 + 0.9/e) at q = 0.9,
d/s = 1, the ICLR text's atom) and -ln(1 - q + q e^{d/s}) (mass e^{-d/s}/2).

Exact curves: k = 1 in closed form (pairs.SubsampledPair.hockey_stick); k = 2 by conditioning on
the first loss, delta_2(eps) = E_{L_1}[delta_1(eps - L_1)], atoms exactly plus scipy.integrate.quad
over the continuous part (break points at the kinks of delta_1). Monte Carlo for any k
(Appendix B.2): N = ceil(ln(2|E|/beta) / (2 alpha^2)) draws make every estimate in the grid E
alpha-accurate with probability >= 1 - beta (Hoeffding: each term lies in [0, 1]; union bound
over E and the two tails).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpsampling import DIRECTIONS
from dpsampling.lazy import lazy_import
from dpsampling.papers.lebeda24.pairs import SubsampledPair
from dpsampling.papers.lebeda24.subsampled import check_relation, check_sampler, sampler_distance
from dpsampling.validation import check_array, check_int_at_least, check_open_unit, check_positive, check_rate

integrate = lazy_import("scipy.integrate")  # loaded by the first k = 2 quadrature (~0.1 CPU s)

CHUNK = 1 << 20


def laplace_pair(sampler: str, laplace_scale: float, rate: float) -> SubsampledPair:
    """The single-step dominating pair for ``sampler`` (distance 1 Poisson, 2 WOR)."""
    check_sampler(sampler)
    return SubsampledPair("laplace", laplace_scale, rate, sampler_distance(sampler))


def monte_carlo_sample_size(alpha: float, beta: float, n_epsilons: int) -> int:
    """N = ceil(ln(2 |E| / beta) / (2 alpha^2)) (Appendix B.2, Hoeffding + union bound)."""
    alpha = check_open_unit("alpha", alpha)
    beta = check_open_unit("beta", beta)
    n_epsilons = check_int_at_least("n_epsilons", n_epsilons, 1)
    return math.ceil(math.log(2 * n_epsilons / beta) / (2 * alpha * alpha))


def hoeffding_alpha(n_samples: int, beta: float, n_epsilons: int) -> float:
    """The alpha that N samples guarantee simultaneously over |E| epsilons w.p. 1 - beta."""
    n_samples = check_int_at_least("n_samples", n_samples, 1)
    beta = check_open_unit("beta", beta)
    n_epsilons = check_int_at_least("n_epsilons", n_epsilons, 1)
    return math.sqrt(math.log(2 * n_epsilons / beta) / (2 * n_samples))


def _check_common(sampler, relation, laplace_scale, rate, compositions):
    check_sampler(sampler)
    check_relation(relation, "laplace", sampler)
    check_positive("laplace_scale", laplace_scale)
    check_rate("sampling_rate", rate)
    return check_int_at_least("compositions", compositions, 1)


def sample_privacy_loss(
    sampler: str,
    relation: str,
    laplace_scale: float,
    rate: float,
    compositions: int,
    n_samples: int,
    seed: int | np.random.SeedSequence = 0,
) -> np.ndarray:
    """``n_samples`` draws of the k-fold privacy loss L_1 + ... + L_k of ``relation``.

    relation "remove": L_i = ln(A/B)(Y_i), Y_i ~ A; "add": L_i = ln(B/A)(Y_i), Y_i ~ B.
    Drawn in chunks of 2^20 from numpy's PCG64 seeded by ``numpy.random.SeedSequence(seed)``
    (one child sequence per chunk, so the result does not depend on memory layout).
    """
    k = _check_common(sampler, relation, laplace_scale, rate, compositions)
    n_samples = check_int_at_least("n_samples", n_samples, 1)
    pair = laplace_pair(sampler, laplace_scale, rate)
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    n_chunks = -(-n_samples // CHUNK)
    out = np.empty(n_samples)
    for i, child in enumerate(root.spawn(n_chunks)):
        rng = np.random.default_rng(child)
        start, stop = i * CHUNK, min(n_samples, (i + 1) * CHUNK)
        total = np.zeros(stop - start)
        for _ in range(k):
            total += pair.sample_loss(rng, stop - start, relation)
        out[start:stop] = total
    return out


def loss_samples_frame(samples: np.ndarray) -> pd.DataFrame:
    """The samples as a one-column DataFrame (``privacy_loss``) for dpsampling.io.write_table."""
    return pd.DataFrame({"privacy_loss": np.asarray(samples, dtype=float)})


def delta_from_loss_samples(
    samples, epsilons, alpha: float | None = None, beta: float = 0.01
) -> pd.DataFrame:
    """Monte Carlo delta(eps) = mean(max(0, 1 - e^{eps - L_i})) at every eps, with its band.

    ``alpha`` defaults to hoeffding_alpha(N, beta, |E|); the columns ``delta_mc_low`` and
    ``delta_mc_high`` are delta_mc -/+ alpha clipped to [0, 1]: with probability >= 1 - beta
    the true curve lies inside the band at every eps of the grid simultaneously.
    """
    samples = np.asarray(samples, dtype=float)
    if samples.ndim != 1 or samples.size == 0:
        raise ValueError(f"samples must be a non-empty 1-d array; got shape {samples.shape}")
    eps = check_array("epsilon", epsilons, lambda n, v: float(v) if math.isfinite(float(v)) else check_positive(n, v))
    if alpha is None:
        alpha = hoeffding_alpha(samples.size, beta, eps.size)
    else:
        alpha = check_open_unit("alpha", alpha)
    estimates = np.zeros(eps.size)
    for start in range(0, samples.size, CHUNK):
        block = samples[start : start + CHUNK]
        for j, e in enumerate(eps):
            estimates[j] += np.maximum(0.0, -np.expm1(e - block)).sum()
    estimates /= samples.size
    return pd.DataFrame(
        {
            "epsilon": eps,
            "delta_mc": estimates,
            "delta_mc_low": np.clip(estimates - alpha, 0.0, 1.0),
            "delta_mc_high": np.clip(estimates + alpha, 0.0, 1.0),
            "alpha": alpha,
            "beta": beta,
            "n_samples": samples.size,
        }
    )


def empirical_pld_cdf(samples, values) -> np.ndarray:
    """P(L <= t) of the loss samples at each t (to plot the composed PLDs' CDFs)."""
    sorted_samples = np.sort(np.asarray(samples, dtype=float))
    return np.searchsorted(sorted_samples, np.asarray(values, dtype=float), side="right") / sorted_samples.size


def _two_fold_delta(pair: SubsampledPair, first: str, second: str, eps: float) -> float:
    """E_{L_1 ~ PLD(first)}[delta_second(eps - L_1)] (exact up to quad's tolerance)."""
    atoms, (y_low, y_high, loss, pdf) = pair.pld_parts(first)
    second_atoms, _ = pair.pld_parts(second)

    def one(e):
        return float(pair.hockey_stick(e, second)[0])

    total = sum(mass * one(eps - value) for value, mass in atoms)
    # kinks of delta_second at its atoms: eps - loss(y) = atom value
    lo, hi = pair.loss_range
    points = []
    for value, _ in second_atoms:
        t = eps - value  # loss(y) = t; loss = +-ln(A/B)
        t_remove = t if first == "remove" else -t
        if lo < t_remove < hi:
            points.append(pair.loss_inverse(t_remove))
    points = sorted(p for p in points if y_low < p < y_high)
    edges = [y_low, *points, y_high]
    for a, b in zip(edges[:-1], edges[1:]):
        value, _ = integrate.quad(lambda y: one(eps - float(loss(y))) * float(pdf(y)), a, b,
                                  epsabs=1e-13, epsrel=1e-10, limit=200)
        total += value
    return float(min(1.0, max(0.0, total)))


def exact_delta(
    epsilons, sampler: str, relation: str, laplace_scale: float, rate: float, compositions: int
) -> np.ndarray:
    """Exact delta_relation(eps) for k = 1 (closed form) or k = 2 (atoms + quad)."""
    k = _check_common(sampler, relation, laplace_scale, rate, compositions)
    if k > 2:
        raise ValueError(f"compositions must be 1 or 2 for the exact computation; got {k}")
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    pair = laplace_pair(sampler, laplace_scale, rate)
    if k == 1:
        return pair.hockey_stick(eps, relation)
    return np.array([_two_fold_delta(pair, relation, relation, float(e)) for e in eps])


def exact_curves(epsilons, sampler: str, laplace_scale: float, rate: float, compositions: int) -> pd.DataFrame:
    """Both directions' exact curves (k <= 2): delta_remove, delta_add, delta (their max)."""
    frame = pd.DataFrame({"epsilon": np.atleast_1d(np.asarray(epsilons, dtype=float))})
    for direction in DIRECTIONS:
        frame[f"delta_{direction}"] = exact_delta(
            frame["epsilon"], sampler, direction, laplace_scale, rate, compositions
        )
    frame["delta"] = np.maximum(frame["delta_remove"], frame["delta_add"])
    return frame


def exact_pld_cdf(values, sampler: str, relation: str, laplace_scale: float, rate: float) -> np.ndarray:
    """P(L <= t) of the single-step PLD (ICLR Fig. 2), atoms included (right-continuous)."""
    _check_common(sampler, relation, laplace_scale, rate, 1)
    return laplace_pair(sampler, laplace_scale, rate).pld_cdf(values, relation)


def pld_atoms(sampler: str, relation: str, laplace_scale: float, rate: float) -> list[tuple[float, float]]:
    """The single-step PLD's atoms as (loss value, probability)."""
    _check_common(sampler, relation, laplace_scale, rate, 1)
    atoms, _ = laplace_pair(sampler, laplace_scale, rate).pld_parts(relation)
    return atoms


def crossings(epsilons, delta_remove, delta_add) -> np.ndarray:
    """The eps grid points after which sign(delta_remove - delta_add) changes."""
    eps = np.asarray(epsilons, dtype=float)
    diff = np.asarray(delta_remove, dtype=float) - np.asarray(delta_add, dtype=float)
    sign = np.sign(diff)
    idx = np.nonzero(sign[:-1] * sign[1:] < 0)[0]
    return eps[idx]
