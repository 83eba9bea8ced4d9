"""Shared fixtures: one run of the default target on the tiny test config (every experiment, the
claims and both reports, 2 cores), shared by every test that only reads what it wrote."""

import fcntl
import json
import os

import pytest
from workflow_runs import TINY, copy_workflow, snakemake


@pytest.fixture(scope="session")
def tiny_full_run(tmp_path_factory):
    """Made once per test run, not once per process: under pytest-xdist every worker is a session
    of its own, and each worker that drew a file using this fixture used to run the whole tiny DAG
    again. The first worker runs it under a lock in the run's shared temporary folder (the parent
    of the workers' own); the others wait for it and read its outcome. Tests only read it (their
    Snakemake calls in it are dry runs, which take no lock) or copy it."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the folder every worker of this run shares
    directory, outcome_file = root / "tiny_full_run", root / "tiny_full_run.json"
    with open(root / "tiny_full_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not outcome_file.exists():
            result = snakemake(copy_workflow(directory), "--cores", "2", "--configfile", TINY)
            outcome_file.write_text(json.dumps({"returncode": result.returncode, "stderr": result.stderr[-4000:]}))
        outcome = json.loads(outcome_file.read_text())
    assert outcome["returncode"] == 0, outcome["stderr"]
    return directory


def pytest_collection_modifyitems(config, items):
    """The files that run Snakemake first, the SLURM ones first of all: under the test command's
    `-n auto --dist loadfile` each file goes whole to one worker, in this order, so a long file
    left to the end would run alone while the other cores idle. Within a file the order is kept."""
    def rank(item) -> int:
        return 0 if item.get_closest_marker("slurm") else 1 if item.get_closest_marker("workflow") else 2

    first = {}
    for item in items:
        path = item.nodeid.split("::")[0]
        first[path] = min(first.get(path, 2), rank(item))
    items.sort(key=lambda item: first[item.nodeid.split("::")[0]])
