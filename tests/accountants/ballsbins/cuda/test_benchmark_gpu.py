"""``python -m dpsampling.benchmark.gpu`` under the CUDA simulator: the simulator is not a GPU,
so the table has CPU timings and empty GPU columns, and --paper-fig2 refuses to run
(deterministic checks)."""

from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("numba-cuda is not installed (pip install 'dpsampling[cuda]')",
                allow_module_level=True)

from dpsampling.accountants.ballsbins import cuda as gpu
from dpsampling.benchmark import gpu as benchmark


@pytest.mark.skipif(gpu.gpu_visible(), reason="a real GPU is visible: GPU columns are filled")
def test_table_without_gpu(capsys):
    assert benchmark.main(["--scale", "1e-4", "--repeats", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Balls-and-bins Monte Carlo throughput, 20")
    assert "none visible" in lines[3]
    rows = [line for line in lines if line.startswith("| ") and "---" not in line][1:]
    assert [row.split("|")[1].strip() for row in rows] == [
        "order_statistics", "importance", "naive", "importance_order_statistics"]
    for row in rows:
        cells = [cell.strip() for cell in row.split("|")[1:-1]]
        assert float(cells[5]) > 0 and float(cells[6]) > 0
        assert cells[7:] == ["", "", ""]


@pytest.mark.skipif(gpu.gpu_visible(), reason="a real GPU is visible")
def test_paper_fig2_refuses_without_gpu(capsys):
    assert benchmark.main(["--paper-fig2"]) == 2
    assert "needs a CUDA GPU" in capsys.readouterr().err


def test_bad_arguments(capsys):
    assert benchmark.main(["--repeats", "0"]) == 2
    assert "--repeats must be" in capsys.readouterr().err


@pytest.mark.skipif(gpu.gpu_visible(), reason="a real GPU is visible: GPU columns are filled")
def test_json_for_the_estimate(tmp_path, capsys):
    """--json writes the rows that dpsampling estimate reads: without a GPU they hold no GPU
    timing, and the estimate says so; with GPU timings it derives seconds per kernel step."""
    import json

    from dpsampling.papers.chua25.cost import gpu_step_seconds
    from dpsampling.pipeline.estimate import Rates

    path = tmp_path / "benchmarks/gpu.json"
    assert benchmark.main(["--scale", "1e-4", "--repeats", "1", "--json", str(path)]) == 0
    document = json.loads(path.read_text())
    assert [row["method"] for row in document["rows"]] == [
        "order_statistics", "importance", "naive", "importance_order_statistics"]
    assert all(row["gpu_seconds"] is None for row in document["rows"]) and document["gpu"] is None
    assert Rates(tmp_path).gpu_benchmark() == (None, f"the GPU benchmark {path} has no GPU timings "
                                                     "(it ran without a visible GPU)")
    assert all(row["gpu_samples"] == row["samples"] for row in document["rows"])  # --gpu-scale 1
    for row in document["rows"]:
        row["gpu_seconds"] = row["cpu_seconds"] / 100
        row["gpu_samples"] = 3 * row["samples"]  # as with --gpu-scale 3: the rate is per GPU sample
    path.write_text(json.dumps(document))
    found, where = Rates(tmp_path).gpu_benchmark()
    assert where == str(path)
    rates = gpu_step_seconds(found)
    for row in document["rows"]:
        per_sample = row["orders"] + 1 if row["orders"] else row["steps"]
        assert rates[row["method"]] == row["gpu_seconds"] / (row["gpu_samples"] * per_sample)
