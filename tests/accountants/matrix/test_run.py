"""MatrixRun validation and the certified reductions to the face's Phase (docs/MATRIX.md)."""

import math

import numpy as np
import pytest

from dpsampling import Phase
from dpsampling.accountants.matrix import MatrixRun, certified_phases


def _same(a, b):
    return all(getattr(a, name) == getattr(b, name) for name in Phase.__slots__)


@pytest.mark.parametrize("arguments, name", [
    (dict(coefficients=[], sampler="balls_and_bins", sigma=1, steps=4, cycle_length=2), "coefficients"),
    (dict(coefficients=[1, -0.1], sampler="balls_and_bins", sigma=1, steps=4, cycle_length=2), "coefficients"),
    (dict(coefficients=[0, 1], sampler="balls_and_bins", sigma=1, steps=4, cycle_length=2), "coefficients"),
    (dict(coefficients=[1], sampler="poisson", sigma=1, steps=4), "sampler"),
    (dict(coefficients=[1], sampler="balls_and_bins", sigma=0, steps=4, cycle_length=2), "sigma"),
    (dict(coefficients=[1], sampler="balls_and_bins", sigma=1, steps=0, cycle_length=2), "steps"),
    (dict(coefficients=[1], sampler="balls_and_bins", sigma=1, steps=5, cycle_length=2), "steps"),
    (dict(coefficients=[1], sampler="balls_and_bins", sigma=1, steps=4), "cycle_length"),
    (dict(coefficients=[1], sampler="balls_and_bins", sigma=1, steps=4, cycle_length=2, sampling_rate=0.1),
     "sampling_rate"),
    (dict(coefficients=[1], sampler="cyclic_poisson", sigma=1, steps=4, cycle_length=2, sampling_rate=1.5),
     "sampling_rate"),
    (dict(coefficients=[1, 1, 1], sampler="b_min_sep", sigma=1, steps=4, min_separation=2, sampling_rate=0.1),
     "coefficients"),
    (dict(coefficients=[1], sampler="b_min_sep", sigma=1, steps=4, sampling_rate=0.1), "min_separation"),
])
def test_bad_input_names_the_argument(arguments, name):
    with pytest.raises(ValueError, match=name):
        MatrixRun(**arguments)


@pytest.mark.parametrize("run, phase", [
    (MatrixRun([1], "balls_and_bins", 1.1, 60, cycle_length=20),
     Phase("balls_and_bins", 1.1, steps=60, steps_per_epoch=20)),
    (MatrixRun([1], "cyclic_poisson", 0.9, 50, cycle_length=1, sampling_rate=0.01),
     Phase("poisson", 0.9, sampling_rate=0.01, steps=50)),
    (MatrixRun([1], "cyclic_poisson", 0.9, 50, cycle_length=4, sampling_rate=0.2),
     Phase("poisson", 0.9, sampling_rate=0.2, steps=13)),
    (MatrixRun([1], "b_min_sep", 0.7, 30, min_separation=1, sampling_rate=0.05),
     Phase("poisson", 0.7, sampling_rate=0.05, steps=30)),
    (MatrixRun([1], "b_min_sep", 0.7, 30, min_separation=1, sampling_rate=0.05, warm_start=True),
     Phase("poisson", 0.7, sampling_rate=0.05, steps=30)),
    (MatrixRun([1], "fixed_balls_and_bins", 0.8, 40, cycle_length=10),
     Phase("balls_and_bins", 0.8 / 2.0, steps=10, steps_per_epoch=10)),
])
def test_dp_sgd_reduces_to_todays_phase(run, phase):
    (got,) = certified_phases(run)
    assert _same(got, phase)
    if run.sampler != "fixed_balls_and_bins":
        assert got.sigma == run.sigma  # bit for bit


def test_cyclic_poisson_banded_reduction():
    c = [1.0, 0.6, 0.3]
    # T = 99 = 33 k: every block inside the run, one phase of 33 steps
    (got,) = certified_phases(MatrixRun(c, "cyclic_poisson", 2.0, 99, cycle_length=3, sampling_rate=0.1))
    assert got.sampler == "poisson" and got.steps == 33 and got.sampling_rate == 0.1
    assert got.sigma == pytest.approx(2.0 / math.sqrt(1 + 0.36 + 0.09), rel=1e-15)
    # T = 100: the 34th block has 1 of its 3 rows inside the run: 33 full steps, then one at sigma / c_0
    full, last = certified_phases(MatrixRun(c, "cyclic_poisson", 2.0, 100, cycle_length=3, sampling_rate=0.1))
    assert (full.steps, full.sigma, last.steps, last.sigma) == (33, got.sigma, 1, 2.0)
    # T = 2 < bands: one block, cut to 2 rows
    (only,) = certified_phases(MatrixRun(c, "cyclic_poisson", 2.0, 2, cycle_length=3, sampling_rate=0.1))
    assert only.steps == 1 and only.sigma == pytest.approx(2.0 / math.sqrt(1.36), rel=1e-15)


@pytest.mark.parametrize("coefficients, sigma", [([1.0, 0.6, 0.3], 2.0), ([0.1, 0.2], 0.7), ([3.0], 1.1),
                                                 ([2.0], 1.8), ([1.0], 0.3)])
