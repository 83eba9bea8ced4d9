"""config/profiles: the SLURM profile's resources (dry run) and the cluster-generic profile's
submit / status / cancel scripts (each job a background process of its own)."""

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from workflow_runs import ROOT, TINY, copy_workflow, job_resources, jobs_in, snakemake, snakemake_command

PROFILES = ROOT / "config" / "profiles"
GENERIC = PROFILES / "cluster-generic"


@pytest.mark.workflow
def test_slurm_profile_takes_account_and_partition_from_the_environment(tmp_path):
    directory = copy_workflow(tmp_path)
    environment = dict(os.environ, SBATCH_ACCOUNT="acct_x", SBATCH_PARTITION="part_y")
    profile = yaml.safe_load((PROFILES / "slurm/config.yaml").read_text())
    result = subprocess.run(snakemake_command("-n", "--profile", str(PROFILES / "slurm"), "--configfile", TINY),
                            cwd=directory, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    resources = job_resources(result.stdout)
    remote = {rule: jobs for rule, jobs in resources.items() if rule not in ("all", "report", "report_html")}
    assert {"compute_chua24_bounds", "train_chua25_fig1", "claims"} <= set(remote)
    for rule, jobs in remote.items():
        for job in jobs:
            assert job["slurm_account"] == "acct_x" and job["slurm_partition"] == "part_y", rule
    for rule, wanted in profile["set-resources"].items():  # per-rule resources of the profile win
        for job in resources.get(rule, []):
            for key, value in wanted.items():
                assert job[key] == str(value), (rule, key)


@pytest.mark.workflow
def test_slurm_profile_sends_sampling_jobs_to_a_gpu_partition_when_device_is_cuda(tmp_path):
    """device: cuda on a login node without a GPU: the check is left to the jobs' nodes (a cluster
    executor keeps --jobs); each sampling job asks for one GPU (gpu=1, the plugin's --gpus=1) in
    $SBATCH_GPU_PARTITION, every other job stays in $SBATCH_PARTITION. With device cpu no job asks
    for a GPU."""
    directory = copy_workflow(tmp_path)
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    environment.update(SBATCH_ACCOUNT="acct_x", SBATCH_PARTITION="part_y", SBATCH_GPU_PARTITION="gpu_z")
    found = {}
    for device in ("cuda", "cpu"):
        result = subprocess.run(snakemake_command("chua25_fig2", "-n", "--profile", str(PROFILES / "slurm"),
                                                  "--configfile", TINY, "--config", f"device={device}"),
                                cwd=directory, env=environment, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-3000:]
        found[device] = job_resources(result.stdout)
    gpu_jobs = found["cuda"]["sample_chua25_losses_gpu"]
    assert len(gpu_jobs) == 4 and "sample_chua25_losses" not in found["cuda"]
    for job in gpu_jobs:
        assert job["gpu"] == "1" and job["slurm_partition"] == "gpu_z" and job["slurm_account"] == "acct_x"
    for rule in ("merge_chua25_delta", "compute_chua25_bounds"):
        assert found["cuda"][rule][0]["slurm_partition"] == "part_y" and "gpu" not in found["cuda"][rule][0]
    assert "sample_chua25_losses_gpu" not in found["cpu"]
    for job in found["cpu"]["sample_chua25_losses"]:
        assert "gpu" not in job and job["slurm_partition"] == "part_y"


@pytest.mark.workflow
def test_default_resources_on_the_command_line_replace_the_profiles_but_keep_per_rule_ones(tmp_path):
    """Why the README says: set the account by environment, not by --default-resources."""
    directory = copy_workflow(tmp_path)
    result = snakemake(directory, "-n", "--profile", str(PROFILES / "slurm"), "--configfile", TINY,
                       "--default-resources", "slurm_account=other")
    assert result.returncode == 0, result.stderr[-3000:]
    resources = job_resources(result.stdout)
    profile = yaml.safe_load((PROFILES / "slurm/config.yaml").read_text())
    train = resources["train_chua25_fig1"][0]
    assert train["slurm_account"] == "other"
    assert train["mem_mb"] == str(profile["set-resources"]["train_chua25_fig1"]["mem_mb"])
    combine = resources["combine_chua25_fig1"][0]  # no rule resources: the profile's defaults are gone
    assert combine.get("runtime") != str(profile["default-resources"]["runtime"])


def _job_script(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "job.sh"
    script.write_text(f"#!/bin/bash\n{body}\n")
    return script


def _state(directory: Path, job_id: str) -> str:
    return subprocess.run([GENERIC / "status.sh", job_id], cwd=directory, capture_output=True, text=True,
                          check=True).stdout.strip()


def _wait(directory: Path, job_id: str, timeout=20) -> str:
    deadline = time.monotonic() + timeout
    while (state := _state(directory, job_id)) == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    return state


def _submit(directory: Path, script: Path) -> str:
    job_id = subprocess.run([GENERIC / "submit.sh", script], cwd=directory, capture_output=True, text=True,
                            check=True).stdout.strip()
    assert re.fullmatch(r"[0-9]+-[0-9]+", job_id)
    return job_id


@pytest.mark.parametrize("body, final", [("sleep 0.5; exit 0", "success"), ("sleep 0.5; exit 3", "failed")])
def test_generic_submit_runs_the_job_in_the_background_and_status_follows_it(tmp_path, body, final):
    job_id = _submit(tmp_path, _job_script(tmp_path, body))
    assert _state(tmp_path, job_id) == "running"  # submit returned at once
    assert _wait(tmp_path, job_id) == final


@pytest.mark.parametrize("how", ["cancel", "sigkill"])
def test_a_cancelled_or_killed_job_is_failed(tmp_path, how):
    marker = tmp_path / "finished"
    job_id = _submit(tmp_path, _job_script(tmp_path, f"sleep 30; touch {marker}"))
    pid = int((tmp_path / ".snakemake/local-cluster" / job_id / "pid").read_text())
    assert os.getpgid(pid) == pid  # a session and process group of its own
    if how == "cancel":
        subprocess.run([GENERIC / "cancel.sh", job_id], cwd=tmp_path, check=True)
    else:
        os.killpg(pid, signal.SIGKILL)
    assert _wait(tmp_path, job_id) == "failed"
    assert not marker.exists()


def test_status_of_an_unknown_job_is_failed(tmp_path):
    assert _state(tmp_path, "123-456") == "failed"


def test_profiles_name_only_known_rules():
    """set-resources entries of rules that do not exist would be ignored silently."""
    text = "\n".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk"))
    rules = set(re.findall(r"^rule (\w+):", text, re.M))
    for names in re.findall(r'^\w+_RULE = "(\w+)" if \w+ else "(\w+)"$', text, re.M):  # rules named by the config
        rules |= set(names)
    assert "sample_chua25_losses_gpu" in rules
    for name in ("slurm",):
        profile = yaml.safe_load((PROFILES / name / "config.yaml").read_text())
        assert set(profile.get("set-resources", {})) <= rules, name
    assert jobs_in("rule a:\n    wildcards: x=1\nlocalrule b:\n") == [("a", "x=1"), ("b", "")]


@pytest.mark.workflow
def test_local_profile_is_valid(tmp_path):
    directory = copy_workflow(tmp_path)
    result = snakemake(directory, "-n", "--profile", str(PROFILES / "local"), "--configfile", TINY)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "rule report_html" in result.stdout + result.stderr


def test_the_workflow_profile_wakes_the_scheduler_less_often_at_snakemakes_submission_rate():
    """profiles/default's rate limit parses as Snakemake parses it, submits no faster than
    Snakemake's default (100 jobs per second) and re-schedules at most every 5 s (not every second)."""
    from snakemake.settings.types import MaxJobsPerTimespan

    settings = yaml.safe_load((ROOT / "profiles" / "default" / "config.yaml").read_text())
    limit = MaxJobsPerTimespan.parse_choice(settings["max-jobs-per-timespan"])
    assert limit.timespan >= 5.0
    assert limit.max_jobs / limit.timespan <= 100.0
