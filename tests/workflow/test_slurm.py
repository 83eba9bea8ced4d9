"""config/profiles/slurm against a real single-node SLURM with accounting (slurmdbd): .ci/slurm starts
munged, MariaDB, slurmdbd, slurmctld and slurmd once for this module and stops them at its end (also
when a test fails); without root, or without the packages and apt-get, every test here skips with the
reason. `python -m pytest -m slurm` runs only these tests.

Every run goes through the profile and snakemake-executor-plugin-slurm (the version pinned in
pyproject.toml), with the status checks shortened to 1 s (--slurm-init-seconds-before-status-checks,
--seconds-between-status-checks); what SLURM did is read from its own accounting (sacct): each job's
rule (the plugin's --comment), partition, account, requested memory, time limit and TRES.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import yaml
from workflow_runs import ROOT, TINY, assert_same_tables, copy_workflow, job_resources, jobs_in, snakemake_command

from dpsampling.papers.registry import CLAIMS
from dpsampling.pipeline.claims.check import check_claims

pytestmark = [pytest.mark.slurm, pytest.mark.workflow]
SCRIPT = ROOT / ".ci/slurm"
PROFILE = ROOT / "config/profiles/slurm"
FAST_STATUS = ["--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1"]
SACCT_FIELDS = ["JobID", "JobName", "Comment", "Partition", "Account", "State", "ReqMem", "Timelimit", "ReqTRES"]
SLURM_DAG = ["chua24_fig2", "lebeda24_addremove"]
"""A small part of the tiny DAG through SLURM: an accountant job (per-rule resources of the profile),
Monte Carlo shards (the rule's memory, the profile's time), their merge, exact curves and plots (the
profile's defaults). Compared with the tiny DAG run locally (``tiny_full_run``): the same files, tables
and verdicts of these experiments' claims. The claims job itself needs every experiment of the tiny DAG,
several times the local run's minutes through SLURM: the verdicts are judged from each run's results."""


@dataclass
class Cluster:
    directory: Path
    conf: Path
    startup_seconds: float


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    check = subprocess.run([SCRIPT, "check"], capture_output=True, text=True)
    if check.returncode != 0:
        pytest.skip(f"no SLURM for the tests: {check.stdout.strip() or check.stderr.strip()}")
    directory = tmp_path_factory.mktemp("slurm")
    start, daemons = time.monotonic(), []
    try:
        started = subprocess.run([SCRIPT, "start", directory], capture_output=True, text=True, timeout=900)
        if started.returncode == 3:  # the packages could not be installed (no network, no Debian mirror)
            pytest.skip(f"no SLURM for the tests: {started.stderr.strip().splitlines()[-1]}")
        assert started.returncode == 0, f"{started.stdout}\n{started.stderr}"[-3000:]
        daemons = sorted(int(p.read_text()) for p in (directory / "run").glob("*.pid"))
        assert len(daemons) == 5, daemons  # munged, mariadbd, slurmdbd, slurmctld, slurmd
        yield Cluster(directory, directory / "etc/slurm.conf", time.monotonic() - start)
    finally:
        subprocess.run([SCRIPT, "stop", directory], timeout=300)
    left = [pid for pid in daemons if _alive(pid)] + _job_processes()
    assert not left, f"still running after .ci/slurm stop: {left}"


def _alive(pid: int) -> bool:
    """Running (a zombie, which the machine's init may never reap, has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _job_processes() -> list[int]:
    """Processes started by a job of the test cluster (SLURM puts its name in every job's environment)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"SLURM_CLUSTER_NAME=dpsampling\0" in (entry / "environ").read_bytes() and _alive(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _environment(cluster: Cluster, **extra) -> dict:
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith(("SBATCH_", "SLURM_", "SRUN_")) and k != "NUMBA_ENABLE_CUDASIM"}
    return {**environment, "SLURM_CONF": str(cluster.conf), **extra}


def _snakemake_slurm(cluster: Cluster, directory: Path, *args, env=None, configfiles=(TINY,),
                     timeout=900) -> subprocess.CompletedProcess:
    command = snakemake_command(*args, "--profile", str(PROFILE), "--configfile", *configfiles, *FAST_STATUS)
    return subprocess.run(command, cwd=directory, env=_environment(cluster, **(env or {})), capture_output=True,
                          text=True, timeout=timeout)


def _run_id(output: str) -> str:
    found = re.findall(r"SLURM run ID: (\S+)", output)
    assert len(found) == 1, output[-3000:]
    return found[0]


def _rule_of(comment: str) -> str:
    """The plugin's --comment: rule_<rule> or rule_<rule>_wildcards_<wildcards>."""
    return re.fullmatch(r"rule_(\w+?)(?:_wildcards_.*)?", comment).group(1)


def _sacct(cluster: Cluster, run_id: str) -> list[dict]:
    """SLURM's accounting of every job of one Snakemake run (the plugin names them all after the run)."""
    result = subprocess.run(["sacct", "-X", "--parsable2", "--noheader", "--starttime", "now-1days", "--name", run_id,
                             "--format", ",".join(SACCT_FIELDS)],
                            env=_environment(cluster), capture_output=True, text=True, check=True)
    return [dict(zip(SACCT_FIELDS, line.split("|"))) for line in result.stdout.splitlines() if line]


def _timelimit_minutes(text: str) -> int:
    days, _, clock = text.rpartition("-")
    hours, minutes, seconds = (int(x) for x in clock.split(":"))
    return int(days or 0) * 1440 + hours * 60 + minutes + (seconds > 0)


@pytest.fixture(scope="module")
def slurm_dag(slurm, tmp_path_factory):
    """SLURM_DAG's experiments through SLURM, the jobs sent to partition `second` under account
    `project_b` by the environment."""
    directory = copy_workflow(tmp_path_factory.mktemp("slurm_dag"))
    start = time.monotonic()
    result = _snakemake_slurm(slurm, directory, *SLURM_DAG, env={"SBATCH_PARTITION": "second",
                                                                 "SBATCH_ACCOUNT": "project_b"})
    seconds = time.monotonic() - start
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    return directory, output, _sacct(slurm, _run_id(output)), seconds


def test_the_dag_runs_through_sbatch_and_equals_a_local_run(slurm_dag, tiny_full_run):
    directory, output, accounted, seconds = slurm_dag
    ran = Counter(rule for rule, _ in jobs_in(output))
    local_rules = {"chua24_fig2", "lebeda24_addremove"}  # the target rules: no job, nothing submitted
    submitted = Counter({rule: count for rule, count in ran.items() if rule not in local_rules})
    assert submitted["compute_chua24_bounds"] == 1 and submitted["sample_lebeda24_losses"] >= 2, ran
    assert submitted["plot_chua24_figure"] == 1 and submitted["merge_lebeda24_losses"] == 1, ran
    # every job Snakemake ran is one SLURM job of this run, accounted under its rule's name, and completed
    assert Counter(_rule_of(job["Comment"]) for job in accounted) == submitted, accounted
    assert {job["State"] for job in accounted} == {"COMPLETED"}
    # what SLURM computed equals the local run: the same result files of these experiments, every result
    # table (data and recorded parameters; the Monte Carlo shards and delta tables among them) identical
    files = {run: sorted(str(p.relative_to(run)) for experiment in SLURM_DAG
                         for p in (run / "results" / experiment).glob("**/*") if p.is_file())
             for run in (directory, tiny_full_run)}
    assert files[directory] == files[tiny_full_run]
    compared = assert_same_tables(directory, tiny_full_run)
    assert any("/samples/" in name for name in compared) and "results/lebeda24_addremove/delta_mc.parquet" in compared
    # and the same verdicts: these experiments' claims judged on SLURM's results equal the local claims.csv
    judged = check_claims(CLAIMS, directory / "results", experiments=SLURM_DAG)
    # (the tiny config leaves some of their settings out: those claims are not_run in both runs)
    decided = judged[judged["verdict"] != "not_run"]
    assert set(decided["experiment"]) == set(SLURM_DAG) and {"reproduced", "not_reproduced"} <= set(decided["verdict"]), judged
    as_text = {"dtype": str, "keep_default_na": False}  # the CSV's text, cell by cell
    local = pd.read_csv(tiny_full_run / "results/claims.csv", **as_text)
    local = local[local["experiment"].isin(SLURM_DAG)].reset_index(drop=True)
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(judged.to_csv(index=False)), **as_text), local)
    print(f"\n{sum(submitted.values())} jobs through SLURM in {seconds:.0f} s")


