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
