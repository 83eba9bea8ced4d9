"""No query runs unbounded: a time limit the user can raise, progress and estimates on stderr.

The certified engine's cost is not known before it runs: it refines a grid until the bounds meet
the accuracy, each refinement halving the grid step (about twice the points, so about twice the
work of the refinement before: 1.4x to 2.6x measured). ``time_limit(seconds, what)`` bounds the
work of a block; ``set_query_limit(seconds)`` bounds every query of the face (``Accountant``
wraps each in ``query_limit``): the command line sets it from ``--time-limit`` (default
DEFAULT_TIME_LIMIT), the library leaves it unset (no limit) unless asked. Past the limit the work
stops with ``TimeLimitExceeded`` (a ``frames.Refused``, hence a ValueError: a refusal of the
input, one line), which names the limit, how far the work got (the refinement, the last one's
time, the running one's estimate and the limit that would let it finish) and how to raise it.

Seconds. The limit has passed when both the block's CPU time and its wall-clock time reached it:
on a loaded machine the CPU time is the smaller (the query gets the work it was allowed, not cut
by others' load), on many threads the wall-clock time is (threads add up their CPU time; the
query is not cut for running in parallel). A SIGPROF timer (CPU time) wakes the handler, which
re-arms itself until both have passed (Unix, the main thread; elsewhere the block runs
unbounded). The signal is handled between Python operations, so a single numpy or Numba call
finishes first (seconds at most at the engine's grid sizes); where it runs inside a Python callback
of compiled code, CPython wraps its stop in a SystemError, which the block turns back into the stop.
Nothing of the engine is changed:
a query stopped is a query not answered, never a different answer.

Progress (stderr, where progress is shown: a terminal, ``progress.enabled()``): after
NOTICE_AFTER seconds one line says the work goes on and when the limit stops it; and after each
refinement of the engine (its ``progress.bar`` ends in REFINEMENTS; ``progress.observed``) whose
successor is estimated (GROWTH times its own time) at NOTICE_AFTER seconds or more, one line gives
that estimate before the next refinement starts, the total, and, where the total passes the
limit, the limit that would let it finish. The engine stops refining when the bounds meet the
accuracy, so the next refinement may not run at all; the estimate is of its cost if it does.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from contextlib import contextmanager

from dpsampling import progress
from dpsampling.accountants.frames import Refused

DEFAULT_TIME_LIMIT = 50.0
"""Seconds (CPU and wall-clock, module docstring) one query of a command may take unless the user
raises it (--time-limit): any query answers or is refused within a minute of work, and the
frontier queries are far from it. Measured on 2 shared cores (engine 4 of 2026-11-27 08:35 UTC,
load 7 to 10): the twelve runs of ``python -m dpsampling.benchmark.frontier`` answer in 0.2 to
11 CPU s (P1, sigma 0.6, rate 4e-5, 1e5 steps, delta 1.1e-10: 6 s; P5, 1e7 steps: 11 s); the
pathological sigma 0.05 at rate 0.5 answers in 31 s over 1e5 steps and is refused at the limit
over 1e3 steps (its third refinement estimated at about 70 s in all, which the refusal names)."""
NOTICE_AFTER = 5.0
"""Seconds after which a terminal is told that the work goes on (and estimates this long are shown)."""
GROWTH = 2.0
"""A refinement's work over the one before it: twice the points (measured 1.4x to 2.6x)."""
REFINEMENTS = "refinements"
"""The last word of the engine's progress bar (``certified.engine._refined``): one update per refinement."""
HOW_TO_RAISE = "--time-limit S, 'inf': none; Python: limits.set_query_limit(S)"


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


def remaining(seconds: float, cpu: float, wall: float) -> float:
    """Seconds of CPU time the timer waits before it looks again: 0 once both the CPU time and
    the wall-clock time reached ``seconds``. While the wall clock is the smaller, waiting
    seconds - wall of CPU time never overshoots (the CPU time runs at least as fast then)."""
    return max(0.0, seconds - min(cpu, wall))


def suggested_limit(seconds: float) -> float:
    """A limit a little above ``seconds`` (1.25x), rounded up to two significant digits."""
    target = 1.25 * seconds
    scale = 10.0 ** max(0, math.floor(math.log10(target)) - 1) if target > 0 else 1.0
    return math.ceil(target / scale) * scale


