"""Fault injection on the tiny config: the whole DAG killed with SIGKILL in the middle of a sampling
job and of a bounds job, a truncated result file, a shard filled with garbage and a foreign
Parquet file; each next plain run recovers, and the results equal a clean run's bit for bit."""

import os

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from workflow_runs import TINY, assert_same_tables, copy_workflow, jobs_in, kill_dag_during, result_tables, snakemake

from dpsampling.io import result_file_problem, write_table
from dpsampling.pipeline.recovery import damaged_results, recover, stale_lock

pytestmark = pytest.mark.workflow
TARGETS = ["chua24_fig3", "chua25_fig4"]  # a deterministic bounds job; Monte Carlo shards, their merge and bounds
OPTIONS = ["--cores", "2", "--configfile", TINY]
SHARD = "results/chua25_fig4/samples/left/add/naive/shard-0.parquet"
BOUNDS = "results/chua24_fig3/bounds.parquet"
FOREIGN = "results/chua25_fig4/bounds.parquet"


def _clean_tables(clean_run):
    return sorted(name for name in result_tables(clean_run) if name.split("/")[1] in TARGETS)


def test_killed_runs_and_damaged_files_are_recovered(tmp_path, tiny_full_run):
    directory = copy_workflow(tmp_path, profile=True)
    # 1. kill -9 of Snakemake and its jobs while a Monte Carlo shard is being drawn
    first = kill_dag_during(directory, ["chua25_fig4"], "sample_chua25_losses", OPTIONS)
    assert first["killed"], first["output"][-3000:]
    assert list((directory / ".snakemake/locks").glob("*.lock")), "the killed run left no lock to recover from"
    # 2. the next plain run removes the stale lock and continues; killed again during a bounds job
    #    (chua24_fig3's, which the first run did not ask for: surely still to do)
    second = kill_dag_during(directory, TARGETS, "compute_chua24_bounds", OPTIONS)
    assert second["killed"], second["output"][-3000:]
    assert "Removed the lock of Snakemake process" in second["output"], second["output"][-3000:]
    assert "cannot be locked" not in second["output"]
    # 3. the next plain run finishes, nothing half-written ever visible: equal to the clean run's tables
    third = snakemake(directory, *TARGETS, *OPTIONS)
    assert third.returncode == 0, third.stderr[-3000:]
    assert "Removed the lock of Snakemake process" in third.stderr
    names = _clean_tables(tiny_full_run)
    assert sorted(result_tables(directory)) == names
    assert_same_tables(directory, tiny_full_run, names)
    assert not list(directory.glob("results/**/.*.tmp"))
    # 4. damage: a truncated bounds table, a shard of garbage, a foreign Parquet file in a result's place
    data = (directory / BOUNDS).read_bytes()
    (directory / BOUNDS).write_bytes(data[: len(data) // 2])
    size = (directory / SHARD).stat().st_size
    (directory / SHARD).write_bytes(os.urandom(size))
    pq.write_table(pa.table({"delta": [0.5]}), directory / FOREIGN)
    mine = directory / "results/chua24_fig3/my_notes.parquet"  # a user's file the workflow does not make
    pq.write_table(pa.table({"note": ["kept"]}), mine)
    found = dict((str(path), problem) for path, problem in damaged_results(directory))
    assert set(found) == {BOUNDS, SHARD, FOREIGN, str(mine.relative_to(directory))}  # unless the workflow says whose
    assert found[FOREIGN].startswith("foreign") and found[BOUNDS].startswith("damaged")
    # a dry run says what a run will do, and changes nothing
    plan = snakemake(directory, *TARGETS, "-n", *OPTIONS)
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert f"{BOUNDS} is damaged: truncated (no Parquet footer); a run (not this dry run) moves it" in plan.stderr
    assert len(damaged_results(directory)) == 4
    # 5. the next plain run sets them aside, recomputes them and what depends on them
    fourth = snakemake(directory, *TARGETS, *OPTIONS)
    assert fourth.returncode == 0, fourth.stderr[-3000:]
    for name in (BOUNDS, SHARD, FOREIGN):
        line = next(line for line in fourth.stderr.splitlines() if line.startswith(f"{name} is "))
        assert line.endswith(f"moved to {name}.damaged, it will be recomputed."), line
        assert (directory / f"{name}.damaged").is_file()
    rerun = jobs_in(fourth.stdout + fourth.stderr)
    assert ("sample_chua25_losses", "experiment=chua25_fig4, panel=left, direction=add, series=naive, shard=0") in rerun
    assert sum(rule == "sample_chua25_losses" for rule, _ in rerun) == 1  # the other shards are kept
    assert {"compute_chua24_bounds", "compute_chua25_bounds", "merge_chua25_delta"} <= {rule for rule, _ in rerun}
    assert [str(path) for path, _ in damaged_results(directory)] == [str(mine.relative_to(directory))]
    assert pq.read_table(mine).column("note").to_pylist() == ["kept"]  # never touched
    mine.unlink()
    assert sorted(result_tables(directory)) == names
    assert_same_tables(directory, tiny_full_run, names)


def test_result_file_problem_reads_the_footer_and_the_metadata(tmp_path):
    good = write_table(pd.DataFrame({"x": [1.0, 2.0]}), tmp_path / "good.parquet", {"a": 1})
    assert result_file_problem(good) is None
    data = good.read_bytes()
    cases = {"short": data[:8], "truncated": data[:-3], "garbage": b"x" * len(data),
             "footer": data[:4] + b"\0" * (len(data) - 12) + data[-8:]}
    for name, content in cases.items():
        (tmp_path / f"{name}.parquet").write_bytes(content)
        assert result_file_problem(tmp_path / f"{name}.parquet").startswith("damaged"), name
    pq.write_table(pa.table({"x": [1.0]}), tmp_path / "foreign.parquet")
    assert result_file_problem(tmp_path / "foreign.parquet").startswith("foreign: no dpsampling metadata")
    table = pa.table({"x": [1.0]}).replace_schema_metadata({b"dpsampling": b"{not json"})
    pq.write_table(table, tmp_path / "notjson.parquet")
    assert result_file_problem(tmp_path / "notjson.parquet") == "foreign: its dpsampling metadata is not JSON"


def test_a_lock_is_removed_only_when_its_process_is_gone(tmp_path):
    """A lock with no owner record, an owner older than the lock, or a live owner is left alone."""
    import json
    import socket
    import subprocess
    import sys

    locks = tmp_path / ".snakemake/locks"
    locks.mkdir(parents=True)
    (locks / "0.output.lock").write_text("results/x.parquet\n")
    assert stale_lock(tmp_path)[1] is None  # no owner record
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    owner = tmp_path / ".snakemake/dpsampling-owner.json"
    record = {"host": socket.gethostname(), "pid": int(gone.stdout), "start": None, "since": 0}
    owner.write_text(json.dumps(record))
    os.utime(owner, (1, 1))  # written before the lock was taken: another run holds it
    assert stale_lock(tmp_path)[1] is None
    os.utime(owner)
    owner.write_text(json.dumps(dict(record, pid=os.getpid())))  # alive: this process
    assert stale_lock(tmp_path)[1] is None
    owner.write_text(json.dumps(dict(record, host=record["host"] + "-elsewhere")))
    assert stale_lock(tmp_path)[1] is None
    owner.write_text(json.dumps(dict(record, local_jobs=False)))  # its cluster jobs may still run
    assert "may still run" in recover(tmp_path)[0] and (locks / "0.output.lock").exists()
    owner.write_text(json.dumps(record))
    assert stale_lock(tmp_path)[1]["pid"] == record["pid"]
    assert "stale" in recover(tmp_path, dry_run=True)[0] and (locks / "0.output.lock").exists()
    assert recover(tmp_path)[0].startswith(f"Removed the lock of Snakemake process {record['pid']}")
    assert not (locks / "0.output.lock").exists()


def test_figures_are_written_whole_or_not_at_all(tmp_path):
    """atomic_paths: the writer gets hidden temporary paths with the final suffix (matplotlib picks
    the format by it); they replace the final files only when the block completes."""
    from dpsampling.io import atomic_paths

    pdf, png = tmp_path / "fig.pdf", tmp_path / "fig.png"
    pdf.write_text("old pdf")
    with pytest.raises(KeyboardInterrupt), atomic_paths(pdf, png) as (tmp_pdf, tmp_png):
        assert tmp_pdf.suffix == ".pdf" and tmp_png.suffix == ".png" and tmp_pdf.name.startswith(".")
        tmp_pdf.write_text("half")
        raise KeyboardInterrupt
    assert pdf.read_text() == "old pdf" and not png.exists() and sorted(tmp_path.iterdir()) == [pdf]
    with atomic_paths(pdf, png) as (tmp_pdf, tmp_png):
        tmp_pdf.write_text("new pdf")
        tmp_png.write_text("new png")
    assert pdf.read_text() == "new pdf" and png.read_text() == "new png" and sorted(tmp_path.iterdir()) == [pdf, png]
