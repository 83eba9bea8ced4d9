"""Threads beside the caller's for the engine's independent products (``beside``). A thread changes
no operation: each computation runs whole in one thread, so the same operations in the same order
give the same numbers (docs/PROOF.md; tests/accountants/certified/test_lower_law_beside.py)."""

from __future__ import annotations

import contextvars
import os
from concurrent.futures import Future, ThreadPoolExecutor

import numba

_POOLS: dict[str, ThreadPoolExecutor] = {}
KINDS = ("lower law", "moments")
"""The kinds of work ``beside`` runs, one thread each: the lower law's products beside the upper
law's (``pair.Laws.times``), and in them the moments' convolution beside the masses'
(``laws.multiply_means``). A task waits only on tasks of a later kind, which wait on nothing, so
no thread ever waits on a queue it holds up (callers in several threads only queue)."""


MIN_ENTRIES = 1024
"""Products of shorter arrays run in the caller's thread: their time is Python's, which one thread
holds at a time, and handing them over costs more than it saves (the products of two poisson
calibrations, 2,316 of 32-1,024 entries, took 4.5 s with the thread beside and 3.5 s without; at 512
entries the two were even)."""


def _forget_pools() -> None:
    """In a forked child: the parent's threads do not exist there, so its pools must not be used
    (a task queued for an idle worker that was not copied would wait forever)."""
    _POOLS.clear()


os.register_at_fork(after_in_child=_forget_pools)


def beside(kind: str, entries: int, function, *args) -> Future:
    """A future of function(*args), run in the thread of ``kind`` (one of KINDS) beside the
    caller's, in the caller's context (``lower_keep``, numpy's errstate), when Numba may use more
    than one thread and the arrays have ``entries`` >= MIN_ENTRIES; else run now (a future already
    done). Threads change no operation: each call runs whole in one thread (docs/PROOF.md)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if entries < MIN_ENTRIES or numba.get_num_threads() < 2:
        done = Future()
        done.set_result(function(*args))
        return done
    if kind not in _POOLS:
        _POOLS[kind] = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"beside {kind}")
    return _POOLS[kind].submit(contextvars.copy_context().run, function, *args)
