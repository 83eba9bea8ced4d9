"""The statistical tests of the audit, each with a null distribution that is exact or conservative.

Every function takes plain arrays and returns a p-value: the probability, under the sampler the
test is for, of a statistic at least as extreme. The audit rejects at alpha / k (Bonferroni over
the k tests of its branch), so its false-alarm rate is at most alpha wherever the p-values are
valid; "approx." marks a chi-square approximation (expected counts of at least 5 in every cell
it is used on, checked here), the others are bounds that hold at every sample size.

- ``independence``: Pearson's chi-square of a G x G contingency table of two labels of the same
  examples (approx.: chi^2 with (G - 1)^2 degrees of freedom given the margins);
- ``equal_counts``: Pearson's dispersion of per-example counts against equal rates, upper tail
  of chi^2(n - 1). Conservative for Poisson (independent Bin(S, q) counts: the statistic is
  (1 - q) times an approx. chi^2(n - 1)) and for fixed-size draws (each step a uniform b-subset:
  Var C_i = S (b/n)(1 - b/n), the same factor);
- ``multinomial_sizes`` / ``binomial_sizes``: batch sizes against Multinomial(m, 1/T) (balls and
  bins; approx. chi^2(T - 1) per epoch, summed over epochs) and iid Bin(n, q) (Poisson; the
  index of dispersion sum (s_t - mean)^2 / (n q (1 - q)), approx. chi^2(S - 1)); two-sided;
- ``overlap``: the sum O of |B_t cap B_{t+1}| over disjoint pairs (t, t + 1). For batches that are
  uniform subsets given their sizes, independent across steps (Poisson, fixed size without
  replacement), each overlap is hypergeometric with mean s_t s_{t+1} / n, which is dominated in
  convex order by a binomial (Hoeffding 1963), so E exp(lambda O) <= exp(mu (e^lambda - 1)) with
  mu = sum s_t s_{t+1} / n and both Chernoff tails exp(-mu h(O / mu - 1)), h(x) = (1 + x) log(1 + x)
  - x, are valid (conservative) p-values;
- ``never_drawn_binomial``: the number N of examples never drawn against Bin(n, p0), p0 the chance
  an example is missed at the pooled rate, by the Chernoff bound exp(-n KL(N / n || p0)) (valid for
  independent and for negatively associated indicators: Poisson and fixed-size draws);
- ``never_drawn_partition``: m examples missing from every one of E epochs that each leave out a
  uniform r_e-subset (a shuffle with drop_last): the union bound C(n, m) prod_e C(r_e, m) / C(n, m).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

MIN_EXPECTED = 5.0
"""The smallest expected count per cell where a chi-square approximation is used."""
MAX_GROUPS = 16


def groups_for(n: int, labels: int) -> int:
    """G for a G x G table of n examples: expected counts n / G^2 >= MIN_EXPECTED, G <= labels."""
    return int(max(1, min(MAX_GROUPS, labels, math.floor(math.sqrt(n / MIN_EXPECTED)))))


def independence(first: np.ndarray, second: np.ndarray, groups: int) -> float:
    """p-value of independence of two labels in [0, groups) of the same examples (approx.)."""
    if groups < 2 or first.size == 0:
        return 1.0
    table = np.bincount(first * groups + second, minlength=groups * groups).reshape(groups, groups).astype(float)
    rows, columns = table.sum(1), table.sum(0)
    keep_r, keep_c = rows > 0, columns > 0
    table = table[np.ix_(keep_r, keep_c)]
    if min(table.shape) < 2:
        return 1.0
    expected = np.outer(table.sum(1), table.sum(0)) / table.sum()
    statistic = float(((table - expected) ** 2 / expected).sum())
    return float(stats.chi2.sf(statistic, (table.shape[0] - 1) * (table.shape[1] - 1)))


def equal_counts(counts: np.ndarray) -> float:
    """Upper-tail p-value of Pearson's dispersion of ``counts`` around their mean (module docstring)."""
    mean = counts.mean()
    if counts.size < 2 or mean == 0:
        return 1.0
    statistic = float(((counts - mean) ** 2).sum() / mean)
    return float(stats.chi2.sf(statistic, counts.size - 1))


