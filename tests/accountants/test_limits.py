"""The query time limit (``accountants.limits``): which seconds count, the refinements' estimates
on stderr and in the refusal, and a default that leaves the frontier benchmark's queries room."""

import re
import time

import pytest

from dpsampling import progress
from dpsampling.accountants import limits
from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.limits import (
    DEFAULT_TIME_LIMIT,
    GROWTH,
    TimeLimitExceeded,
    remaining,
    suggested_limit,
    time_limit,
)
from dpsampling.benchmark.frontier import RUNS


def _burn(seconds: float) -> None:
    """Busy Python work for ``seconds`` of this process's CPU time (the limit's handler runs between bytecodes)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        sum(range(1000))


def test_the_limit_passes_when_both_cpu_and_wall_clock_time_reached_it():
    # a loaded machine: the CPU time is behind the wall clock; it counts
    assert remaining(10.0, cpu=4.0, wall=9.0) == 6.0
    # many threads: their CPU time adds up ahead of the wall clock; the wall clock counts
    assert remaining(10.0, cpu=19.0, wall=7.0) == 3.0
    assert remaining(10.0, cpu=10.0, wall=12.0) == remaining(10.0, cpu=30.0, wall=10.0) == 0.0


def test_a_suggested_limit_is_a_round_number_a_quarter_above():
    """At least 1.25x, rounded up to whole seconds and to two significant digits."""
    for seconds in (0.3, 7.0, 16.0, 17.0, 93.4, 1234.0):
        suggestion, target = suggested_limit(seconds), 1.25 * seconds
        digits = f"{suggestion:.0f}".rstrip("0")
        assert target <= suggestion <= max(1.1 * target, target + 1) and len(digits) <= 2, (seconds, suggestion)


def test_observers_see_every_bar_whether_or_not_progress_is_shown():
    seen = []
    with progress.observed(lambda description, count: seen.append((description, count))):
        with progress.bar("work: refinements") as bar:
            bar.update()
            bar.update()
    with progress.bar("unobserved") as bar:
        bar.update()
    assert not progress.enabled() and seen == [("work: refinements", 0), ("work: refinements", 1),
                                               ("work: refinements", 2)]


def test_the_refusal_names_the_refinement_its_estimate_and_the_limit_that_lets_it_finish(monkeypatch, capsys):
    """Refinements of 0.4 and 0.8 CPU s (``progress.bar`` as the engine's), then a third that
    runs on: the 2.5 s limit stops it, and the refusal names refinement 3, its estimate (GROWTH x
    0.8 s) and a limit above the estimated total; with progress on (NOTICE_AFTER lowered to
    0.5 s) each refinement whose successor is estimated that long is announced first."""
    monkeypatch.setattr(limits, "NOTICE_AFTER", 0.5)
    monkeypatch.setattr(progress, "_enabled", True)
    with pytest.raises(TimeLimitExceeded) as error, time_limit(2.5, "the test query"):
        with progress.bar("certified bounds [test]: refinements") as bar:
            for seconds in (0.4, 0.8, 60.0):
                _burn(seconds)
                bar.update()
    message = str(error.value)
    assert message.startswith("time_limit 2.5 s passed (CPU and wall-clock time) before the test query was "
                              "answered, in refinement 3 of the certified grid (estimated at ")
    suggested = float(re.search(r"about ([\d.]+) s lets it finish", message).group(1))
    assert suggested >= 1.25 * (1.2 + GROWTH * 0.8) > 2.5 and "--time-limit S" in message and "\n" not in message
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("dpsampling: the test query: r")]
    assert notes[0].startswith("dpsampling: the test query: refinement 1 done after 0 s; the next, if the bounds are "
                               "not yet within the accuracy, halves the grid step: about 1 s more")
    assert notes[1].startswith("dpsampling: the test query: refinement 2 done after 1 s;") and "past the time limit 2.5 s" in notes[1]


def test_the_default_limit_leaves_the_frontier_queries_a_margin_of_four():
    """Issue 31's four frontier runs (P1 to P4 of ``benchmark.frontier``) answer under the
    command's default limit using at most a quarter of it, counted as the limit counts (the smaller
    of CPU and wall-clock time: a loaded machine's and many threads' the same)."""
    for run in (run for run in RUNS if run.issue):
        cpu, wall = time.process_time(), time.monotonic()
        with time_limit(DEFAULT_TIME_LIMIT, f"frontier run {run.name}"):
            upper = Accountant(run.build()).get_epsilon(run.delta)
        used = min(time.process_time() - cpu, time.monotonic() - wall)
        assert 0 < upper < float("inf") and used <= DEFAULT_TIME_LIMIT / 4, (run.name, used)


def test_a_stop_wrapped_by_a_callback_from_c_is_still_the_limits_refusal():
    """The handler can run inside a Python callback that compiled code makes (Numba's unpickling of
    a constant), and CPython then raises SystemError from the handler's exception: the block still
    ends in that TimeLimitExceeded, one line, and any other SystemError passes through as it is."""
    stop = TimeLimitExceeded("time_limit 1 s passed (CPU and wall-clock time) before the test query was answered")
    with pytest.raises(TimeLimitExceeded) as caught, time_limit(60.0, "the test query"):
        try:
            raise stop
        except TimeLimitExceeded as error:
            raise SystemError("<function _numba_unpickle> returned a result with an exception set") from error
    assert caught.value is stop
    with pytest.raises(SystemError, match="unrelated"), time_limit(60.0, "the test query"):
        raise SystemError("unrelated")
