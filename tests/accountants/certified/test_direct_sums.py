"""The direct sums of a convolution's uncertain entries (``convolution._direct_entries``, in the order
the compiler vectorizes them: docs/PROOF.md Lemma 4) within their stated bound of the exact sum, in
rational arithmetic, on arrays with a spike beside a long tail, values down to the subnormals, and
every length from 1 to 160 products (every remainder of the vector loop and its unrolling) and a few
hundred. Deterministic (seeded): no false-failure probability to state."""

from fractions import Fraction

import numpy as np
import pytest

from dpsampling.accountants.certified import convolution

U = 2.0**-53


def _exact(a, b, n):
    return sum((Fraction(float(a[i])) * Fraction(float(b[n - i])) for i in range(max(0, n - b.size + 1),
                                                                                     min(n, a.size - 1) + 1)),
               Fraction(0))


@pytest.mark.parametrize("kind", ["spike_and_tail", "subnormal", "wide_range", "short", "every_length",
                                  "long"])
def test_direct_entries_are_within_their_bound_of_exact_arithmetic(kind):
    rng = np.random.default_rng(41)
    if kind == "spike_and_tail":
        a = np.exp(-rng.uniform(0, 60, 37))
        a[5] = 0.99
        b = a[::-1].copy()
    elif kind == "subnormal":
        a = rng.uniform(0, 1, 23) * 2.0**-1060
        b = rng.uniform(0, 1, 19)
    elif kind == "wide_range":
        a = np.exp(-rng.uniform(0, 700, 41))
        b = np.exp(-rng.uniform(0, 30, 29))
    elif kind == "every_length":  # entries of 1 to 160 products
        a = np.exp(-rng.uniform(0, 40, 200))
        b = rng.uniform(0, 1, 160) * np.where(rng.random(160) < 0.1, 2.0**-1070, 1.0)
    elif kind == "long":
        a = np.exp(-rng.uniform(0, 300, 450))
        b = np.exp(-rng.uniform(0, 5, 333))
    else:
        a, b = rng.uniform(0, 1, 3), rng.uniform(0, 1, 2)
    indices = np.arange(a.size + b.size - 1)
    out, bound = np.zeros(indices.size), np.zeros(indices.size)
    convolution._direct_entries(a, b, indices, out, bound)
    for n in indices:
        m = min(n, a.size - 1) - max(0, n - b.size + 1) + 1
        exact = _exact(a, b, n)
        assert abs(Fraction(float(out[n])) - exact) <= Fraction(float(bound[n]))
        # the bound is the stated one, not looser: gamma(m + 1) of the entry plus the underflow term
        gamma = (m + 1) * U / (1 - (m + 1) * U)
        assert bound[n] <= gamma * out[n] * (1 + 5 * U) + m * 2.0**-1074 * (1 + U)


def test_vectorized_sums_agree_with_numpy_to_rounding():
    """The compiler's order changes the order of the additions only: numpy's sums within the bound."""
    rng = np.random.default_rng(7)
    a, b = rng.uniform(0, 1, 301), rng.uniform(0, 1, 257)
    indices = np.arange(a.size + b.size - 1)
    out, bound = np.zeros(indices.size), np.zeros(indices.size)
    convolution._direct_entries(a, b, indices, out, bound)
    reference = np.convolve(a, b)
    assert np.all(np.abs(out - reference) <= 2 * bound)


def test_a_stack_of_tilted_arrays_is_transformed_as_each_alone():
    """docs/PROOF.md Lemma 2: the rows of ``_convolve``'s stack give the single transforms' numbers,
    bit for bit, so assumption A (checked on single transforms) covers them."""
    rng = np.random.default_rng(3)
    rows = np.exp(-rng.uniform(0, 40, (5, 300)))
    other = np.exp(-rng.uniform(0, 40, (5, 200)))
    size = 512
    stacked = convolution._convolve(rows, other, size)
    squared = convolution._convolve(rows, None, 1024)
    for k in range(rows.shape[0]):
        assert np.array_equal(stacked[k], convolution._convolve(rows[k], other[k], size))
        assert np.array_equal(squared[k], convolution._convolve(rows[k], None, 1024))