class _Clock:
    """The block's seconds (the smaller of its CPU and wall-clock time) and its refinements."""

    def __init__(self, seconds: float, what: str):
        self.seconds, self.what = seconds, what
        self.cpu0, self.wall0 = time.process_time(), time.monotonic()
        self.refining = False  # the engine's refinement bar opened
        self.ends: list[float] = []  # when each refinement ended (its laws built)

    def times(self) -> tuple[float, float]:
        return time.process_time() - self.cpu0, time.monotonic() - self.wall0

    def elapsed(self) -> float:
        return min(self.times())

    def next_estimate(self) -> float | None:
        """GROWTH times the last refinement's seconds (None before the first has ended)."""
        if not self.ends:
            return None
        last = self.ends[-1] - (self.ends[-2] if len(self.ends) > 1 else 0.0)
        return GROWTH * last

    def on_bar(self, description: str, count: int) -> None:
        """``progress.observed``'s callback: the engine's refinements open (0) and end (count)."""
        if not description.endswith(REFINEMENTS):
            return
        if count == 0:
            self.refining, self.ends = True, []
            return
        self.ends.append(self.elapsed())
        estimate = self.next_estimate()
        if estimate < NOTICE_AFTER:
            return
        total = self.ends[-1] + estimate
        line = (f"dpsampling: {self.what}: refinement {len(self.ends)} done after {self.ends[-1]:.0f} s; the next, "
                f"if the bounds are not yet within the accuracy, halves the grid step: about {estimate:.0f} s more, "
                f"{total:.0f} s in all")
        if total > self.seconds:
            line += (f", past the time limit {self.seconds:g} s: raise it to about {suggested_limit(total):g} s to let "
                     f"it finish ({HOW_TO_RAISE})")
        else:
            line += f" (time limit {self.seconds:g} s)"
        progress.note(line)

    def where(self) -> str:
        """How far the work got, for the refusal ("" outside the engine's refinements)."""
        if not self.refining:
            return ""
        if not self.ends:
            return ", in the first refinement of the certified grid"
        estimate = self.next_estimate()
        total = self.ends[-1] + estimate
        if total <= self.seconds:  # it took longer than estimated
            total = GROWTH * self.seconds
        return (f", in refinement {len(self.ends) + 1} of the certified grid (estimated at {estimate:.0f} s after "
                f"refinement {len(self.ends)} ended at {self.ends[-1]:.0f} s; about {suggested_limit(total):g} s lets it "
                "finish)")


def _stop_within(error: BaseException) -> TimeLimitExceeded | None:
    """The TimeLimitExceeded that caused ``error`` (through its causes and contexts), if any."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, TimeLimitExceeded):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


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
    clock = _Clock(seconds, what)
    noticed = [False]
    _limits["armed"] = True

    def on_alarm(signum, frame):
        wait = remaining(seconds, *clock.times())
        if wait > 0:
            elapsed = clock.elapsed()
            if not noticed[0] and elapsed >= NOTICE_AFTER:
                progress.note(f"dpsampling: still computing {what} after {elapsed:.0f} s; the time limit stops it at "
                              f"{seconds:g} s ({HOW_TO_RAISE})")
                noticed[0] = True
            until_notice = NOTICE_AFTER - elapsed if not noticed[0] else math.inf
            signal.setitimer(signal.ITIMER_PROF, max(min(wait, until_notice), 0.01))
            return
        raise TimeLimitExceeded(f"{flag} {seconds:g} s passed (CPU and wall-clock time) before {what} was "
                                f"answered{clock.where()}: raise it to let the work run longer ({HOW_TO_RAISE})")

    previous = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, min(NOTICE_AFTER, seconds))
    try:
        with progress.observed(clock.on_bar):
            yield
    except SystemError as error:  # the handler ran inside a callback from C (Numba's), which wrapped what it raised
        stopped = _stop_within(error)
        if stopped is None:
            raise
        raise stopped from None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
        _limits["armed"] = False


__all__ = ["DEFAULT_TIME_LIMIT", "GROWTH", "HOW_TO_RAISE", "NOTICE_AFTER", "TimeLimitExceeded", "query_limit",
           "remaining", "set_query_limit", "suggested_limit", "time_limit"]
