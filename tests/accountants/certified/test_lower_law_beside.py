"""The lower law's products run in a second thread beside the upper law's (``threads.beside``) when
Numba may use two threads: the same operations in the same order, so the same bits as one thread;
the caller's context (``lower_keep``) reaches the thread and its errors reach the caller.
Deterministic: no false-failure probability to state."""

import numba
import numpy as np
import pytest

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.certified import laws
from dpsampling.accountants.certified import threads as side
from dpsampling.accountants.run import Phase

RUNS = {
    "poisson": [Phase("poisson", 0.8, sampling_rate=1e-5, steps=1_000_000)],  # arrays of 512 to 8,192 entries
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
def test_bounds_are_bit_identical_with_the_lower_law_beside(name, threads, monkeypatch):
    frames = []
    for count in (1, 2):
        numba.set_num_threads(count)
        monkeypatch.setattr(side, "_POOLS", {})
        frames.append(Accountant(RUNS[name]).epsilon_bounds([1e-8, 1e-5]))
    if name == "poisson":  # its products of >= MIN_ENTRIES ran beside: both kinds of thread started
        assert set(side._POOLS) == set(side.KINDS)
    one, two = frames
    for column in one.columns:
        if one[column].dtype.kind == "f":
            assert np.array_equal(one[column].to_numpy(), two[column].to_numpy()), column


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="Numba has one thread here")
def test_the_side_thread_sees_the_callers_lower_keep_and_raises_its_errors(threads):
    numba.set_num_threads(2)
    with laws.lower_keep(1.0):
        seen = side.beside("moments", side.MIN_ENTRIES, laws._LOWER_KEEP.get).result()
    assert seen == max(laws.LOWER_THRESHOLD, laws.LOWER_BUDGET)

    def fails():
        raise FloatingPointError("lost")

    with pytest.raises(FloatingPointError, match="lost"):
        side.beside("lower law", side.MIN_ENTRIES, fails).result()


def test_callers_in_several_threads_all_finish(threads):
    """Several callers at once (each Laws.times waiting on its lower law, which waits on its
    moments): every one finishes with the bounds of a call alone (no thread waits on a queue it holds)."""
    from concurrent.futures import ThreadPoolExecutor

    numba.set_num_threads(2)
    run = RUNS["poisson"]
    alone = Accountant(run).epsilon_bounds([1e-8])[["epsilon_lower", "epsilon_upper"]].to_numpy()
    with ThreadPoolExecutor(max_workers=4) as callers:
        answers = list(callers.map(lambda _: Accountant(run).epsilon_bounds([1e-8])[["epsilon_lower", "epsilon_upper"]].to_numpy(), range(4)))
    for answer in answers:
        assert np.array_equal(answer, alone)


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind must be one of lower law, moments; got 'masses'"):
        side.beside("masses", side.MIN_ENTRIES, print)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2 or not hasattr(__import__("os"), "fork"),
                    reason="Numba has one thread here, or no fork")
def test_a_forked_child_starts_threads_of_its_own(threads):
    """A process forked after the pools started (multiprocessing's default on Linux) runs its work
    beside in threads of its own, not queued for the parent's idle ones, which it does not have.
    (The engine itself in such a child is another matter, not changed here: Numba's GNU OpenMP layer
    terminates a child forked after the parent's first parallel region, with or without these threads.)"""
    import multiprocessing

    numba.set_num_threads(2)
    assert side.beside("moments", side.MIN_ENTRIES, abs, -3).result() == 3
    assert "moments" in side._POOLS  # the parent's pool is running, its worker idle
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_beside_in_child).get(timeout=60) == 7


def _beside_in_child():
    return side.beside("moments", side.MIN_ENTRIES, abs, -7).result()
