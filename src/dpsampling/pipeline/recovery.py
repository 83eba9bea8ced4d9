"""What the workflow repairs by itself before a run: the Snakefile calls ``recover`` in the main
Snakemake process, before the DAG is built, and prints each line it returns.

- **Damaged or foreign result files.** Every ``results/**/*.parquet`` (results, Monte Carlo
  shards, statistics shards) is checked from its Parquet header, footer and metadata
  (``dpsampling.io.result_file_problem``: no data is read, about a millisecond a file), when the
  workflow makes it (the Snakefile says which: a rule's output in the folder of a configured
  experiment; any other file is left alone). A bad one is renamed ``<name>.damaged``, and until it
  is made again it is a target of the run (``to_recompute``), so that Snakemake recomputes it and
  everything that depends on it. A dry run only says what a run would do.
- **A lock left by a killed Snakemake.** ``kill -9`` (or a power cut) leaves Snakemake's lock in
  ``.snakemake/locks`` and the next run stops with "Directory cannot be locked". Each run records
  its process in ``.snakemake/dpsampling-owner.json`` once it holds the lock (``record_owner``,
  the Snakefile's ``onstart``); a lock is removed, as ``snakemake --unlock`` would, only when that
  record is newer than the lock, names this host, its process is gone and its jobs ran here (a
  cluster's jobs outlive it: then one line says what to do). Any other lock is
  left alone (another Snakemake may be running: Snakemake's own message then says to wait or to
  run ``snakemake --unlock``).
- **Temporary files of killed jobs** (``.<name>.<16 hex digits>.tmp``, ``io.write_atomically``;
  figures: ``.<stem>.<16 hex digits>.tmp.<suffix>``, ``io.atomic_paths``) under results/ and
  figures/: removed when no Snakemake holds a lock here.

Jobs killed mid-way leave no output under its final name (``write_atomically``); Snakemake
marks them incomplete and the workflow profile (``profiles/default``) sets ``rerun-incomplete``.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path

from dpsampling.io import result_file_problem, write_text_atomically

OWNER = ".snakemake/dpsampling-owner.json"
LOCKS = ".snakemake/locks"
DAMAGED_SUFFIX = ".damaged"
TEMPORARY = re.compile(r"\..+\.[0-9a-f]{16}\.tmp(\.[A-Za-z0-9]+)?")  # io.write_atomically, io.atomic_paths


def _start_time(pid: int) -> str | None:
    """The kernel's start time of process ``pid`` (Linux), to tell it from a later one with the same id."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _alive(pid: int, start: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return start is None or _start_time(pid) in (None, start)


def record_owner(root=".", local_jobs: bool = True) -> None:
    """Record this process (the main Snakemake, holding the lock) as the owner of the lock, and
    whether its jobs run on this machine (``local_jobs``; else on a cluster, where they outlive it)."""
    pid = os.getpid()
    document = {"host": socket.gethostname(), "pid": pid, "start": _start_time(pid), "since": time.time(),
                "local_jobs": local_jobs}
    write_text_atomically(Path(root, OWNER), json.dumps(document) + "\n")


def stale_lock(root=".") -> tuple[list[Path], dict | None]:
    """(lock files, the owner record) when every lock here belongs to a Snakemake of this host that
    is gone; ([] or the locks, None) when there is no lock or it may be held."""
    locks = sorted(Path(root, LOCKS).glob("*.lock"))
    owner_path = Path(root, OWNER)
    if not locks or not owner_path.is_file():
        return locks, None
    try:
        owner = json.loads(owner_path.read_text())
        pid, host, start = int(owner["pid"]), owner["host"], owner.get("start")
    except (OSError, ValueError, KeyError, TypeError):
        return locks, None
    newest_lock = max(lock.stat().st_mtime for lock in locks)
    if owner_path.stat().st_mtime < newest_lock or host != socket.gethostname() or _alive(pid, start):
        return locks, None
    return locks, owner


def _everything(path: Path) -> bool:
    return True


def made_by(experiments, rules):
    """``ours(path)`` for the Snakefile: ``path`` (relative) is in the folder of one of
    ``experiments`` and some rule of ``rules`` (Snakemake's) produces it."""

    def ours(path) -> bool:
        parts = Path(path).parts
        return len(parts) > 2 and parts[1] in experiments and any(rule.is_producer(str(path)) for rule in rules)

    return ours


def damaged_results(root=".", ours=_everything) -> list[tuple[Path, str]]:
    """(path relative to ``root``, why) of every damaged or foreign ``results/**/*.parquet`` for
    which ``ours(relative path)`` holds (the workflow makes it: other files are never touched)."""
    root = Path(root)
    found = []
    for path in sorted(root.glob("results/**/*.parquet")):
        relative = path.relative_to(root)
        if path.is_file() and not path.name.startswith(".") and ours(relative):
            problem = result_file_problem(path)
            if problem:
                found.append((relative, problem))
    return found


def to_recompute(root=".", ours=_everything) -> list[str]:
    """Result files set aside (``<name>.damaged``) and not made again yet, for which ``ours`` holds:
    the Snakefile adds them to the targets, so that Snakemake remakes them and what depends on them
    (it never remakes a missing intermediate file whose dependents are present and up to date)."""
    root = Path(root)
    found = []
    for aside in sorted(root.glob(f"results/**/*.parquet{DAMAGED_SUFFIX}")):
        path = aside.with_name(aside.name.removesuffix(DAMAGED_SUFFIX)).relative_to(root)
        if not (root / path).exists() and ours(path):
            found.append(path.as_posix())
    return found


def recover(root=".", dry_run: bool = False, ours=_everything) -> list[str]:
    """Repair what an interrupted run or a damaged file left (see the module docstring); return one
    line per thing done (or, with ``dry_run``, that a run would do). ``ours(relative path)``: the
    workflow makes that file (the only result files checked)."""
    root = Path(root)
    lines = []
    locks, owner = stale_lock(root)
    if owner is not None:
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(owner.get("since", 0)))
        if not owner.get("local_jobs", True):
            lines.append(f"The lock of Snakemake process {owner['pid']} (started {since}) is left: that process is "
                         "gone, but the cluster jobs it submitted may still run. When they are done or cancelled "
                         "(squeue -u $USER), run snakemake --unlock and start again.")
            owner = None
    if owner is not None:
        if dry_run:
            lines.append(f"The lock of Snakemake process {owner['pid']} (started {since}) is stale: that process is "
                         "gone. A run (not this dry run) removes it, as snakemake --unlock would.")
        else:
            for lock in locks:
                lock.unlink(missing_ok=True)
            lines.append(f"Removed the lock of Snakemake process {owner['pid']} (started {since}): it was killed "
                         "and is gone (what snakemake --unlock does); its unfinished jobs are rerun.")
            locks = []
    for path, problem in damaged_results(root, ours):
        aside = path.with_name(path.name + DAMAGED_SUFFIX)
        if dry_run:
            lines.append(f"{path} is {problem}; a run (not this dry run) moves it to {aside} and recomputes it.")
        else:
            os.replace(root / path, root / aside)
            lines.append(f"{path} is {problem}; moved to {aside}, it will be recomputed.")
    if not locks and not dry_run:
        leftovers = [p for folder in ("results", "figures") for p in root.glob(f"{folder}/**/.*.tmp*")
                     if TEMPORARY.fullmatch(p.name) and p.is_file()]
        for path in leftovers:
            path.unlink(missing_ok=True)
        if leftovers:
            lines.append(f"Removed {len(leftovers)} temporary file(s) of jobs that were killed.")
    return lines