def test_memory_time_partition_and_account_reach_slurm(slurm_dag):
    """mem_mb and runtime (rule, profile set-resources, profile defaults) become the job's requested
    memory and time limit in SLURM; $SBATCH_PARTITION and $SBATCH_ACCOUNT its partition and account."""
    _, output, accounted, _ = slurm_dag
    requested = job_resources(output)
    profile = yaml.safe_load(PROFILE.joinpath("config.yaml").read_text())
    assert requested["compute_chua24_bounds"][0]["mem_mb"] == str(profile["set-resources"]["compute_chua24_bounds"]["mem_mb"])
    assert requested["merge_lebeda24_losses"][0]["mem_mb"] == "4000"  # the rule's own
    assert requested["plot_chua24_figure"][0]["runtime"] == str(profile["default-resources"]["runtime"])
    assert requested["sample_lebeda24_losses"][0]["runtime"] == str(profile["set-resources"]["sample_lebeda24_losses"]["runtime"])
    seen = Counter()
    for job in accounted:
        rule = _rule_of(job["Comment"])
        wanted = requested[rule][seen[rule]]
        seen[rule] += 1
        assert job["ReqMem"] == f"{wanted['mem_mb']}M", (rule, job)
        assert _timelimit_minutes(job["Timelimit"]) == int(wanted["runtime"]), (rule, job)
        assert job["Partition"] == "second" and job["Account"] == "project_b", job
        assert "gres/gpu" not in job["ReqTRES"], job
    assert {requested[rule][0]["mem_mb"] for rule in seen} >= {"2000", "4000", "8000"}  # three sources of mem_mb


