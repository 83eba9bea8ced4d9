"""Whole runs of the tiny config: the reports of a default run, the same tables with 1 or 2 cores
and through the cluster-generic profile, a job killed halfway, damaged or foreign result files,
and output folders that cannot be written."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from workflow_runs import TINY, assert_same_tables, copy_workflow, jobs_in, kill_job_halfway, result_tables, snakemake

from dpsampling.io import read_table, write_table

pytestmark = pytest.mark.workflow
SUBSET = ["chua24_fig2", "chua24_thm41", "chua25_fig1"]  # accountants and training, cheap at the tiny config


@pytest.fixture(scope="module")
def local_full(tiny_full_run):
    """The default target (every experiment, the claims and both reports) with 2 cores (conftest.py)."""
    return tiny_full_run


@pytest.fixture(scope="module")
def subset_one_core(tmp_path_factory):
    directory = copy_workflow(tmp_path_factory.mktemp("subset_one_core"))
    result = snakemake(directory, *SUBSET, "--cores", "1", "--configfile", TINY)
    assert result.returncode == 0, result.stderr[-4000:]
    return directory


CLUSTER_TARGETS = ["chua24_fig2", "lebeda24_addremove"]
"""An accountant and Monte Carlo shards (the report needs every experiment). Training and
chua25's shards are the same kind of job; they are left out to keep CI short (tests/workflow/test_slurm.py
runs the same targets through a real SLURM)."""


@pytest.fixture(scope="module")
def cluster_run(tmp_path_factory):
    """A small DAG through config/profiles/cluster-generic: every job a background process."""
    directory = copy_workflow(tmp_path_factory.mktemp("cluster_run"))
    result = snakemake(directory, *CLUSTER_TARGETS, "--profile", "config/profiles/cluster-generic", "--configfile", TINY)
    assert result.returncode == 0, result.stderr[-4000:]
    return directory, result.stdout + result.stderr


def test_default_run_writes_the_markdown_and_html_reports(local_full):
    text = (local_full / "results/REPORT.md").read_text()
    experiments = sorted(p.name for p in (local_full / "results").iterdir() if p.is_dir())
    assert f"{len(experiments)} experiments: {len(experiments)} complete, 0 partial, 0 not run." in text
    claims = pd.read_csv(local_full / "results/claims.csv")
    assert f"{len(claims)} claims: {(claims['verdict'] == 'reproduced').sum()} reproduced" in text
    for name in experiments:
        assert f"### {name}" in text
    html = (local_full / "results/report.html").read_text()
    assert "chua24_fig2.png" in html and "claims.csv" in html and "REPORT.md" in html
    # a caption rendered with that experiment's verdicts and recorded parameters
    fig2 = claims[claims["experiment"] == "chua24_fig2"]["claim_id"]
    assert all(claim_id in html for claim_id in fig2) and "spec.epsilon_grid.num" in html


def test_same_config_gives_identical_tables_with_one_and_two_cores(local_full, subset_one_core):
    compared = assert_same_tables(subset_one_core, local_full)
    assert {name.split("/")[1] for name in compared} == set(SUBSET)
    assert len(compared) == 1 + 1 + 3  # bounds x2, two training panels and their combination


def test_cluster_generic_profile_runs_the_dag_like_a_local_run(cluster_run, local_full):
    directory, log = cluster_run
    compared = assert_same_tables(directory, local_full, sorted(result_tables(directory)))
    assert {name.split("/")[1] for name in compared} == set(CLUSTER_TARGETS)
    assert any("/samples/" in name for name in compared)  # Monte Carlo shards went through the cluster too
    # every non-local job went through submit.sh and ended with exit code 0
    submitted = [line for line in log.splitlines() if "with external jobid" in line]
    states = sorted((directory / ".snakemake/local-cluster").iterdir())
    assert len(submitted) == len(states) >= 9  # chua24_fig2 (1) and lebeda24_addremove (8), the SLURM test's targets
    assert all((state / "exitcode").read_text().strip() == "0" for state in states)


def test_a_job_killed_halfway_is_the_only_one_recomputed(tmp_path, subset_one_core):
    """SIGKILL one panel's training job of chua25_fig1 once half its settings are done; the rerun
    recomputes that panel only, and the final tables equal an uninterrupted run's."""
    directory = copy_workflow(tmp_path)
    options = ["--cores", "2", "--configfile", TINY]
    outcome = kill_job_halfway(directory, ["chua25_fig1"], rule="train_chua25_fig1", marker="dp_b512",
                               log="logs/chua25_fig1/train_dp_b512.log", halfway_text="(2/2)", options=options)
    assert outcome["killed"], outcome["output"][-3000:]
    assert outcome["returncode"] != 0
    # the other panel finished; nothing of the killed one is left, not even a temporary file
    assert sorted(p.name for p in (directory / "results/chua25_fig1").iterdir()) == ["runs_nonprivate.parquet"]
    plan = snakemake(directory, "chua25_fig1", "-n", *options)
    trainings = [wildcards for rule, wildcards in jobs_in(plan.stdout) if rule == "train_chua25_fig1"]
    assert trainings == ["panel=dp_b512"], plan.stdout[-3000:]
    rerun = snakemake(directory, "chua25_fig1", *options)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert [w for r, w in jobs_in(rerun.stdout + rerun.stderr) if r == "train_chua25_fig1"] == ["panel=dp_b512"]
    names = [f"results/chua25_fig1/{n}" for n in ("auc.parquet", "runs_dp_b512.parquet", "runs_nonprivate.parquet")]
    assert_same_tables(directory, subset_one_core, names)


