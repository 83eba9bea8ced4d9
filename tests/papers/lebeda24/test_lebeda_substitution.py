"""WOR under substitution: Section 7 Laplace example and Appendix D Gaussian bounds."""

import numpy as np
import pytest
from connect_the_dots import connect_the_dots_pld
from scipy import stats

from dpsampling.papers.lebeda24.substitution_curves import (
    gaussian_single_step_curves,
    laplace_substitution_curves,
    largest_intervals,
)


@pytest.fixture(scope="module")
def laplace_frame():
    return laplace_substitution_curves(np.linspace(0.0, 1.5, 31))


def test_each_pair_is_largest_on_some_interval(laplace_frame):
    intervals = largest_intervals(laplace_frame, min_margin=1e-4)
    assert all(len(points) > 0 for points in intervals.values()), intervals


def test_mixed_pair_matches_monte_carlo(laplace_frame):
    # H(PxQ || QxP) by direct sampling of (Y1, Y2) ~ P x Q, P = .5 Lap(-1,2) + .5 Lap(1,2), Q = Lap(-1,2).
    # Hoeffding + union bound over 31 eps, beta = 1e-4: false-failure probability <= 1e-4.
    rng = np.random.default_rng(np.random.SeedSequence(2024))
    n, beta = 300_000, 1e-4
    y1 = rng.laplace(-1, 2, n) + 2 * (rng.random(n) < 0.5)
    y2 = rng.laplace(-1, 2, n)

    def p(y):
        return 0.5 * stats.laplace.pdf(y, -1, 2) + 0.5 * stats.laplace.pdf(y, 1, 2)

    def q(y):
        return stats.laplace.pdf(y, -1, 2)

    loss = np.log(p(y1) * q(y2) / (q(y1) * p(y2)))
    alpha = np.sqrt(np.log(2 * 31 / beta) / (2 * n))
    for eps, exact in zip(laplace_frame["epsilon"], laplace_frame["H_PxQ_QxP"]):
        mc = np.maximum(0.0, -np.expm1(eps - loss)).mean()
        assert abs(mc - exact) <= alpha


def test_connect_the_dots_pld_reproduces_single_step_curve():
    curve = gaussian_single_step_curves(np.array([0.0, 0.01, 0.05, 0.1]), 4.0, 0.05)
    assert (curve["delta_remove"] >= curve["delta_add"] - 1e-12).all()  # remove dominates for eps >= 0
    negative = gaussian_single_step_curves(np.array([-0.05, -0.01]), 4.0, 0.05)
    assert (negative["delta_add"] > negative["delta_remove"]).all()  # add dominates for eps < 0

    def pointwise_max(e):
        frame = gaussian_single_step_curves(e, 4.0, 0.05)
        return frame["delta_max"].to_numpy()

    pld = connect_the_dots_pld(pointwise_max, 1e-4, 3.0)
    for e, d in zip(curve["epsilon"], curve["delta_max"]):
        assert pld.get_delta_for_epsilon(float(e)) == pytest.approx(d, rel=1e-6, abs=1e-12)


def test_bad_inputs():
    with pytest.raises(ValueError, match="laplace_scale must be positive and finite; got 0"):
        laplace_substitution_curves([1.0], laplace_scale=0)
