"""Helpers for tests that run Snakemake on a copy of the workflow: run, compare result tables,
and kill a job halfway (SIGKILL) to check that a rerun recomputes only that job."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from dpsampling.io import read_table

ROOT = Path(__file__).resolve().parents[1]
TINY = ".test/config/config.yaml"
TIMING_COLUMNS = {"seconds", "wall_seconds", "cpu_seconds", "elapsed_s", "runtime_s", "sampling_seconds",
                  "sampling_cpu_seconds", "threads",  # how long and on how many threads: never compared
                  "numerator_cpu_seconds", "denominator_cpu_seconds", "ratio"}  # timing.parquet (chua25 timing.py)


def copy_workflow(target: Path, with_results_of: Path | None = None, profile: bool = False) -> Path:
    """The workflow's files under ``target`` (and, optionally, the results and Snakemake
    metadata of an earlier run, so that run counts as done; with ``profile``, the workflow
    profile profiles/default too, which Snakemake then loads as in a checkout)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in ("Snakefile", "workflow", "scripts", "config", ".test", *(("profiles",) if profile else ())):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target / name)
    if with_results_of is not None:
        for name in ("results", "figures", "logs", "benchmarks", ".snakemake"):
            if (with_results_of / name).exists():
                shutil.copytree(with_results_of / name, target / name, symlinks=True,
                                ignore=shutil.ignore_patterns("locks", "local-cluster", "log"))
    return target


def snakemake_command(*args) -> list[str]:
    return [sys.executable, "-m", "snakemake", *args]


def snakemake(directory: Path, *args, timeout=600) -> subprocess.CompletedProcess:
    """Run snakemake in ``directory``; targets first, then options (--configfile takes several values)."""
    return subprocess.run(snakemake_command(*args), cwd=directory, capture_output=True, text=True, timeout=timeout)


def result_tables(directory: Path) -> dict[str, tuple[pd.DataFrame, dict]]:
    """Every Parquet file under results/ (relative path -> (frame, parameters)), timing columns and keys dropped."""
    tables = {}
    for path in sorted((directory / "results").glob("**/*.parquet")):
        frame, document = read_table(path)
        parameters = {k: v for k, v in document["parameters"].items() if k not in TIMING_COLUMNS}
        tables[str(path.relative_to(directory))] = (frame.drop(columns=[c for c in frame if c in TIMING_COLUMNS]),
                                                    parameters)
    return tables


def assert_same_tables(first: Path, second: Path, names=None) -> list[str]:
    """The result tables (data and recorded parameters) of two runs are identical; returns the names compared."""
    a, b = result_tables(first), result_tables(second)
    names = sorted(names or a)
    assert names, f"no result tables under {first}"
    for name in names:
        assert name in a and name in b, f"{name} missing from one run"
        pd.testing.assert_frame_equal(a[name][0], b[name][0], check_exact=True, obj=name)
        assert json.dumps(a[name][1], sort_keys=True) == json.dumps(b[name][1], sort_keys=True), name
    return names


def _children(pid: int) -> list[int]:
    """Children of every thread of ``pid`` (Snakemake starts jobs from worker threads)."""
    children = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return children


def _descendants(pid: int) -> list[int]:
    found, queue = [], [pid]
    while queue:
        for child in _children(queue.pop()):
            found.append(child)
            queue.append(child)
    return found


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def find_job_process(snakemake_pid: int, rule: str, marker: str) -> int | None:
    """The process of a running local job of ``rule``: a descendant of snakemake running the
    rule's generated script (.snakemake/scripts/tmp*.<rule>.py) whose text contains ``marker``
    (e.g. a wildcard value, which Snakemake serialises into the script)."""
    for pid in _descendants(snakemake_pid):
        for argument in _cmdline(pid):
            if argument.endswith(f".{rule}.py") and Path(argument).exists() and marker in Path(argument).read_bytes().decode(errors="replace"):
                return pid
    return None


def kill_job_halfway(directory: Path, targets: list[str], rule: str, marker: str, log: str, halfway_text: str,
                     options=(), timeout=300) -> dict:
    """Start ``snakemake targets`` in ``directory``; once ``log`` (the job's log) contains
    ``halfway_text``, SIGKILL the job of ``rule`` whose script contains ``marker`` and every
    process it started (its process tree: a local job shares Snakemake's process group, so the
    group itself cannot be signalled without killing Snakemake too). Snakemake then fails the
    job and exits after the jobs still running. Returns what happened."""
    process = subprocess.Popen(snakemake_command(*targets, *options), cwd=directory, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    deadline, killed = time.monotonic() + timeout, None
    try:
        while time.monotonic() < deadline and process.poll() is None:
            path = directory / log
            if path.exists() and halfway_text in path.read_text(errors="replace"):
                job = find_job_process(process.pid, rule, marker)
                if job is not None:
                    victims = [job, *_descendants(job)]
                    for pid in victims:
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                    killed = victims
                    break
            time.sleep(0.05)
        output, _ = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
    return {"killed": killed, "returncode": process.returncode, "output": output}


def kill_dag_during(directory: Path, targets: list[str], rule: str, options=(), timeout=300) -> dict:
    """Start ``snakemake targets`` in ``directory`` in a session of its own; once a job of ``rule``
    runs its script, SIGKILL the whole session (Snakemake and every job: ``kill -9`` of the process
    group, as a power cut or the OOM killer would). Returns what happened."""
    process = subprocess.Popen(snakemake_command(*targets, *options), cwd=directory, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    deadline, killed = time.monotonic() + timeout, None
    try:
        while time.monotonic() < deadline and process.poll() is None:
            job = find_job_process(process.pid, rule, "")
            if job is not None:
                killed = [process.pid, job]
                os.killpg(process.pid, signal.SIGKILL)
                break
            time.sleep(0.05)
        output, _ = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return {"killed": killed, "returncode": process.returncode, "output": output}


def jobs_in(output: str) -> list[tuple[str, str]]:
    """(rule, wildcards) of every job a snakemake run or dry run lists ("rule x:" blocks)."""
    jobs = []
    for line in output.splitlines():
        stripped = line.strip()
        if stripped.startswith(("rule ", "localrule ")) and stripped.endswith(":"):
            jobs.append([stripped.split()[1].rstrip(":"), ""])
        elif stripped.startswith("wildcards:") and jobs:
            jobs[-1][1] = stripped.removeprefix("wildcards:").strip()
    return [tuple(job) for job in jobs]


def job_resources(output: str) -> dict[str, list[dict]]:
    """rule -> the resources of each of its jobs, as Snakemake lists them (a dry run, or the jobs it
    started): the ``resources:`` line of each ``rule``/``localrule`` block."""
    found, rule = {}, None
    for line in output.splitlines():
        stripped = line.strip()
        if stripped.startswith(("rule ", "localrule ")) and stripped.endswith(":"):
            rule = stripped.split()[1].rstrip(":")
        elif stripped.startswith("resources:") and rule:
            pairs = dict(item.split("=", 1) for item in stripped.removeprefix("resources:").strip().split(", "))
            found.setdefault(rule, []).append(pairs)
            rule = None
    return found
