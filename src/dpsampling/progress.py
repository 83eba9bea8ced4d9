"""Progress of long work on stderr: a tqdm bar when stderr is a terminal, nothing otherwise.

Commands turn it on once (``enable(not args.json)``); library code reports through ``steps``
and ``bar`` and never prints when progress is off (pipes, --json, Snakemake jobs, tests).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from dpsampling.lazy import lazy_import

tqdm = lazy_import("tqdm")  # loaded with the first bar

_enabled = False


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


@contextmanager
def bar(description: str, total: int | None = None):
    """A bar to ``update()`` by hand (unknown total: a counter), or a silent stand-in."""
    if not _enabled:
        yield _Silent()
        return
    with tqdm.tqdm(desc=description, total=total, file=sys.stderr, leave=False, dynamic_ncols=True) as progress:
        yield progress
