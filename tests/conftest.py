"""Shared fixtures: one run of the default target on the tiny test config (every experiment, the
claims and both reports, 2 cores), shared by every test that only reads what it wrote."""

import pytest
from workflow_runs import TINY, copy_workflow, snakemake


@pytest.fixture(scope="session")
def tiny_full_run(tmp_path_factory):
    directory = copy_workflow(tmp_path_factory.mktemp("tiny_full_run"))
    result = snakemake(directory, "--cores", "2", "--configfile", TINY)
    assert result.returncode == 0, result.stderr[-4000:]
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
