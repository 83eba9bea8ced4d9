"""Numba kernels against the plain-numpy references in naive_ballsbins.py.

The kernels use their own generator (xoshiro256**), so samples are compared in distribution
with two-sample Kolmogorov-Smirnov tests at fixed seeds. Under the null (same distribution)
the p-value is uniform, so each `p > 1e-4` check fails by chance with probability 1e-4; with
the seeds fixed the outcome is deterministic (it cannot flake), and the per-check false-failure
probability over a random choice of seeds is 1e-4 (below 2e-3 for the whole file).
"""

import math

import naive_ballsbins as ref
import numpy as np
import pytest
from scipy.stats import ks_2samp

from dpsampling.accountants import ballsbins as bb
from dpsampling.accountants.closed_form.gaussian import gaussian_delta

ALPHA = 1e-4
SIGMA, STEPS = 0.6, 12
ORDERS = np.array([1, 2, 3, 5, 8, 11])


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_naive_kernel_matches_reference(direction):
    fast = bb.sample_naive_losses(SIGMA, STEPS, 20000, direction, seed=11).losses
    slow = ref.naive_losses(SIGMA, STEPS, 20000, direction, np.random.default_rng(11))
    assert ks_2samp(fast, slow).pvalue > ALPHA


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_naive_kernel_epochs_match_reference(direction):
    fast = bb.sample_naive_losses(SIGMA, 5, 20000, direction, epochs=3, seed=12).losses
    slow = ref.naive_losses(SIGMA, 5, 20000, direction, np.random.default_rng(12), epochs=3)
    assert ks_2samp(fast, slow).pvalue > ALPHA


@pytest.mark.parametrize("direction,epsilon", [("remove", 1.5), ("add", 0.5), ("remove", 3.0)])
def test_importance_kernel_matches_rejection_sampling(direction, epsilon):
    fast = bb.sample_importance_losses(SIGMA, STEPS, 20000, direction, epsilon, seed=13)
    x, acceptance = ref.importance_coordinates(SIGMA, STEPS, 20000, direction, epsilon,
                                               np.random.default_rng(13))
    slow = ref.loss_from_coordinates(x, SIGMA, direction)
    assert ks_2samp(fast.losses, slow).pvalue > ALPHA
    # P(E) from the closed form vs the rejection rate (binomial; 5 standard errors,
    # false-failure probability < 1e-6).
    weight = math.exp(fast.log_weight)
    drawn = 20000 / acceptance
    assert abs(acceptance - weight) < 5 * math.sqrt(weight * (1 - weight) / drawn) + 1e-12


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_order_statistics_kernel_matches_sorting(direction):
    fast = bb.sample_order_statistics_losses(SIGMA, STEPS, 20000, direction, ORDERS, seed=14).losses
    x = ref.draw_coordinates(SIGMA, STEPS, 20000, direction, np.random.default_rng(14))
    slow = ref.order_statistics_bound(x, SIGMA, ORDERS, direction)
    assert ks_2samp(fast, slow).pvalue > ALPHA


@pytest.mark.parametrize("direction,epsilon", [("remove", 1.5), ("add", 0.5)])
def test_importance_order_statistics_kernel_matches_reference(direction, epsilon):
    fast = bb.sample_importance_order_statistics_losses(SIGMA, STEPS, 20000, direction, ORDERS,
                                                        epsilon, seed=15).losses
    x, _ = ref.importance_coordinates(SIGMA, STEPS, 20000, direction, epsilon,
                                      np.random.default_rng(15))
    slow = ref.importance_order_statistics_bound(x, SIGMA, ORDERS, direction)
    assert ks_2samp(fast, slow).pvalue > ALPHA