SLOW_SHARDS = """chua25:
  fig4:
    error_prob: 1.0e-3
    epsilon_grid: {start: 0.0, stop: 2.0, num: 3}
    panels:
      - {name: left, sigma: 0.5, steps: 2000, orders: "1..5,10..30/10",
         naive: {shards: 2, samples_per_shard: 60000}, order_statistics: {shards: 1, samples_per_shard: 200}}
"""
"""Two naive shards per direction of about a second each (1.2e8 coordinates): long enough to be killed."""


def _slow_shard_run(directory: Path):
    (directory / "slow.yaml").write_text(SLOW_SHARDS)
    return ["--cores", "2", "--configfile", TINY, "slow.yaml"]


def test_a_sampling_shard_killed_halfway_is_the_only_shard_recomputed(tmp_path_factory):
    """SIGKILL one Monte Carlo shard job while it samples; the rerun draws that shard only (the
    other three are kept), and the shards and merged delta table equal an uninterrupted run's."""
    killed = copy_workflow(tmp_path_factory.mktemp("killed"))
    options = _slow_shard_run(killed)
    finished = "results/chua25_fig4/samples/left/add/naive/shard-0.parquet"
    assert snakemake(killed, finished, *options).returncode == 0  # one shard surely done before the kill
    shard = "samples/left/remove/naive/shard-1"
    outcome = kill_job_halfway(killed, ["chua25_fig4"], rule="sample_chua25_losses", marker=f"{shard}.parquet",
                               log=f"logs/chua25_fig4/{shard}.log", halfway_text="sampling", options=options)
    assert outcome["killed"], outcome["output"][-3000:]
    assert outcome["returncode"] != 0
    assert not (killed / f"results/chua25_fig4/{shard}.parquet").exists()
    assert not list((killed / "results/chua25_fig4").glob("**/*.tmp"))  # nothing half-written
    done = {path.relative_to(killed).as_posix() for path in killed.glob("results/chua25_fig4/samples/**/*.parquet")}
    assert finished in done
    plan = snakemake(killed, "chua25_fig4", "-n", *options)
    planned = [wildcards for rule, wildcards in jobs_in(plan.stdout) if rule == "sample_chua25_losses"]
    planned_paths = {"results/chua25_fig4/samples/left/{direction}/{series}/shard-{shard}.parquet".format(
        **dict(item.split("=") for item in wildcards.split(", "))) for wildcards in planned}
    assert f"results/chua25_fig4/{shard}.parquet" in planned_paths, plan.stdout[-3000:]
    assert not planned_paths & done  # a finished shard is never drawn again
    rerun = snakemake(killed, "chua25_fig4", *options)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    whole = copy_workflow(tmp_path_factory.mktemp("uninterrupted"))
    result = snakemake(whole, "chua25_fig4", *_slow_shard_run(whole))
    assert result.returncode == 0, result.stderr[-3000:]
    compared = assert_same_tables(killed, whole)
    assert "results/chua25_fig4/delta.parquet" in compared and sum("/samples/" in n for n in compared) == 6


