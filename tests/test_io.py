"""Parquet tables keep their metadata, refuse mismatches and damage, and never leave partial files."""

import os

import pandas as pd
import pytest

from dpsampling import io


def test_round_trip_keeps_parameters_and_versions(tmp_path):
    frame = pd.DataFrame({"epsilon": [0.5, 1.0], "delta_upper": [0.1, 0.01]})
    path = io.write_table(frame, tmp_path / "a" / "bounds.parquet", {"sigma": 0.4, "steps": 10, "grid": (0, 1)})
    back, document = io.read_table(path, {"sigma": 0.4, "grid": [0, 1]})
    pd.testing.assert_frame_equal(back, frame)
    assert document["parameters"]["steps"] == 10
    assert document["versions"]["dpsampling"] and document["versions"]["numpy"]
    assert [p.name for p in path.parent.iterdir()] == ["bounds.parquet"]


def test_mismatched_parameters_are_refused_naming_the_file(tmp_path):
    path = io.write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.parquet", {"sigma": 0.4})
    with pytest.raises(ValueError, match=r"t\.parquet was computed with other parameters \(sigma: file has 0.4, requested 0.5\)"):
        io.read_table(path, {"sigma": 0.5})


def test_truncated_file_is_refused_naming_the_file(tmp_path):
    path = io.write_table(pd.DataFrame({"x": range(100)}), tmp_path / "t.parquet", {"a": 1})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"t\.parquet is not a readable Parquet file"):
        io.read_table(path)


def test_foreign_parquet_without_metadata_is_refused(tmp_path):
    path = tmp_path / "plain.parquet"
    pd.DataFrame({"x": [1]}).to_parquet(path)
    with pytest.raises(ValueError, match="has no dpsampling metadata"):
        io.read_table(path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_directory_is_a_clear_error(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    with pytest.raises(PermissionError, match="not writable"):
        io.write_table(pd.DataFrame({"x": [1]}), locked / "t.parquet", {})
    assert list(locked.iterdir()) == []


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(io.pq, "write_table", boom)
    with pytest.raises(RuntimeError):
        io.write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.parquet", {})
    assert list(tmp_path.iterdir()) == []


def test_atomic_text_write_replaces_the_whole_file(tmp_path):
    path = tmp_path / "sub" / "table.md"
    assert io.write_text_atomically(path, "old\n") == path
    io.write_text_atomically(path, "new\n")
    assert path.read_text() == "new\n"
    assert [p.name for p in path.parent.iterdir()] == ["table.md"]  # no temporary file left


def test_interrupted_atomic_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("old\n")

    def half(tmp):
        with open(tmp, "w") as handle:
            handle.write("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        io.write_atomically(path, half)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["claims.csv"]


def test_atomic_write_gives_the_mode_a_plain_write_gives(tmp_path):
    plain = tmp_path / "plain.md"
    plain.write_text("x")
    atomic = io.write_text_atomically(tmp_path / "atomic.md", "x")
    assert atomic.stat().st_mode == plain.stat().st_mode  # not mkstemp's 0o600