def test_full_order_list_is_exact_for_remove():
    """With every order 1..T-1 bound (4) (k_{r+1} = R + 1) is an equality: same law as naive."""
    full = np.arange(1, STEPS)
    x = ref.draw_coordinates(SIGMA, STEPS, 50, "remove", np.random.default_rng(16))
    np.testing.assert_allclose(ref.order_statistics_bound(x, SIGMA, full, "remove"),
                               ref.loss_from_coordinates(x, SIGMA, "remove"), rtol=1e-12)
    fast = bb.sample_order_statistics_losses(SIGMA, STEPS, 20000, "remove", full, seed=16).losses
    slow = ref.naive_losses(SIGMA, STEPS, 20000, "remove", np.random.default_rng(17))
    assert ks_2samp(fast, slow).pvalue > ALPHA


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_order_statistics_kernel_is_pessimistic_in_law(direction):
    """Bound (4)/(5) is >= the loss pointwise, so the kernel's order-statistics losses must be
    stochastically larger than the naive kernel's: a one-sided KS test of "order statistics are
    smaller somewhere" must not reject (false failure 1e-4 if both laws were equal)."""
    bound = bb.sample_order_statistics_losses(SIGMA, STEPS, 20000, direction, ORDERS, seed=18).losses
    exact = bb.sample_naive_losses(SIGMA, STEPS, 20000, direction, seed=19).losses
    assert ks_2samp(bound, exact, alternative="greater").pvalue > ALPHA
    # and the bound is not vacuous: its mean exceeds the naive one by less than 1 (in loss units)
    assert 0.0 <= bound.mean() - exact.mean() < 1.0


def test_loss_statistics_kernel_matches_numpy():
    losses = np.random.default_rng(19).normal(0.5, 1.0, 5000)
    eps = np.array([-1.0, 0.0, 0.7, 2.0, 5.0])
    estimate = bb.estimate_delta(losses, eps)
    z = ref.hockey_stick_terms(losses, eps)
    np.testing.assert_allclose(estimate.total, z.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(estimate.total_squares, (z**2).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(estimate.mean(), z.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(estimate.standard_error(), z.std(axis=0, ddof=1) / math.sqrt(5000),
                               rtol=1e-9)


def test_kl_upper_confidence_bound_matches_brentq():
    for mean, count, beta in [(0.0, 100, 0.05), (1e-6, 10**6, 1e-3), (0.3, 50, 0.1),
                              (0.999, 1000, 0.01), (1.0, 10, 0.1), (2e-9, 10**9, 1e-3)]:
        fast = float(bb.kl_upper_confidence_bound(mean, count, beta))
        slow = ref.kl_ucb(mean, count, beta)
        assert fast >= slow * (1 - 1e-12)
        assert fast == pytest.approx(slow, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("steps,sigma,eps", [(1, 0.7, 1.0), (5, 0.5, 2.0), (30, 0.8, 0.5), (30, 0.4, 4.0)])
def test_lower_bound_matches_brute_force(direction, steps, sigma, eps):
    fast = float(bb.lower_bound_delta(sigma, steps, [eps], direction)[0])
    slow = ref.lower_bound_grid(sigma, steps, eps, direction)
    assert fast >= slow * (1 - 1e-6) - 1e-15
    assert fast == pytest.approx(slow, rel=1e-4, abs=1e-14)


def test_gaussian_closed_form():
    eps = np.linspace(-1, 6, 15)
    np.testing.assert_allclose(gaussian_delta(eps, 0.9),
                               [ref.gaussian_delta(0.9, e) for e in eps], rtol=1e-10, atol=1e-300)


def test_shared_per_sample_functions_allocate_nothing_and_carry_no_signature():
    """The CUDA entry points call ``coordinate_loss`` and ``order_statistics_loss`` (and all they
    call), compiled for the device from their source: so no explicit signature (Numba then
    refuses to compile them for another target) and no heap allocation (the scratch comes in)."""
    from numba import njit

    from dpsampling.accountants.ballsbins import _kernels, _random, _special

    @njit
    def allocating(n):  # control: the marker below is what an allocation compiles to
        return np.ones(n).sum()

    law = bb.LossLaw("importance_order_statistics", SIGMA, STEPS, "remove", ORDERS, 0.5).checked()
    inputs = law.kernel_inputs()
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    loss = _kernels.order_statistics_loss(state, inputs["params"], inputs["settings"], inputs["orders"],
                                          inputs["log_weights"], np.empty((2, ORDERS.size)))
    assert math.isfinite(loss) and math.isfinite(_kernels.coordinate_loss(state, inputs["params"],
                                                                          inputs["settings"]))
    allocating(3)
    marker = "NRT_MemInfo_alloc"
    assert marker in allocating.inspect_llvm(allocating.signatures[0])
    for function in (_kernels.coordinate_loss, _kernels.order_statistics_loss):
        assert function.signatures and all(marker not in function.inspect_llvm(s) for s in function.signatures)
    shared = [getattr(module, name) for module in (_kernels, _random, _special) for name in dir(module)]
    shared = [f for f in shared if hasattr(f, "py_func") and not getattr(f, "targetoptions", {}).get("parallel")]
    assert len(shared) >= 15
    assert all(f._can_compile for f in shared)  # False exactly when a signature was given