def _run_fig2(directory):
    result = snakemake(directory, "chua24_fig2", "--cores", "1", "--configfile", TINY)
    log = (directory / "logs/chua24_fig2/plot.log").read_text()
    return result, log


def test_a_result_of_other_parameters_is_refused_and_a_damaged_one_recomputed(tmp_path, subset_one_core):
    """A file written for other parameters is refused by its reader, naming the keys; a truncated
    one is set aside and recomputed by the next run (tests/workflow/test_faults.py: every fault)."""
    directory = copy_workflow(tmp_path, with_results_of=subset_one_core)
    path = directory / "results/chua24_fig2/bounds.parquet"
    frame, document = read_table(path)
    parameters = document["parameters"]
    parameters["spec"] = dict(parameters["spec"], sigma=0.9)  # as if copied in from another config
    write_table(frame, path, parameters)
    result, log = _run_fig2(directory)
    assert result.returncode != 0 and "logs/chua24_fig2/plot.log" in result.stderr
    assert "results/chua24_fig2/bounds.parquet was computed with other parameters (spec: file has" in log
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # truncated, e.g. a disk that filled up
    result, log = _run_fig2(directory)
    assert result.returncode == 0, result.stderr[-3000:]
    assert ("results/chua24_fig2/bounds.parquet is damaged: truncated (no Parquet footer); moved to "
            "results/chua24_fig2/bounds.parquet.damaged, it will be recomputed.") in result.stderr.splitlines()
    assert ("compute_chua24_bounds", "experiment=chua24_fig2") in jobs_in(result.stdout + result.stderr)
    assert (directory / "figures/chua24_fig2.png").exists()
    assert_same_tables(directory, subset_one_core, ["results/chua24_fig2/bounds.parquet"])


def test_an_output_folder_that_is_a_file_stops_before_any_job(tmp_path):
    directory = copy_workflow(tmp_path)
    (directory / "results").write_text("not a folder\n")
    result = snakemake(directory, "chua24_fig2", "--cores", "1", "--configfile", TINY)
    assert result.returncode != 0
    assert "output directory results is a file, not a directory" in result.stderr.splitlines()
    assert not any((directory / name).exists() for name in ("figures", "logs", "benchmarks"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permission bits; the file case above and "
                    "test_unwritable_directory_as_another_user cover root")
def test_an_unwritable_output_folder_stops_before_any_job(tmp_path):
    directory = copy_workflow(tmp_path)
    (directory / "results").mkdir()
    (directory / "results").chmod(0o555)
    result = snakemake(directory, "chua24_fig2", "--cores", "1", "--configfile", TINY)
    assert result.returncode != 0
    assert "output directory results is not writable" in result.stderr.splitlines()
    assert list((directory / "results").iterdir()) == []


def test_unwritable_directory_as_another_user():
    """write_table into a folder the user may not write: a clear error, nothing written. As root
    (who may write anywhere) the write is made by a process of user nobody, through setpriv."""
    with tempfile.TemporaryDirectory() as base:
        os.chmod(base, 0o755)  # nobody may enter, not write
        locked = Path(base) / "locked"
        locked.mkdir(mode=0o755)
        code = ("import pandas as pd\nfrom dpsampling import io\n"
                f"io.write_table(pd.DataFrame({{'x': [1]}}), {str(locked / 't.parquet')!r}, {{}})\n")
        if os.geteuid() == 0:
            if shutil.which("setpriv") is None:
                pytest.skip("running as root without setpriv: no way to write as an unprivileged user")
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", code]
        else:
            locked.chmod(0o555)
            command = [sys.executable, "-c", code]
        result = subprocess.run(command, capture_output=True, text=True)
        if os.geteuid() == 0 and "dpsampling" not in result.stderr:
            pytest.skip(f"python could not start as user nobody here: {result.stderr.strip()[-300:]}")
        assert result.returncode != 0
        assert f"PermissionError: output directory {locked} is not writable" in result.stderr
        assert list(locked.iterdir()) == []