def _two_sided(statistic: float, df: int) -> float:
    return float(min(1.0, 2.0 * min(stats.chi2.sf(statistic, df), stats.chi2.cdf(statistic, df))))


def multinomial_sizes(sizes_per_epoch: list) -> float:
    """Two-sided p-value of batch sizes against Multinomial(m_e, 1/T_e) in every epoch (approx.)."""
    statistic, df = 0.0, 0
    for sizes in sizes_per_epoch:
        if len(sizes) < 2:
            continue
        expected = sizes.sum() / len(sizes)
        if expected <= 0:
            continue
        statistic += float(((sizes - expected) ** 2).sum() / expected)
        df += len(sizes) - 1
    return 1.0 if df == 0 else _two_sided(statistic, df)


def binomial_sizes(sizes: np.ndarray, n: int) -> float:
    """Two-sided p-value of batch sizes against iid Bin(n, q), q estimated (approx.)."""
    if sizes.size < 2:
        return 1.0
    rate = sizes.mean() / n
    if rate <= 0 or rate >= 1:
        return 1.0 if np.all(sizes == sizes[0]) else 0.0
    statistic = float(((sizes - sizes.mean()) ** 2).sum() / (n * rate * (1 - rate)))
    return _two_sided(statistic, sizes.size - 1)


def _h(x: float) -> float:
    return (1 + x) * math.log1p(x) - x if x > -1 else 1.0


def chernoff_two_sided(observed: float, mean: float) -> float:
    """2 exp(-mean h(observed / mean - 1)), the two Chernoff tails of a sum of Bernoullis (or of
    anything its moment generating function dominates) of total ``mean``."""
    if mean <= 0:
        return 1.0 if observed == 0 else 0.0
    return float(min(1.0, 2.0 * math.exp(-mean * _h(observed / mean - 1.0))))


def overlap(indices: np.ndarray, offsets: np.ndarray, n: int) -> tuple[float, float, float]:
    """(O, mu, p-value) of the overlaps of disjoint consecutive pairs of batches (module docstring)."""
    steps = len(offsets) - 1
    pairs = steps // 2
    if pairs == 0:
        return 0.0, 0.0, 1.0
    sizes = np.diff(offsets)
    end = offsets[2 * pairs]
    pair_of = np.repeat(np.arange(steps, dtype=np.int64) // 2, sizes)[:end]
    keys = np.sort(pair_of * n + indices[:end])
    observed = float(np.count_nonzero(keys[1:] == keys[:-1]))
    mean = float((sizes[0:2 * pairs:2] * sizes[1:2 * pairs:2]).sum() / n)
    return observed, mean, chernoff_two_sided(observed, mean)


def never_drawn_binomial(missing: int, n: int, p0: float) -> float:
    """Upper-tail Chernoff p-value of ``missing`` examples never drawn when each is missed with
    probability ``p0`` (module docstring)."""
    x = missing / n
    if x <= p0:
        return 1.0
    if p0 <= 0:
        return 0.0
    kl = x * math.log(x / p0) + ((1 - x) * math.log((1 - x) / (1 - p0)) if x < 1 else 0.0)
    return float(min(1.0, math.exp(-n * kl)))


def never_drawn_partition(missing: int, n: int, left_out: list) -> float:
    """Union bound on ``missing`` examples left out of every epoch (module docstring)."""
    if missing == 0:
        return 1.0
    if any(r < missing for r in left_out):
        return 0.0
    log_choose = lambda a, b: special.gammaln(a + 1) - special.gammaln(b + 1) - special.gammaln(a - b + 1)  # noqa: E731
    log_p = log_choose(n, missing) + sum(log_choose(r, missing) - log_choose(n, missing) for r in left_out)
    return float(min(1.0, math.exp(log_p)))


def rate_upper(count: int, trials: int, alpha: float) -> float:
    """Clopper-Pearson upper confidence bound (level 1 - alpha) on a Bin(trials, q) rate."""
    if count >= trials:
        return 1.0
    return float(stats.beta.ppf(1.0 - alpha, count + 1, trials - count))


__all__ = ["binomial_sizes", "chernoff_two_sided", "equal_counts", "groups_for", "independence",
           "multinomial_sizes", "never_drawn_binomial", "never_drawn_partition", "overlap", "rate_upper"]
