"""The lower law's products run in a second thread beside the upper law's (``pair._beside``) when
Numba may use two threads: the same operations in the same order, so the same bits as one thread;
the caller's context (``lower_keep``) reaches the thread and its errors reach the caller.
Deterministic: no false-failure probability to state."""

import numba
import numpy as np
import pytest

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.certified import laws, pair
from dpsampling.accountants.run import Phase

RUNS = {
    "poisson": [Phase("poisson", 0.8, sampling_rate=1e-3, steps=3_000)],
    "wor then poisson": [Phase("wor", 1.0, sampling_rate=0.01, steps=200),
                         Phase("poisson", 1.2, sampling_rate=0.02, steps=500)],
}


@pytest.fixture
def threads():
    before = numba.get_num_threads()
    yield
    numba.set_num_threads(before)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="Numba has one thread here")
@pytest.mark.parametrize("name", sorted(RUNS))
def test_bounds_are_bit_identical_with_the_lower_law_beside(name, threads):
    frames = []
    for count in (1, 2):
        numba.set_num_threads(count)
        frames.append(Accountant(RUNS[name]).epsilon_bounds([1e-8, 1e-5]))
    one, two = frames
    for column in one.columns:
        if one[column].dtype.kind == "f":
            assert np.array_equal(one[column].to_numpy(), two[column].to_numpy()), column


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="Numba has one thread here")
def test_the_side_thread_sees_the_callers_lower_keep_and_raises_its_errors(threads):
    numba.set_num_threads(2)
    with laws.lower_keep(1.0):
        seen = pair._result(pair._beside(laws._LOWER_KEEP.get))
    assert seen == max(laws.LOWER_THRESHOLD, laws.LOWER_BUDGET)

    def fails():
        raise FloatingPointError("lost")

    with pytest.raises(FloatingPointError, match="lost"):
        pair._result(pair._beside(fails))
