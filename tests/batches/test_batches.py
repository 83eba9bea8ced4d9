"""Batch generators: exact properties, and statistical tests of their laws.

Every statistical test is a chi-square goodness-of-fit test against the exact law, with the
rejection threshold at p < 1e-6: its false-failure probability is at most ~1e-6 (asymptotic
chi-square; every cell has expected count >= 50). Seeds are fixed, so the suite never flakes.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpsampling import batches
from dpsampling.accountants.closed_form.truncation import max_batch_size, truncation_delta
from dpsampling.batches import generators

P_REJECT = 1e-6


def _chi_square_pvalue(observed: dict, expected_probability: dict, draws: int) -> float:
    keys = sorted(expected_probability, key=repr)
    assert set(observed) <= set(keys), f"impossible outcomes: {set(observed) - set(keys)}"
    f_obs = np.array([observed.get(k, 0) for k in keys], dtype=float)
    f_exp = np.array([expected_probability[k] for k in keys]) * draws
    assert f_exp.min() >= 50, "too few draws for the chi-square approximation"
    return stats.chisquare(f_obs, f_exp).pvalue


def _merge_rare_cells(counts: dict, law: dict, draws: int) -> None:
    """Pool cells with expected count < 110 into one cell "rare" (in place), so every cell has >= 50."""
    rare = [k for k, p in law.items() if p * draws < 110]
    if rare:
        law["rare"] = sum(law.pop(k) for k in rare)
        counts["rare"] = sum(counts.pop(k, 0) for k in rare)


def _assignment(plan):
    """For one-batch-per-example plans: the batch of each example, as a tuple."""
    where = np.empty(plan.n, dtype=int)
    for t, batch in enumerate(plan):
        where[batch] = t
    return tuple(where)


def test_group_by_bin_kernel_matches_numpy_stable_argsort():
    rng = np.random.default_rng(0)
    for n, steps in [(1, 1), (10, 3), (1000, 17), (5000, 1)]:
        bins = rng.integers(0, steps, size=n)
        order, offsets = generators._group_by_bin(bins, steps)
        np.testing.assert_array_equal(order, np.argsort(bins, kind="stable"))
        np.testing.assert_array_equal(offsets, np.concatenate([[0], np.cumsum(np.bincount(bins, minlength=steps))]))


@pytest.mark.parametrize("generator", ["deterministic", "shuffle", "balls_and_bins", "balls_and_bins_sequential"])
def test_one_epoch_uses_every_example_exactly_once(generator):
    for seed in range(20):
        plan = batches.make_batches(generator, 1003, 10, seed=seed)
        assert plan.steps == 10
        np.testing.assert_array_equal(np.sort(plan.indices), np.arange(1003))


def test_deterministic_and_shuffle_batch_sizes_differ_by_at_most_one():
    for generator in ("deterministic", "shuffle"):
        sizes = batches.make_batches(generator, 1003, 10, seed=1).sizes
        assert sizes.max() - sizes.min() <= 1 and sizes.sum() == 1003


@pytest.mark.parametrize("generator", ["balls_and_bins", "balls_and_bins_sequential"])
def test_balls_and_bins_assignments_are_uniform_and_independent(generator):
    """n = 4 examples, T = 2 bins: all 16 assignments equally likely (so batch sizes are multinomial
    and the two constructions have the same law, batches included)."""
    n, steps, draws = 4, 2, 16_000
    rng = np.random.default_rng(11)
    counts: dict = {}
    for _ in range(draws):
        key = _assignment(batches.make_batches(generator, n, steps, seed=rng))
        counts[key] = counts.get(key, 0) + 1
    law = {key: 1 / steps**n for key in itertools.product(range(steps), repeat=n)}
    assert _chi_square_pvalue(counts, law, draws) > P_REJECT


@pytest.mark.parametrize("generator", ["balls_and_bins", "balls_and_bins_sequential"])
def test_balls_and_bins_sizes_follow_the_multinomial_law(generator):
    n, steps, draws = 6, 3, 20_000
    rng = np.random.default_rng(12)
    counts: dict = {}
    for _ in range(draws):
        key = tuple(batches.make_batches(generator, n, steps, seed=rng).sizes)
        counts[key] = counts.get(key, 0) + 1
    law = {}
    for sizes in itertools.product(range(n + 1), repeat=steps):
        if sum(sizes) == n:
            law[sizes] = stats.multinomial.pmf(sizes, n, [1 / steps] * steps)
    _merge_rare_cells(counts, law, draws)
    assert _chi_square_pvalue(counts, law, draws) > P_REJECT


def test_poisson_inclusions_are_independent_with_the_right_rate():
    """n = 3 examples, rate 0.3, 2 steps: the 2^6 inclusion patterns have probability q^k (1-q)^(6-k)."""
    n, steps, rate, draws = 3, 2, 0.3, 60_000
    rng = np.random.default_rng(13)
    counts: dict = {}
    for _ in range(draws):
        plan = batches.poisson_batches(n, steps, seed=rng, rate=rate)
        pattern = tuple(int(i in set(batch.tolist())) for batch in plan for i in range(n))
        counts[pattern] = counts.get(pattern, 0) + 1
    law = {p: rate ** sum(p) * (1 - rate) ** (len(p) - sum(p)) for p in itertools.product((0, 1), repeat=n * steps)}
    _merge_rare_cells(counts, law, draws)
    assert _chi_square_pvalue(counts, law, draws) > P_REJECT


def test_wor_batches_have_fixed_size_and_uniform_subsets():
    n, b, draws = 5, 2, 20_000
    rng = np.random.default_rng(14)
    counts: dict = {}
    for _ in range(draws // 2):
        plan = batches.wor_batches(n, 2, b, seed=rng)
        assert set(plan.sizes) == {b}
        for batch in plan:
            key = tuple(sorted(batch.tolist()))
            counts[key] = counts.get(key, 0) + 1
    law = {key: 1 / math.comb(n, b) for key in itertools.combinations(range(n), b)}
    assert _chi_square_pvalue(counts, law, draws) > P_REJECT


def test_truncated_batch_is_a_uniform_subset_and_padding_has_zero_weight():
    rng = np.random.default_rng(15)
    batch, limit, draws = np.array([10, 11, 12, 13, 14]), 3, 20_000
    counts: dict = {}
    for _ in range(draws):
        indices, weights = batches.pad_or_truncate(batch, limit, seed=rng)
        assert weights.tolist() == [1.0] * limit
        key = tuple(indices.tolist())
        counts[key] = counts.get(key, 0) + 1
    law = {key: 1 / math.comb(5, 3) for key in itertools.combinations(batch.tolist(), 3)}
    assert _chi_square_pvalue(counts, law, draws) > P_REJECT
    indices, weights = batches.pad_or_truncate(np.array([7, 8]), 4)
    assert indices.tolist() == [7, 8, -1, -1] and weights.tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize("call, message", [
    (lambda: batches.make_batches("uniform", 10, 2), "generator must be one of"),
    (lambda: batches.shuffle_batches(0, 1), "n must be an integer >= 1; got 0"),
    (lambda: batches.shuffle_batches(10, 11), "steps must be at most n = 10"),
    (lambda: batches.wor_batches(10, 2, 11), "batch_size must be at most the dataset size n = 10; got 11"),
    (lambda: batches.poisson_batches(10, 2, rate=1.5), "sampling_rate must be in (0, 1]; got 1.5"),
    (lambda: batches.pad_or_truncate(np.arange(3), 0), "max_batch_size must be an integer >= 1; got 0"),
])
def test_bad_inputs(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert message in str(error.value)


def test_truncation_delta_and_max_batch_size():
    n, b, steps = 100_000, 100, 1000
    size = max_batch_size(n, b, steps, epsilon=10.0, delta_target=1e-10)
    assert truncation_delta(n, b, size, steps, 10.0) <= 1e-10 < truncation_delta(n, b, size - 1, steps, 10.0)
    exact_tail = stats.binom.sf(size, n, b / n)
    assert truncation_delta(n, b, size, steps, 10.0) == pytest.approx((1 + math.exp(10)) * steps * exact_tail, rel=1e-9)
