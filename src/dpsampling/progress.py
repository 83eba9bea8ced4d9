"""Progress of long work on stderr: a tqdm bar when stderr is a terminal, nothing otherwise.

Commands turn it on once (``enable(not args.json)``); library code reports through ``steps``,
``bar`` and ``note`` and never prints when progress is off (pipes, --json, Snakemake jobs, tests).
``observed(callback)`` lets a caller follow every ``bar``'s updates whether or not progress is
shown (``accountants.limits`` times the engine's refinements this way).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from dpsampling.lazy import lazy_import

tqdm = lazy_import("tqdm")  # loaded with the first bar

_enabled = False
_observers: list = []  # callback(description, count): count 0 when a bar opens, then its updates so far


def enable(wanted: bool = True) -> bool:
    """Show progress from now on if ``wanted`` and stderr is a terminal; returns whether it is on."""
    global _enabled
    _enabled = bool(wanted) and sys.stderr.isatty()
    return _enabled


def enabled() -> bool:
    return _enabled


def steps(iterable, description: str, total: int | None = None):
    """``iterable``, with a bar of ``description`` when progress is on."""
    if not _enabled:
        return iterable
    return tqdm.tqdm(iterable, desc=description, total=total, file=sys.stderr, leave=False, dynamic_ncols=True)


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass


class _Observed:
    """A bar whose updates are also told to the observers (``observed``)."""

    def __init__(self, inner, description: str):
        self._inner, self._description, self._count = inner, description, 0
        self._tell()

    def _tell(self) -> None:
        for callback in list(_observers):
            callback(self._description, self._count)

    def update(self, n: int = 1) -> None:
        self._inner.update(n)
        self._count += n
        self._tell()

    def set_postfix_str(self, text: str) -> None:
        self._inner.set_postfix_str(text)

    def __getattr__(self, name):  # anything else of the bar (tqdm's API) as it is
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._inner, name)


@contextmanager
def observed(callback):
    """Call ``callback(description, count)`` when a ``bar`` opens inside the block (count 0) and
    at each of its updates (the updates so far), whether or not progress is shown."""
    _observers.append(callback)
    try:
        yield
    finally:
        _observers.remove(callback)


def note(text: str) -> None:
    """One line on stderr when progress is on (``tqdm.write``: a running bar stays intact)."""
    if _enabled:
        tqdm.tqdm.write(text, file=sys.stderr)


@contextmanager
def bar(description: str, total: int | None = None):
    """A bar to ``update()`` by hand (unknown total: a counter), or a silent stand-in; observers
    (``observed``) see its updates either way."""
    if not _enabled:
        yield _Observed(_Silent(), description) if _observers else _Silent()
        return
    with tqdm.tqdm(desc=description, total=total, file=sys.stderr, leave=False, dynamic_ncols=True) as progress:
        yield _Observed(progress, description) if _observers else progress
