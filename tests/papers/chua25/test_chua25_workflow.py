"""The chua25 privacy workflow for real on the toy config (.test/config/config.yaml): shard metadata,
caching (nothing reruns; an eps-grid change reruns the merge but no sampling; a new shard samples
only itself), a shard with mismatched metadata refused by the merge, and identical results with
--cores 1 and --cores 2. Device and storage: switching the device to cuda reruns nothing (the
simulator stands in for the GPU); device cuda without a GPU stops before any job with one line;
statistics storage gives the very same delta table, and with it an eps-grid change redraws the
shards.

The results read are the tiny full run's (``tiny_full_run``, conftest.py: its default target makes
every chua25 result, with the kernels compiled). The Snakemake jobs these tests run again run with
NUMBA_DISABLE_JIT=1: every sampling job is a new process and would otherwise spend seconds compiling
the kernels for a few hundred samples. With the JIT disabled the kernels are plain Python, claimed
bit-identical at these sizes: the reruns (one core, statistics storage) are compared bit for bit
with the compiled run's losses and delta tables, so they test that claim too.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from workflow_runs import copy_workflow

from dpsampling.accountants import ballsbins as bb
from dpsampling.io import read_metadata, read_table, write_table

pytestmark = pytest.mark.workflow
TARGETS = ["chua25_fig2", "chua25_fig3", "chua25_fig4", "chua25_epochs", "chua25_props", "chua25_trunc", "chua25_b_vs_p"]
CONFIG = [".test/config/config.yaml"]
SHARD = "results/chua25_fig2/samples/search_b8192/remove/order_statistics/shard-1.parquet"
TIMING = ["sampling_seconds", "sampling_cpu_seconds"]


def _snakemake(directory: Path, *args, cores=2, configfiles=CONFIG, simulator=False):
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore::RuntimeWarning")
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return subprocess.run([sys.executable, "-m", "snakemake", "--cores", str(cores), *args, "--configfile", *configfiles],
                          cwd=directory, capture_output=True, text=True, env=env)


def _jobs(result) -> dict:
    """Rule name -> job count from the 'Job stats' table of a (dry) run."""
    counts, inside = {}, False
    for line in result.stdout.splitlines():
        if line.startswith("job ") and "count" in line:
            inside = True
            continue
        if inside:
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                if parts[0] != "total":
                    counts[parts[0]] = int(parts[1])
            elif parts and not set(line.strip()) <= {"-", " "}:
                break
    return counts


@pytest.fixture(scope="module")
def run(tiny_full_run):
    """The tiny full run, read only (its Snakemake calls here are dry runs); a test that runs jobs
    copies it."""
    return tiny_full_run


def test_every_result_is_written_with_its_metadata(run):
    shard = read_metadata(run / SHARD)
    parameters = shard["parameters"]
    assert (parameters["method"], parameters["direction"], parameters["shard"]) == ("order_statistics", "remove", 1)
    assert parameters["orders"] == bb.parse_orders("1..5,10..35/5").tolist() and parameters["samples"] == 400
    assert parameters["seed_entropy"] == "1" and len(parameters["seed_spawn_key"]) == 5
    assert shard["versions"]["dpsampling"] and shard["versions"]["numba"]
    delta, document = read_table(run / "results/chua25_fig2/delta.parquet")
    assert document["parameters"]["epsilons"] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert set(delta["direction"]) == {"remove", "add", "max"} and (delta["count"] == 800).all()  # 2 shards x 400
    summary, _ = read_table(run / "results/chua25_fig3/summary.parquet")
    assert {"MC naive", "MC importance", "bound (6)"} <= set(summary["method"])
    for experiment in ("chua25_fig2", "chua25_fig3", "chua25_fig4", "chua25_epochs"):
        assert (run / "figures" / f"{experiment}.png").stat().st_size > 1000
    checks, _ = read_table(run / "results/chua25_props/checks.parquet")
    assert not checks["contradicts_b_s_d"].any() and not checks["mean_above_ucb"].any()
    for column in ("lower6_above_cert_upper", "cert_lower_above_upper", "cert_lower_above_mc", "cert_upper_below_mc"):
        assert not checks[column].any(), column
    assert "cert_upper_below_mc" in (run / "results/chua25_props/checks.md").read_text()
    assert "| 8192 | 8997 | 8986 |" in (run / "results/chua25_trunc/table.md").read_text()


def test_certified_bounds_and_b_vs_p_are_written(run):
    """Certified B rows (both bounds, three directions) in every bounds table with their record in
    the metadata, bracketing the Monte Carlo mean within z = 4.5 where it is resolved; the b_vs_p
    grid, table and map."""
    for experiment in ("chua25_fig2", "chua25_fig3", "chua25_fig4", "chua25_epochs", "chua25_props"):
        bounds, document = read_table(run / f"results/{experiment}/bounds.parquet")
        certified = bounds[bounds["method"] == "pld (certified)"]
        assert set(zip(certified["bound"], certified["direction"])) == {
            (b, d) for b in ("upper", "lower") for d in ("remove", "add", "max")}, experiment
        records = document["parameters"]["certified"]
        assert records and all(r["accuracy_requested"] == 0.1 and r["engine_version"] >= 1 for r in records)
    summary, _ = read_table(run / "results/chua25_fig2/summary.parquet")
    rows = summary[summary["direction"].isin(["remove", "add"])]
    mean = rows[rows["bound"] == "estimate"].set_index(["direction", "epsilon"])
    upper = rows[(rows["method"] == "pld (certified)") & (rows["bound"] == "upper")].set_index(["direction", "epsilon"])["delta"]
    lower = rows[(rows["method"] == "pld (certified)") & (rows["bound"] == "lower")].set_index(["direction", "epsilon"])["delta"]
    resolved = (mean["delta"] > 0) & (mean["standard_error"] <= 0.1 * mean["delta"])
    assert resolved.any()
    assert ((mean["delta"] - 4.5 * mean["standard_error"] <= upper.reindex(mean.index)) | ~resolved).all()
    assert ((mean["delta"] + 4.5 * mean["standard_error"] >= lower.reindex(mean.index)) | ~resolved).all()
    grid, _ = read_table(run / "results/chua25_b_vs_p/grid.parquet")
    assert len(grid) == 2 * 9 and "P certifiably better" in set(grid["classification"])
    assert "| 0.5 | 2 | 1 |" in (run / "results/chua25_b_vs_p/grid.md").read_text()
    for suffix in ("pdf", "png"):
        assert (run / "figures" / f"chua25_b_vs_p.{suffix}").stat().st_size > 1000


def test_rerun_is_a_no_op(run):
    result = _snakemake(run, *TARGETS, "-n")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_new_eps_grid_reruns_the_merge_but_never_samples(run, tmp_path):
    override = tmp_path / "grid.yaml"
    override.write_text("chua25:\n  fig2:\n    epsilon_grid: {start: 0.0, stop: 6.0, num: 13}\n")
    jobs = _jobs(_snakemake(run, *TARGETS, "-n", configfiles=[*CONFIG, str(override)]))
    assert jobs.get("merge_chua25_delta") == 1 and "sample_chua25_losses" not in jobs, jobs


def test_a_new_shard_samples_only_itself(run, tmp_path):
    override = tmp_path / "shards.yaml"
    override.write_text("chua25:\n  fig2:\n    order_statistics: {shards: 3, samples_per_shard: 400}\n")
    result = _snakemake(run, *TARGETS, "-n", configfiles=[*CONFIG, str(override)])
    assert _jobs(result).get("sample_chua25_losses") == 2  # shard-2, both directions
    assert "shard-2.parquet" in result.stdout and "shard-0.parquet\n" not in result.stdout


def test_a_shard_with_other_metadata_is_refused(run, tmp_path):
    copy = copy_workflow(tmp_path, with_results_of=run)
    frame, document = read_table(copy / SHARD)
    write_table(frame, copy / SHARD, dict(document["parameters"], sigma=0.9))  # same losses, other sigma
    os.utime(copy / "results/chua25_fig2/delta.parquet", (1, 1))  # older than the shard: the merge reruns
    result = _snakemake(copy, "results/chua25_fig2/delta.parquet")
    assert result.returncode != 0
    log = (copy / "logs/chua25_fig2/merge_delta.log").read_text()
    assert f"{SHARD} was computed with other parameters (sigma: file has 0.9, requested 0.5)" in log


def test_one_core_gives_identical_results(run, tmp_path):
    copy = copy_workflow(tmp_path)
    result = _snakemake(copy, "results/chua25_fig2/delta.parquet", cores=1)
    assert result.returncode == 0, result.stderr[-3000:]
    for shard in sorted((run / "results/chua25_fig2/samples").rglob("*.parquet")):
        twin = copy / shard.relative_to(run)
        np.testing.assert_array_equal(read_table(twin)[0]["loss"], read_table(shard)[0]["loss"])
        first, second = read_metadata(shard)["parameters"], read_metadata(twin)["parameters"]
        assert {k: v for k, v in first.items() if k not in TIMING} == {k: v for k, v in second.items() if k not in TIMING}
    one, two = (read_table(d / "results/chua25_fig2/delta.parquet")[0].drop(columns=TIMING) for d in (copy, run))
    pd.testing.assert_frame_equal(one, two)


def test_orders_outside_the_steps_stop_before_any_job(tmp_path):
    copy = copy_workflow(tmp_path)
    (copy / "bad.yaml").write_text('chua25:\n  fig2:\n    panels:\n      - {name: pctr_b1024, sigma: 0.3, steps: 100, '
                                   'orders: "1..100"}\n')
    result = _snakemake(copy, "chua25_fig2", configfiles=[*CONFIG, "bad.yaml"])
    assert result.returncode != 0 and not (copy / "results").exists()
    assert ("config chua25.fig2.panels[0].orders: orders must start at 1 and stay inside [1, T - 1] = [1, 99]"
            in result.stderr)


def test_switching_the_device_reruns_nothing(run):
    result = _snakemake(run, *TARGETS, "-n", "--config", "device=cuda", simulator=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Nothing to be done" in result.stdout + result.stderr


def test_device_cuda_without_a_gpu_stops_before_any_job(tmp_path):
    copy = copy_workflow(tmp_path)
    result = _snakemake(copy, "chua25_fig2", "--config", "device=cuda")
    if result.returncode == 0:
        pytest.skip("a CUDA GPU is visible")
    assert not (copy / "results").exists() and not (copy / "logs").exists()
    assert result.stderr.strip().splitlines()[-2:] == [
        "Invalid configuration, nothing was run:",
        "config device: cuda needs a CUDA GPU and none is visible here (nor is NUMBA_ENABLE_CUDASIM=1 set): "
        "use cpu or auto, or run where a GPU is (with pip install 'dpsampling[cuda]')"]


def test_statistics_storage_gives_the_same_delta_table_and_seals_the_grid(run, tmp_path):
    copy = copy_workflow(tmp_path)
    (copy / "statistics.yaml").write_text("chua25:\n  fig2:\n    storage: statistics\n")
    configfiles = [*CONFIG, "statistics.yaml"]
    result = _snakemake(copy, "results/chua25_fig2/delta.parquet", configfiles=configfiles)
    assert result.returncode == 0, result.stderr[-3000:]
    frame, document = read_table(copy / SHARD)
    assert list(frame.columns) == ["epsilon", "count", "total", "total_squares"]
    assert document["parameters"]["storage"] == "statistics" and document["parameters"]["device"] == "cpu"
    statistics, losses = (read_table(d / "results/chua25_fig2/delta.parquet")[0].drop(columns=TIMING) for d in (copy, run))
    pd.testing.assert_frame_equal(statistics, losses, check_exact=True)
    (copy / "grid.yaml").write_text("chua25:\n  fig2:\n    epsilon_grid: {start: 0.0, stop: 6.0, num: 13}\n")
    jobs = _jobs(_snakemake(copy, "results/chua25_fig2/delta.parquet", "-n", configfiles=[*configfiles, "grid.yaml"]))
    assert jobs.get("sample_chua25_losses") == 4 and jobs.get("merge_chua25_delta") == 1, jobs


# Digest of the tiny DAG's five delta tables (count, sums, mean, standard error, UCB; 10 significant
# digits, as dpsampling.versions rounds) computed by the workflow *before* the device and storage options
# existed (commit 14acb5b): the default CPU DAG must keep these numbers. Update it only with a version
# bump of a sampling family or a change of .test/config/config.yaml.
DEFAULT_DELTA_DIGEST = "809fedf04a2ec5a8"


def _delta_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for experiment in ("chua25_fig2", "chua25_fig3", "chua25_fig4", "chua25_epochs", "chua25_props"):
        frame = read_table(directory / "results" / experiment / "delta.parquet")[0]
        for column in ("count", "total", "total_squares", "mean", "standard_error", "ucb"):
            digest.update(" ".join(f"{v:.9e}" for v in np.asarray(frame[column], dtype=np.float64)).encode())
    return digest.hexdigest()[:16]


def test_the_default_dag_keeps_its_numbers(run):
    assert _delta_digest(run) == DEFAULT_DELTA_DIGEST
    assert read_metadata(run / SHARD)["parameters"]["device"] == "cpu"
    assert "storage" not in read_metadata(run / SHARD)["parameters"]