def test_reduced_sigmas_are_rounded_down_and_exact_where_they_can_be(coefficients, sigma):
    """s^2 ||c||^2 <= sigma^2 in exact arithmetic (a larger s would lower the certified upper bound),
    and the next double up breaks it (nothing lost); s == sigma / c_0 where that division is exact."""
    from fractions import Fraction

    run = MatrixRun(coefficients, "cyclic_poisson", sigma, 5 * len(coefficients), cycle_length=len(coefficients),
                    sampling_rate=0.2)
    (phase,) = certified_phases(run)
    squared = sum(Fraction(c) ** 2 for c in coefficients)
    assert Fraction(phase.sigma) ** 2 * squared <= Fraction(sigma) ** 2
    assert Fraction(math.nextafter(phase.sigma, math.inf)) ** 2 * squared > Fraction(sigma) ** 2
    if len(coefficients) == 1 and Fraction(sigma) / Fraction(coefficients[0]) == Fraction(sigma / coefficients[0]):
        assert phase.sigma == sigma / coefficients[0]


@pytest.mark.parametrize("run", [
    MatrixRun([1, 0.5], "balls_and_bins", 1.0, 20, cycle_length=10),
    MatrixRun([1, 0.5], "fixed_balls_and_bins", 1.0, 20, cycle_length=10),
    MatrixRun([1], "fixed_balls_and_bins", 1.0, 25, cycle_length=10),
    MatrixRun([1, 0.5, 0.2], "cyclic_poisson", 1.0, 20, cycle_length=2, sampling_rate=0.1),
    MatrixRun([1, 0.5], "b_min_sep", 1.0, 20, min_separation=2, sampling_rate=0.1),
])
def test_no_reduction_without_a_proof(run):
    assert certified_phases(run) is None


@pytest.mark.parametrize("steps, q, sigma", [(12, 0.3, 1.5), (4, 0.5, 1.0), (7, 0.5, 0.8)])
def test_cyclic_poisson_reduction_against_a_direct_monte_carlo(steps, q, sigma):
    """The reduction's claim, checked independently: draw y from the cyclic-Poisson pair itself
    (group 0, Bernoulli(q) at t = 0, k, 2k, ..., shift C x), compute L = sum_j log(1 - q + q e^{l_j})
    with the *truncated* blocks, and compare with the certified engine on the reduced phases.
    T = 12 = 4 k with bands 3 = k: no block cut; T = 4 and 7: the last block has 1 of its 3 rows
    inside the run, and its own phase (sigma / c_0) makes the reduction exact, so the engine's
    bracket must meet the Monte Carlo interval (beta = 1e-6 per bound, fresh-seed false failure
    <= 8e-6 per case). There, one phase of ceil(T / k) steps at sigma / ||c|| (the reduction
    before 2026-11-29) has its lower bound above the Monte Carlo interval: it was no lower bound."""
    from dpsampling import Accountant
    from dpsampling.accountants.ballsbins.estimates import estimate_delta, kl_upper_confidence_bound
    from dpsampling.accountants.matrix.run import banded_times
    from dpsampling.accountants.run import Phase

    run = MatrixRun([1.0, 0.6, 0.3], "cyclic_poisson", sigma, steps, cycle_length=3, sampling_rate=q)
    c, k, m = np.asarray(run.coefficients), 3, 40_000
    starts = np.arange(0, run.steps, k)
    rng = np.random.default_rng(12)

    def losses(y):
        total = np.zeros(y.shape[0])
        for t in starts:
            rows = c[: run.steps - t]
            block = (y[:, t:t + rows.size] @ rows - 0.5 * rows @ rows) / sigma**2
            total += np.logaddexp(np.log1p(-q), np.log(q) + block)
        return total

    pattern = np.zeros((m, run.steps))
    pattern[:, starts] = rng.random((m, starts.size)) < q
    remove = losses(banded_times(c, pattern) + sigma * rng.standard_normal((m, run.steps)))
    add = -losses(sigma * rng.standard_normal((m, run.steps)))
    epsilons = [0.5, 1.0]
    certified = Accountant(certified_phases(run)).delta_bounds(epsilons)
    one_phase = Accountant([Phase("poisson", sigma / run.column_norm, sampling_rate=q, steps=starts.size)])
    former = one_phase.delta_bounds(epsilons)
    for direction, sample in (("remove", remove), ("add", add)):
        estimate = estimate_delta(sample, epsilons)
        upper = estimate.upper_confidence_bound(1e-6)
        lower = 1 - kl_upper_confidence_bound(1 - estimate.mean(), estimate.count, 1e-6)
        rows = certified[certified["direction"] == direction]
        assert np.all(lower <= rows["delta_upper"].to_numpy()), (direction, lower, rows)
        assert np.all(rows["delta_lower"].to_numpy() <= upper), (direction, upper, rows)
        if steps % k:
            former_lower = former[former["direction"] == direction]["delta_lower"].to_numpy()
            assert np.any(former_lower > upper), (direction, upper, former_lower)
