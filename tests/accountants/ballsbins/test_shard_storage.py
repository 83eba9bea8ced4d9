"""Shard storage (samples vs statistics) and the device's place in a shard (CPU only; the CUDA
paths are in tests/accountants/ballsbins/cuda/test_device_dispatch.py). All checks are deterministic.

- statistics shards merge to the same delta table as losses shards at the same seed, *exactly*
  (count, sums, mean, standard error and UCB bit for bit) when each shard fits in one CPU piece
  (every shard up to 2^22 samples); with several pieces the sums agree to rounding (rtol 1e-12)
  and the UCB to 1e-12 relative;
- a statistics shard drawn for another eps grid is refused by the merge with one line;
- a shard's identity (the sampling rule's params): with samples storage no grid, no storage key and
  no device (what it always was); with statistics storage the grid; never the device (same params
  for device cpu and cuda);
- device auto without a GPU records cpu; device cuda without a GPU (and without the simulator) is a
  one-line ValueError, and ``dpsampling account --device cuda`` exits with status 2 and one line
  (subprocesses: this pytest process may have loaded the simulator).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from dpsampling.accountants import ballsbins as bb
from dpsampling.io import read_metadata
from dpsampling.papers.chua25.privacy import epsilon_grid, merge_delta
from dpsampling.papers.chua25.rules import chua25_privacy_functions
from dpsampling.papers.chua25.samples import sample_shard, write_shard
from dpsampling.papers.registry import load_experiment

TIMING = ["sampling_seconds", "sampling_cpu_seconds"]
FIG3 = {"error_prob": 1e-3, "epsilon_grid": {"start": 0.0, "stop": 2.0, "num": 5}, "importance_epsilons": [1.5],
        "panels": [{"name": "right", "sigma": 0.5, "steps": 12, "naive": {"shards": 2, "samples_per_shard": 300},
                    "importance": {"shards": 1, "samples_per_shard": 200}}]}
FIG2 = {"error_prob": 1e-3, "epsilon_grid": {"start": 0.0, "stop": 3.0, "num": 7},
        "order_statistics": {"shards": 2, "samples_per_shard": 400},
        "panels": [{"name": "search_b8192", "sigma": 0.5, "steps": 40, "orders": "1..5,10..35/5"}]}


def _merged(directory, name, spec, storage, monkeypatch):
    directory.mkdir()
    monkeypatch.chdir(directory)
    sets = load_experiment(f"chua25_{name}").sample_sets(spec)
    grid = epsilon_grid(spec)
    for sample_set in sets:
        for shard in range(sample_set.shards):
            parameters = sample_set.sampling_parameters(11, shard, storage, grid if storage == "statistics" else None)
            result, timing = sample_shard(parameters, "cpu")
            write_shard(result, parameters, timing, 1, sample_set.shard_path(shard))
    return sets, merge_delta(sets, 11, grid, spec["error_prob"]).drop(columns=TIMING)


@pytest.mark.parametrize("name, spec", [("fig2", FIG2), ("fig3", FIG3)])
def test_statistics_shards_merge_exactly_like_loss_shards(tmp_path, monkeypatch, name, spec):
    _, losses = _merged(tmp_path / "samples", name, spec, "samples", monkeypatch)
    sets, statistics = _merged(tmp_path / "statistics", name, spec, "statistics", monkeypatch)
    pd.testing.assert_frame_equal(statistics, losses, check_exact=True)
    assert np.isfinite(losses["ucb"]).any()
    frame, document = pd.read_parquet(sets[0].shard_path(0)), read_metadata(sets[0].shard_path(0))
    assert list(frame.columns) == ["epsilon", "count", "total", "total_squares"]
    assert document["parameters"]["storage"] == "statistics" and document["parameters"]["device"] == "cpu"


def test_several_cpu_pieces_agree_to_rounding():
    law = bb.LossLaw("order_statistics", 0.5, 40, "add", "1..5,10..35/5")
    arguments = dict(seed=np.random.SeedSequence(4, spawn_key=(1,)), samples_per_chunk=64)
    grid = np.linspace(0.0, 3.0, 7)
    whole = bb.estimate_delta(bb.sample_losses(law, 3000, **arguments), grid)
    pieces = bb.loss_statistics_on(law, 3000, grid, piece=500, **arguments)
    np.testing.assert_array_equal(pieces.count, whole.count)
    np.testing.assert_allclose(pieces.total, whole.total, rtol=1e-12, atol=0)
    np.testing.assert_allclose(pieces.total_squares, whole.total_squares, rtol=1e-12, atol=0)
    np.testing.assert_allclose(pieces.upper_confidence_bound(1e-3), whole.upper_confidence_bound(1e-3), rtol=1e-12)


def test_a_statistics_shard_of_another_grid_is_refused(tmp_path, monkeypatch):
    sets, _ = _merged(tmp_path / "statistics", "fig2", FIG2, "statistics", monkeypatch)
    other = np.linspace(0.0, 3.0, 13)
    with pytest.raises(ValueError, match="holds statistics at other eps values than requested") as error:
        merge_delta(sets, 11, other, 1e-3)
    assert "\n" not in str(error.value)


def _functions(storage, device):
    config = {"seed": 3, "device": device, "chua25": {"fig2": dict(FIG2, storage=storage)}}
    return chua25_privacy_functions(config)


class Wildcards:
    experiment, panel, direction, series, shard = "chua25_fig2", "search_b8192", "add", "order_statistics", "1"


def test_identity_has_the_grid_only_with_statistics_and_never_the_device():
    samples = _functions("samples", "cpu").shard_parameters(Wildcards)
    assert not {"storage", "epsilons", "device"} & set(samples)
    assert _functions("samples", "cuda").shard_parameters(Wildcards) == samples
    statistics = _functions("statistics", "cpu").shard_parameters(Wildcards)
    assert statistics["storage"] == "statistics" and statistics["epsilons"] == epsilon_grid(FIG2).tolist()
    assert {k: v for k, v in statistics.items() if k not in ("storage", "epsilons")} == samples
    assert _functions("statistics", "cuda").shard_parameters(Wildcards) == statistics


def _without_simulator() -> dict:
    return {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}


def test_auto_without_a_gpu_records_cpu_and_cuda_is_refused():
    script = ("from dpsampling.accountants import ballsbins as bb\n"
              "print(bb.sample_losses_on(bb.LossLaw('naive', 0.7, 8, 'add'), 10, device='auto').extra['device'])\n"
              "from dpsampling.accountants.ballsbins.cuda import gpu_visible\nprint(gpu_visible())\n"
              "try:\n    bb.resolve_device('cuda')\nexcept ValueError as error:\n    print(error)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=_without_simulator())
    lines = result.stdout.splitlines()
    if lines[1] == "True":
        pytest.skip("a CUDA GPU is visible: auto runs on it")
    assert lines[0] == "cpu"
    assert lines[2].startswith("cuda needs a CUDA GPU and none is visible here")


def test_the_command_refuses_cuda_without_a_gpu_with_status_2():
    result = subprocess.run([sys.executable, "-m", "dpsampling.cli", "account", "--sampler", "balls_and_bins", "--sigma",
                             "0.8", "--steps-per-epoch", "10", "--epsilon", "1", "--samples", "100", "--estimator", "naive", "--device", "cuda"],
                            capture_output=True, text=True, env=_without_simulator())
    if result.returncode == 0:
        pytest.skip("a CUDA GPU is visible")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "dpsampling account: error: cuda needs a CUDA GPU and none is visible here (nor is "
        "NUMBA_ENABLE_CUDASIM=1 set): use cpu or auto, or run where a GPU is (with pip install 'dpsampling[cuda]')"]
