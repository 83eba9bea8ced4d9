"""The kernels' random variates and normal quantile against SciPy and mpmath.

Statistical checks are seeded (deterministic outcome) and each fails by chance with
probability ALPHA = 1e-4 for a random seed (KS and chi-square p-values are uniform under the
null); with 24 such checks the file's false-failure probability is below 3e-3.
"""

import math
import os
import subprocess
import sys

import mpmath
import numpy as np
import pytest
from numba import njit
from scipy import stats
from scipy.special import log_ndtr, ndtri, ndtri_exp

from dpsampling.accountants.ballsbins import _kernels, _random, _special
from dpsampling.accountants.ballsbins import sample_importance_losses as sample_importance
from dpsampling.accountants.ballsbins import sample_importance_order_statistics_losses as sample_importance_os

ALPHA = 1e-4


def _state(seed):
    return np.random.SeedSequence(seed).generate_state(4, np.uint64)


@njit
def _normals(state, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = _random.standard_normal(state)
    return out


@njit
def _gammas(state, shape, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = _random.standard_gamma(state, shape)
    return out


@njit
def _truncated(state, threshold, log_cdf, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = _random.truncated_normal_below(state, threshold, log_cdf)
    return out


@njit
def _order_terms(state, orders, draws, log_weights, log_cdf_bound, n):
    """n draws of log sum_i exp(log_weights[i] + y(k_i)) (sigma = 1)."""
    out = np.empty(n)
    scratch = np.empty((2, orders.shape[0]))
    for i in range(n):
        top, total = _kernels._accumulate_orders(state, orders, log_weights, draws, log_cdf_bound,
                                                  1.0, scratch, (-np.inf, 0.0))
        out[i] = top + math.log(total)
    return out


def test_ziggurat_tables_have_equal_layers():
    x, f = _random._ZIGGURAT_X, _random._ZIGGURAT_F
    v, r = _random.ZIGGURAT_V, _random.ZIGGURAT_R
    assert x.size == 257 and x[-1] == 0.0 and f[-1] == 1.0 and f[0] == 0.0
    assert np.all(np.diff(x) < 0) and np.all(np.diff(f) > 0)
    np.testing.assert_allclose(f[1:-1], np.exp(-0.5 * x[1:-1] ** 2), rtol=1e-15)
    np.testing.assert_allclose(x[:-1] * np.diff(f), v, rtol=1e-12)  # every layer has area v
    tail = math.sqrt(math.pi / 2) * math.erfc(r / math.sqrt(2))
    assert v == pytest.approx(r * f[1] + tail, rel=1e-15)
    assert r == pytest.approx(3.6541528853610088, rel=1e-14)  # Marsaglia and Tsang's r


def test_standard_normal_matches_scipy():
    draws = _normals(_state(1), 2_000_000)
    assert stats.kstest(draws, stats.norm.cdf).pvalue > ALPHA
    # chi-square on bins that separate the ziggurat regions: |x| beyond r (tail algorithm),
    # the wedge region of the outer layers, and 200 equiprobable central bins
    r = _random.ZIGGURAT_R
    edges = np.concatenate([[-np.inf, -4.5, -r, -3.0], stats.norm.ppf(np.linspace(0.0015, 0.9985, 201)),
                            [3.0, r, 4.5, np.inf]])
    observed = np.histogram(draws, edges)[0]
    expected = draws.size * np.diff(stats.norm.cdf(edges))
    assert stats.chisquare(observed, expected).pvalue > ALPHA
    # the tail sampler alone: |Z| given |Z| > r
    state = _state(3)
    tail = np.array([_random._normal_tail(state, r) for _ in range(20000)])
    assert stats.kstest(tail, stats.truncnorm(r, np.inf).cdf).pvalue > ALPHA


@pytest.mark.parametrize("shape", [1.0, 2.0, 10.0, 1000.0, 99_000.0])
def test_standard_gamma_matches_scipy(shape):
    draws = _gammas(_state(4), shape, 200_000)
    assert stats.kstest(draws, stats.gamma(shape).cdf).pvalue > ALPHA


@pytest.mark.parametrize("threshold", [2.0, 0.0, -0.5, -0.8, -5.0, -45.0])
def test_truncated_normal_below(threshold):
    """Rejection (Phi(c) >= 1/4: c >= -0.674) and inverse CDF (below), far tail included:
    Phi(w) / Phi(c) must be uniform, i.e. log Phi(c) - log Phi(w) ~ Exp(1) (scipy's log_ndtr)."""
    log_cdf = float(log_ndtr(threshold))
    draws = _truncated(_state(5), threshold, log_cdf, 100_000)
    assert draws.max() <= threshold
    assert stats.kstest(log_cdf - log_ndtr(draws), stats.expon.cdf).pvalue > ALPHA


def test_normal_quantile_matches_scipy_and_mpmath():
    rng = np.random.default_rng(6)
    p = np.concatenate([rng.uniform(0, 1, 20000), 10.0 ** rng.uniform(-300, -1, 20000),
                        1 - 10.0 ** rng.uniform(-16, -1, 20000), [0.075, 0.5, 0.925, 1e-300]])
    ours = np.array([_special.normal_quantile(x) for x in p])
    np.testing.assert_allclose(ours, ndtri(p), rtol=5e-15, atol=1e-300)
    # scipy's ndtri_exp is itself accurate to ~1e-15 down to log p ~ -700
    log_p = np.concatenate([-(10.0 ** rng.uniform(-17, np.log10(700), 30000)),
                            np.log(rng.uniform(0, 1, 10000)), [np.log(0.5), np.log(0.075)]])
    ours = np.array([_special.normal_quantile_from_log_cdf(x) for x in log_p])
    np.testing.assert_allclose(ours, ndtri_exp(log_p), rtol=5e-14, atol=1e-300)
    # against 40-digit mpmath, far tail (asymptotic-series Newton branch) included; AS 241 is
    # accurate to about 1e-16, plus a few roundings in its evaluation
    mpmath.mp.dps = 40
    for log_value in [-1e-12, -0.3, -0.7, -3.0, -40.0, -650.0, -676.5, -700.0, -745.0, -2e3, -1e5, -1e8]:
        exact = mpmath.findroot(lambda x, log_value=log_value: mpmath.log(mpmath.ncdf(x)) - log_value,
                                float(ndtri_exp(log_value)))
        assert _special.normal_quantile_from_log_cdf(log_value) == pytest.approx(float(exact), rel=4e-15)
    assert _special.normal_quantile_from_log_cdf(0.0) == math.inf
    assert _special.normal_quantile_from_log_cdf(-math.inf) == -math.inf


@pytest.mark.parametrize("log_cdf_bound", [0.0, math.log(0.3), math.log(1 - 1e-9)])
def test_order_statistics_by_spacings_match_sorting(log_cdf_bound):
    """Single orders (weights -inf elsewhere) and a pair, of R = 30 normals conditioned on
    Phi(w) <= u0, against sorted numpy draws; both branches (survival <= 1/2 or not) occur."""
    draws, orders, n = 30, np.array([1, 2, 7, 20, 30]), 40_000
    rng = np.random.default_rng(7)
    u0 = math.exp(log_cdf_bound)
    sorted_rows = -np.sort(-ndtri(u0 * rng.uniform(size=(n, draws))), axis=1)
    for keep in ([0], [2], [3], [4], [1, 3]):
        log_weights = np.full(orders.size, -1e4)  # exp(-1e4) = 0: drops the term
        log_weights[keep] = 0.0
        fast = _order_terms(_state(8 + keep[0]), orders, draws, log_weights, log_cdf_bound, n)
        slow = np.logaddexp.reduce(sorted_rows[:, orders[keep] - 1], axis=1)
        assert stats.ks_2samp(fast, slow).pvalue > ALPHA, keep


def test_order_statistics_marginals_match_beta_law():
    """Phi(y(k)) of the k-th largest of R draws is Beta(R - k + 1, k) (Fact B.2), here for
    R = 99,999 and orders of chua25 Fig. 4 left."""
    draws, orders = 99_999, np.array([1, 400, 1100, 50_000])
    for j, k in enumerate(orders):
        log_weights = np.full(orders.size, -1e4)  # exp(-1e4) = 0: drops the term
        log_weights[j] = 0.0
        y = _order_terms(_state(20 + j), orders, draws, log_weights, 0.0, 20_000)
        # the survival 1 - Phi(y(k)) is the k-th smallest of R uniforms: Beta(k, R - k + 1)
        assert stats.kstest(stats.norm.sf(y), stats.beta(k, draws - k + 1).cdf).pvalue > ALPHA, k


def test_kernels_cache_key_covers_their_dependencies():
    """Numba's cache only checks the kernel's own file; the kernels close over a hash of the
    modules they call, which is part of Numba's cache key."""
    stamp = _kernels.source_stamp(_random, _special)
    assert stamp == _kernels.DEPENDENCY_STAMP >= 0
    for kernel in (_kernels.coordinate_kernel, _kernels.order_statistics_kernel):
        cells = [c.cell_contents for c in kernel.py_func.__closure__]
        assert cells == [stamp]


def test_importance_order_statistics_kernel_dominates_importance_sampling():
    """App. B.3: with the same importance event, the order-statistics bound is >= the exact loss,
    so the kernel's B.3 losses are stochastically larger than the importance kernel's (one-sided
    KS, false failure 1e-4 if the laws were equal), and equal in law with every order kept."""
    sigma, steps, eps = 0.6, 8, 1.0
    exact = sample_importance(sigma, steps, 20000, "remove", eps, seed=31).losses
    partial = sample_importance_os(sigma, steps, 20000, "remove", np.array([1, 3, 6]), eps, seed=32).losses
    full = sample_importance_os(sigma, steps, 20000, "remove", np.arange(1, steps), eps, seed=33).losses
    assert stats.ks_2samp(partial, exact, alternative="greater").pvalue > ALPHA
    assert stats.ks_2samp(full, exact).pvalue > ALPHA


def test_source_stamp_recompiles_when_a_called_module_changes(tmp_path):
    """The mechanism of _kernels on a toy: a cached kernel in main.py calling dep.py."""
    (tmp_path / "dep.py").write_text("from numba import njit\n\n@njit\ndef value():\n    return 1\n")
    (tmp_path / "main.py").write_text(
        "import dep\nfrom numba import njit\nfrom dpsampling.accountants.ballsbins._kernels import source_stamp\n\n"
        "def build(stamp):\n    @njit(cache=True)\n    def kernel():\n        if stamp < 0:\n"
        "            return -1\n        return dep.value()\n    return kernel\n\n"
        "print(build(source_stamp(dep))())\n")
    cache = tmp_path / "cache"
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}

    def run():
        result = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, env=environment,
                                capture_output=True, text=True, check=True)
        return result.stdout.strip()

    assert run() == "1"
    assert any(cache.rglob("*.nbi"))  # the kernel was cached
    (tmp_path / "dep.py").write_text("from numba import njit\n\n@njit\ndef value():\n    return 2\n")
    assert run() == "2"