SLOW_SHARD = """chua25:
  fig4:
    error_prob: 1.0e-3
    epsilon_grid: {start: 0.0, stop: 2.0, num: 3}
    panels:
      - {name: left, sigma: 0.5, steps: 2000, orders: "1..5,10..30/10",
         naive: {shards: 1, samples_per_shard: 150000}, order_statistics: {shards: 1, samples_per_shard: 200}}
"""
"""A naive shard that samples for a few seconds (3e8 coordinates, after compiling), and a quick one beside it."""


def test_a_sampling_job_cancelled_in_slurm_is_reported_and_alone_rerun(slurm, tmp_path):
    """scancel one Monte Carlo shard's SLURM job while it samples: Snakemake reports the cancellation,
    no part of that shard is kept, and the next run submits that shard and nothing else. No account in
    the environment: the profile takes the user's default account from SLURM (sacctmgr)."""
    directory = copy_workflow(tmp_path)
    (directory / "slow.yaml").write_text(SLOW_SHARD)
    slow = "results/chua25_fig4/samples/left/remove/naive/shard-0.parquet"
    quick = "results/chua25_fig4/samples/left/remove/order_statistics/shard-0.parquet"
    log = directory / "logs/chua25_fig4/samples/left/remove/naive/shard-0.log"
    command = snakemake_command(slow, quick, "--profile", str(PROFILE), "--configfile", TINY, "slow.yaml", *FAST_STATUS)
    process = subprocess.Popen(command, cwd=directory, env=_environment(slurm), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    cancelled = None
    try:
        deadline = time.monotonic() + 600
        while cancelled is None and process.poll() is None and time.monotonic() < deadline:
            if log.exists() and log.read_text().startswith("sampling"):
                queue = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-o", "%i|%k"], env=_environment(slurm),
                                       capture_output=True, text=True, check=True).stdout.split()
                for job_id, comment in (line.split("|", 1) for line in queue):
                    if comment.endswith("_left_remove_naive_0"):  # rule_<rule>_wildcards_<wildcard values>
                        subprocess.run(["scancel", job_id], env=_environment(slurm), check=True)
                        cancelled = job_id
            time.sleep(0.2)
        output, _ = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
    assert cancelled, output[-3000:]
    assert process.returncode != 0
    assert f"SLURM-job '{cancelled}' failed, SLURM status is: 'CANCELLED" in output, output[-3000:]
    accounted = {job["JobID"]: job for job in _sacct(slurm, _run_id(output))}
    assert accounted[cancelled]["State"].startswith("CANCELLED")
    assert {job["Account"] for job in accounted.values()} == {"dpsampling"}  # the user's default account
    assert {job["Partition"] for job in accounted.values()} == {"main"}  # the default partition
    assert (directory / quick).exists() and not (directory / slow).exists()
    assert not list((directory / "results").glob("**/*.tmp*"))  # nothing half-written is kept
    rerun = _snakemake_slurm(slurm, directory, slow, quick, configfiles=(TINY, "slow.yaml"))
    assert rerun.returncode == 0, (rerun.stdout + rerun.stderr)[-3000:]
    output = rerun.stdout + rerun.stderr
    assert jobs_in(output) == [("sample_chua25_losses", "experiment=chua25_fig4, panel=left, direction=remove, "
                                                       "series=naive, shard=0")], output[-3000:]
    assert [job["State"] for job in _sacct(slurm, _run_id(output))] == ["COMPLETED"]
    assert (directory / slow).exists()


