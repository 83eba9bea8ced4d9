"""The certified convolutions (``convolution.tilted_convolve``, ``head_split_convolve``,
``lower_convolve``) against their pre-optimisation implementation (``reference_convolution``, a
frozen copy): every returned array bit-identical (``np.array_equal``, NaN-free) on seeded arrays of
the shapes the engine sees (Gaussian-like bumps, long log-linear tails, spikes beside power-law
tails, zeros inside and at the ends, subnormal tails), a * a and a * b, 3 to ~20,000 entries,
several bin widths h, and with the tilts split over several FFT batches."""

import numpy as np
import pytest
from accountants.certified import reference_convolution as reference

from dpsampling.accountants.certified import convolution, rounding


def _bump(rng, n, h):
    x = np.arange(n) * h
    centre, width = x[-1] * rng.uniform(0.2, 0.8), max(x[-1], h) * rng.uniform(0.02, 0.3)
    return np.exp(-0.5 * ((x - centre) / width) ** 2) * (1.0 + 0.01 * rng.random(n))


def _log_linear_tail(rng, n, h):
    depth = rng.uniform(50.0, 740.0)  # down to e^-740: subnormal entries
    return np.exp(-np.linspace(0.0, depth, n)) * (1.0 + 0.3 * rng.random(n))


def _spike_beside_tail(rng, n, h):
    k = np.arange(n)
    heads = int(rng.integers(1, 8))
    return np.where(k < heads, 0.5 ** np.clip(heads - k, 0, None), 1e-3 / (1.0 + k) ** rng.uniform(1.5, 3.0)) * (
        1.0 + 0.01 * rng.random(n))


def _with_zeros(rng, n, h):
    a = _bump(rng, n, h) + _log_linear_tail(rng, n, h)[::-1]
    a[rng.random(n) < 0.2] = 0.0
    a[: int(rng.integers(0, max(1, n // 5)))] = 0.0
    a[n - int(rng.integers(0, max(1, n // 5))):] = 0.0
    return a


SHAPES = [_bump, _log_linear_tail, _spike_beside_tail, _with_zeros]
SIZES = [3, 4, 7, 40, 129, 300, 1_000, 4_100, 20_000]
WIDTHS = [0.001, 0.01, 0.05, 0.2]


def _cases(seed):
    """(a, b or None, h): a seeded draw of shapes, sizes and widths."""
    rng = np.random.default_rng(seed)
    for size in SIZES:
        for shape in SHAPES:
            h = float(rng.choice(WIDTHS))
            a = shape(rng, size, h)
            other_shape = SHAPES[int(rng.integers(len(SHAPES)))]
            other_size = max(3, int(size * rng.uniform(0.3, 1.5)))
            yield a, None, h
            yield a, other_shape(rng, other_size, h), h


def _assert_identical(ours, theirs):
    assert len(ours) == len(theirs)
    for x, y in zip(ours, theirs):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert np.array_equal(x, y), f"{np.sum(x != y)} entries differ"


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", ["tilted_convolve", "head_split_convolve", "lower_convolve"])
def test_convolutions_are_bit_identical_to_the_reference(name, seed):
    for a, b, h in _cases(1000 * seed + len(name)):
        if not np.any(a > 0) or (b is not None and not np.any(b > 0)):
            continue
        _assert_identical(getattr(convolution, name)(a, b, h), getattr(reference, name)(a, b, h))


def test_the_subnormal_spike_case_is_bit_identical():
    """The underflow test's arrays (test_underflow.py): tilted arrays and entries that underflow."""
    h = 0.05
    a = np.exp(-np.linspace(0.0, 736.0, 160)) * (1.0 + 0.3 * np.sin(np.arange(160)))
    a[40] = 0.7
    b = np.exp(-np.linspace(0.0, 690.0, 120))[::-1].copy()
    _assert_identical(convolution.tilted_convolve(a, b, h), reference.tilted_convolve(a, b, h))
    _assert_identical(convolution.tilted_convolve(a, None, h), reference.tilted_convolve(a, None, h))


@pytest.mark.parametrize("batch", [2**12, 2**14])
def test_tilts_split_over_fft_batches_are_bit_identical(monkeypatch, batch):
    """BATCH_ENTRIES small enough that a convolution's tilts take several batches (the engine's
    longest arrays do)."""
    monkeypatch.setattr(convolution, "BATCH_ENTRIES", batch)
    monkeypatch.setattr(reference, "BATCH_ENTRIES", batch)
    for a, b, h in _cases(77):
        if a.size > 4_100 or not np.any(a > 0) or (b is not None and not np.any(b > 0)):
            continue
        _assert_identical(convolution.tilted_convolve(a, b, h), reference.tilted_convolve(a, b, h))


@pytest.mark.parametrize("length", [3, 9, 129, 8_193, 40_000])
def test_norms_and_bounds_of_stacked_rows_are_the_references_row_by_row(length):
    """``rounding.norms`` and ``rounding.convolution_bound`` on a stack of rows (np.sum over the
    last axis, the sums of squares row by row) give bit for bit the reference's per-row values."""
    rng = np.random.default_rng(length)
    x = np.exp(-rng.uniform(0.0, 745.0, (5, length)))
    y = rng.random((5, length)) ** 3
    size = rounding.fft_size(2 * length - 1)
    one, two = rounding.norms(x)
    bounds, bounds_xy = rounding.convolution_bound(x, None, size), rounding.convolution_bound(x, y, size)
    for k in range(x.shape[0]):
        assert (one[k], two[k]) == reference.norms(x[k]) == rounding.norms(x[k])
        assert bounds[k] == reference.convolution_bound(x[k], None, size)
        assert bounds_xy[k] == reference.convolution_bound(x[k], y[k], size)


@pytest.mark.parametrize("seed", range(4))
def test_gradient_is_numpys_bit_for_bit(seed):
    """``convolution._gradient`` against np.gradient(f, x) on log-laws at their supports: contiguous
    (x = k h, spacings equal or not after rounding), with gaps, uniform by construction, 3 points and more."""
    rng = np.random.default_rng(seed)
    for size in [3, 4, 5, 17, 300, 5_000]:
        for h in WIDTHS:
            support = np.arange(size) + int(rng.integers(0, 1000))
            gappy = np.sort(rng.choice(4 * size, size, replace=False))
            for x in (support * h, gappy * h, np.arange(size) * 0.25):
                f = np.log(_with_zeros(rng, size, h) + 1e-300) * rng.uniform(0.5, 2.0)
                slope = np.gradient(f, x)
                assert np.array_equal(convolution._gradient(f, x), slope)
                assert np.array_equal(convolution._gradient(slope, x), np.gradient(slope, x))
