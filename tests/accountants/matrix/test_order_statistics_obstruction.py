"""Why chua25's order-statistics sampling (Sec. 4, Algorithm 6, Theorem B.5) does not carry over to
banded C (docs/MATRIX.md): it needs the loss to be a symmetric monotone function of i.i.d.
per-position statistics, and under a banded C with k > 1 bands the per-position statistics
u_t = <y, C e_t> are jointly Gaussian with covariance sigma^2 C^T C: banded, not diagonal."""

import numpy as np

from dpsampling.accountants.matrix.run import banded_times


def _matrix(column, steps: int) -> np.ndarray:
    """The dense T x T lower-triangular banded Toeplitz C (column t = C e_t)."""
    return banded_times(np.asarray(column, dtype=np.float64), np.eye(steps)).T


def test_the_per_position_statistics_of_a_banded_c_are_correlated():
    """c = (1, .5), T = 5, sigma 1.3: Cov(u_t, u_{t+1}) = sigma^2 c_0 c_1 != 0 exactly (the
    covariance is sigma^2 C^T C, non-zero at lags < 2 only), and the sample covariance of 200,000
    seeded draws of u = C^T y, y ~ N(0, sigma^2 I), agrees: its standard error is below 0.01, the
    tolerance 0.06 is over 6 of them (a false failure has probability below 1e-9)."""
    sigma, steps = 1.3, 5
    matrix = _matrix([1.0, 0.5], steps)
    covariance = sigma ** 2 * matrix.T @ matrix
    lags = np.subtract.outer(np.arange(steps), np.arange(steps))
    assert np.all(covariance[np.abs(lags) >= 2] == 0.0)
    assert np.allclose(np.diag(covariance, 1), sigma ** 2 * 0.5)
    # the last position has one row of C inside the run: its variance differs (no symmetry either)
    assert covariance[-1, -1] == sigma ** 2 * 1.0 < covariance[0, 0] == sigma ** 2 * 1.25
    draws = np.random.default_rng(44).normal(0.0, sigma, size=(200_000, steps)) @ matrix  # rows: u = C^T y
    sample = np.cov(draws, rowvar=False)
    assert np.max(np.abs(sample - covariance)) < 0.06
    assert abs(sample[1, 2] - sigma ** 2 * 0.5) < 0.06 and abs(sample[1, 3]) < 0.06


def test_one_band_gives_independent_statistics():
    """c = (2,) (DP-SGD, scaled): C^T C is diagonal, the statistics i.i.d.: chua25's setting."""
    matrix = _matrix([2.0], 4)
    assert np.array_equal(matrix.T @ matrix, 4.0 * np.eye(4))
