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
