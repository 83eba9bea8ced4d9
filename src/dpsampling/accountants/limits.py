"""No query runs unbounded: a time limit the user can raise, and a word on stderr while waiting.

The certified engine's cost is not known before it runs: it refines a grid until the bounds meet
the accuracy, and a run whose one-step privacy loss is heavy (small sigma at a large rate: sigma
0.05 at rate 0.5 puts mass 0.5 at log L ~ 1 / (2 sigma^2) = 200 per step) can need minutes or
hours at its coarsest grid already. ``time_limit(seconds, what)`` bounds the work of a block;
``set_query_limit(seconds)`` bounds every query of the face (``Accountant`` wraps each in
``query_limit``): the command line sets it from ``--time-limit`` (default DEFAULT_TIME_LIMIT),
the library leaves it unset (no limit) unless asked. Past the limit
the work stops with ``TimeLimitExceeded`` (a ``frames.Refused``, hence a
ValueError: a refusal of the input, one line), which says what ran, the limit, which runs are
slow and how to raise the limit. After ``NOTICE_AFTER`` seconds, where progress
is shown (a terminal, ``progress.enabled()``), one line on stderr says the work goes on and when
it will stop.

The limit counts the process's CPU seconds (a SIGPROF timer: the same on a loaded machine as on
an idle one, where wall-clock time is not; Unix, the main thread: elsewhere the block runs
unbounded; threads add up, so a parallel kernel reaches it sooner than the wall clock); the
signal is handled between Python operations, so a single numpy call finishes first (seconds at
most at the engine's grid sizes). Nothing of the engine is changed: a query stopped is a query
not answered, never a different answer.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from contextlib import contextmanager

from dpsampling import progress
from dpsampling.accountants.frames import Refused

DEFAULT_TIME_LIMIT = 50.0
"""CPU seconds one query of a command may take unless the user raises it (--time-limit)."""
NOTICE_AFTER = 5.0
"""Seconds after which a terminal is told that the work goes on."""


class TimeLimitExceeded(Refused):
    """The work passed its time limit; the message is one line."""


_limits = {"query": None, "armed": False}  # seconds per query (None: none), and whether a timer runs


def set_query_limit(seconds: float | None) -> None:
    """Bound every later query of the face by ``seconds`` (None: no bound)."""
    if seconds is not None and (isinstance(seconds, bool) or not seconds > 0):
        raise ValueError(f"time_limit must be positive (seconds); got {seconds!r}")
    _limits["query"] = seconds


@contextmanager
def query_limit(what: str):
    """The query limit (``set_query_limit``) around one query, unless a limit already runs."""
    if _limits["query"] is None or _limits["armed"]:
        yield
        return
    with time_limit(_limits["query"], what):
        yield


@contextmanager
def time_limit(seconds: float | None, what: str = "the query", flag: str = "time_limit"):
    """Stop the block's work after ``seconds`` (None or inf: no limit) with TimeLimitExceeded
    (module docstring); ``what`` names the work and ``flag`` the setting, in the messages."""
    if seconds is not None and (isinstance(seconds, bool) or not seconds > 0):
        raise ValueError(f"{flag} must be positive (seconds); got {seconds!r}")
    armed = (seconds is not None and math.isfinite(seconds) and hasattr(signal, "setitimer")
             and threading.current_thread() is threading.main_thread())
    if not armed:
        yield
        return
    start = time.process_time()
    noticed = [False]
    _limits["armed"] = True

    def on_alarm(signum, frame):
        elapsed = time.process_time() - start
        if elapsed < seconds:  # the notice: the work goes on
            if not noticed[0] and progress.enabled():
                print(f"dpsampling: still computing {what} after {elapsed:.0f} s; it stops at {seconds:g} s "
                      f"({flag} raises it)", file=sys.stderr, flush=True)
            noticed[0] = True
            signal.setitimer(signal.ITIMER_PROF, max(seconds - elapsed, 0.01))
            return
        raise TimeLimitExceeded(f"{flag} {seconds:g} s passed before {what} was answered; raise it to let the work "
                                "run longer (a small sigma at a large rate, e.g. sigma 0.05 at rate 0.5, can take "
                                "hours: each step's privacy loss spans hundreds of nats), or account a run the engine "
                                "answers faster (a larger sigma, a smaller rate or fewer steps)")

    previous = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, min(NOTICE_AFTER, seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
        _limits["armed"] = False


__all__ = ["DEFAULT_TIME_LIMIT", "NOTICE_AFTER", "TimeLimitExceeded", "query_limit", "set_query_limit", "time_limit"]