def test_gpu_jobs_ask_slurm_for_one_gpu_in_the_gpu_partition(slurm, tmp_path):
    """device: cuda: the sampling job is submitted with --gpus=1 to $SBATCH_GPU_PARTITION and SLURM
    allocates it a GPU (the test node's pretend one; the CUDA simulator computes); a job of another rule
    stays in $SBATCH_PARTITION and asks for none."""
    directory = copy_workflow(tmp_path)
    shard = "results/chua25_fig4/samples/left/add/naive/shard-0.parquet"
    result = _snakemake_slurm(slurm, directory, shard, "results/lebeda24_rr/rr.parquet", "--verbose",
                              "--config", "device=cuda",
                              env={"SBATCH_PARTITION": "second", "SBATCH_GPU_PARTITION": "gpu", "NUMBA_ENABLE_CUDASIM": "1"})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    calls = [line for line in output.splitlines() if "sbatch call:" in line]
    gpu_call = [call for call in calls if "rule_sample_chua25_losses_gpu" in call]
    assert len(calls) == 2 and len(gpu_call) == 1, calls
    assert " --gpus=1" in gpu_call[0] and " -p gpu " in gpu_call[0], gpu_call
    accounted = {_rule_of(job["Comment"]): job for job in _sacct(slurm, _run_id(output))}
    gpu_job, cpu_job = accounted["sample_chua25_losses_gpu"], accounted["compute_lebeda24_rr"]
    assert gpu_job["Partition"] == "gpu" and "gres/gpu=1" in gpu_job["ReqTRES"] and gpu_job["State"] == "COMPLETED"
    assert cpu_job["Partition"] == "second" and "gres/gpu" not in cpu_job["ReqTRES"]
    assert (directory / shard).exists()


@pytest.mark.parametrize("setting, reason", [
    ({"SBATCH_PARTITION": "nowhere"}, "sbatch: error: Batch job submission failed: Invalid partition name specified"),
    ({"SBATCH_ACCOUNT": "nobody"}, "The given account nobody appears to be invalid"),
    ("mem_mb=100000000", "sbatch: error: Batch job submission failed: Requested node configuration is not available"),
], ids=["partition", "account", "memory"])
def test_a_refused_submission_says_why_in_one_line_and_writes_nothing(slurm, tmp_path, setting, reason):
    """A partition or an account that does not exist, or more memory than the node has: Snakemake
    prints SLURM's reason (the account is checked by the plugin against SLURM's associations before
    sbatch), and no result is written."""
    directory = copy_workflow(tmp_path)
    if isinstance(setting, dict):
        result = _snakemake_slurm(slurm, directory, "lebeda24_rr", env=setting)
    else:
        result = _snakemake_slurm(slurm, directory, "lebeda24_rr", "--set-resources", f"compute_lebeda24_rr:{setting}")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert any(reason in line for line in output.splitlines()), output[-3000:]
    assert not list(directory.glob("results/**/*.*")), list(directory.glob("results/**/*"))


def test_start_replaces_only_a_stale_link_of_an_earlier_test_cluster(tmp_path):
    """A killed test run leaves /etc/slurm/slurm.conf linking to its cluster; the next start replaces that link
    (the cluster's directory gone, or its slurmctld dead) and nothing else: someone's own file, another cluster's
    config, or a test cluster whose slurmctld still runs."""

    def stale(path: Path) -> bool:
        return subprocess.run([SCRIPT, "stale", path], capture_output=True).returncode == 0

    def cluster(name: str, cluster_name: str, pid: int | None) -> Path:
        (tmp_path / name / "etc").mkdir(parents=True)
        (tmp_path / name / "run").mkdir()
        (tmp_path / name / "etc/slurm.conf").write_text(f"ClusterName={cluster_name}\nSlurmctldPort=16817\n")
        if pid is not None:
            (tmp_path / name / "run/slurmctld.pid").write_text(f"{pid}\n")
        link = tmp_path / f"{name}.link"
        link.symlink_to(tmp_path / name / "etc/slurm.conf")
        return link

    dangling = tmp_path / "dangling.link"
    dangling.symlink_to(tmp_path / "removed/etc/slurm.conf")
    assert stale(dangling)
    assert stale(cluster("dead", "dpsampling", None))
    finished = subprocess.Popen(["true"])
    finished.wait()
    assert stale(cluster("killed", "dpsampling", finished.pid))
    assert not stale(cluster("running", "dpsampling", os.getpid()))
    assert not stale(cluster("other", "production", None))
    own = tmp_path / "own.conf"
    own.write_text("ClusterName=dpsampling\n")
    assert not stale(own)
    assert not stale(tmp_path / "nothing_there")
