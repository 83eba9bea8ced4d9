"""The device entry point (``ballsbins.device``) and its users on ``device: cuda``, under Numba's CUDA
simulator (see conftest.py), at tiny sizes. All checks are deterministic.

- ``cuda`` runs the GPU kernels and says so (``extra["device"]``), with the CPU's numbers (the
  simulator uses the host's math, so equal bit for bit); ``auto`` does not take the simulator for
  a GPU (records ``cpu``);
- streaming statistics on cuda equal the CPU's up to the rounding of the per-chunk sums (rtol 1e-12;
  the counts, log weight and minimum eps exactly);
- a chua25 shard drawn on cuda records ``device: cuda`` in its metadata but not in its identity, and
  the merge gives the same delta table as for the CPU shard (bit for bit for losses shards);
- ``dpsampling account --sampler balls_and_bins --device cuda --json`` reports the device that ran
  (``attrs.monte_carlo.options.device``) = cuda and the same rows as ``--device cpu``.
"""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pandas as pd
import pytest
from answer_schema import check_answer

if importlib.util.find_spec("numba_cuda") is None:
    pytest.skip("numba-cuda is not installed (pip install 'dpsampling[cuda]')", allow_module_level=True)

from dpsampling.accountants import ballsbins as bb
from dpsampling.accountants.ballsbins import cuda as gpu
from dpsampling.cli.main import main
from dpsampling.io import read_metadata
from dpsampling.papers.chua25 import fig2
from dpsampling.papers.chua25.privacy import merge_delta
from dpsampling.papers.chua25.samples import sample_shard, write_shard

if not gpu.simulator_enabled():
    pytest.skip("these tests compare bit for bit under the simulator (NUMBA_ENABLE_CUDASIM=1)",
                allow_module_level=True)

SEED = np.random.SeedSequence(5, spawn_key=(2,))
ORDERS = "1..3,5"
GRID = np.linspace(0.0, 2.0, 5)
TIMING = ["sampling_seconds", "sampling_cpu_seconds"]


@pytest.mark.parametrize("method", ["naive", "order_statistics", "importance"])
def test_cuda_records_the_device_and_draws_the_cpu_numbers(method):
    keywords = {"orders": ORDERS if "order" in method else None,
                "importance_epsilon": 0.5 if method.startswith("importance") else None}
    law = bb.LossLaw(method, 0.7, 8, "add", **keywords)
    on_gpu = bb.sample_losses_on(law, 100, seed=SEED, samples_per_chunk=16, device="cuda")
    on_cpu = bb.sample_losses_on(law, 100, seed=SEED, samples_per_chunk=16, device="cpu")
    assert on_gpu.extra["device"] == "cuda" and on_cpu.extra["device"] == "cpu"
    np.testing.assert_array_equal(on_gpu.losses, on_cpu.losses)


def test_auto_does_not_take_the_simulator_for_a_gpu():
    assert bb.resolve_device("auto") == "cpu"
    assert bb.sample_losses_on(bb.LossLaw("naive", 0.7, 8, "remove"), 10, device="auto").extra["device"] == "cpu"


def test_streaming_statistics_on_cuda_equal_the_cpu_ones_to_rounding():
    law = bb.LossLaw("order_statistics", 0.7, 8, "remove", ORDERS)
    on_gpu = bb.loss_statistics_on(law, 100, GRID, seed=SEED, samples_per_chunk=16, device="cuda")
    on_cpu = bb.loss_statistics_on(law, 100, GRID, seed=SEED, samples_per_chunk=16, device="cpu")
    np.testing.assert_array_equal(on_gpu.count, on_cpu.count)
    assert (on_gpu.log_weight, on_gpu.minimum_epsilon) == (on_cpu.log_weight, on_cpu.minimum_epsilon)
    np.testing.assert_allclose(on_gpu.total, on_cpu.total, rtol=1e-12, atol=0)
    np.testing.assert_allclose(on_gpu.total_squares, on_cpu.total_squares, rtol=1e-12, atol=0)


FIG2 = {"epsilon_grid": {"start": 0.0, "stop": 2.0, "num": 5}, "order_statistics": {"shards": 1, "samples_per_shard": 60},
        "panels": [{"name": "search_b8192", "sigma": 0.5, "steps": 12, "orders": ORDERS}]}


def _draw_and_merge(directory, device):
    sets = fig2.sample_sets(FIG2)
    for sample_set in sets:
        parameters = sample_set.sampling_parameters(7, 0)
        result, timing = sample_shard(parameters, device)
        write_shard(result, parameters, timing, 1, directory / sample_set.shard_path(0))
    return sets, merge_delta(sets, 7, GRID, 1e-3)


def test_a_shard_drawn_on_cuda_records_the_device_and_merges_like_a_cpu_shard(tmp_path, monkeypatch):
    tables = {}
    for device in ("cuda", "cpu"):
        (tmp_path / device).mkdir()
        monkeypatch.chdir(tmp_path / device)
        sets, tables[device] = _draw_and_merge(tmp_path / device, device)
        recorded = read_metadata(tmp_path / device / sets[0].shard_path(0))["parameters"]
        assert recorded["device"] == device
        assert "device" not in sets[0].sampling_parameters(7, 0)
    pd.testing.assert_frame_equal(tables["cuda"].drop(columns=TIMING), tables["cpu"].drop(columns=TIMING),
                                  check_exact=True)


def _account(capsys, device):
    code = main(["account", "--sampler", "balls_and_bins", "--sigma", "0.8", "--steps-per-epoch", "6", "--epsilon", "0.5", "1",
                 "--samples", "80", "--estimator", "naive", "--device", device, "--json"])
    assert code == 0
    return check_answer(json.loads(capsys.readouterr().out))


def test_the_command_runs_on_cuda_and_says_so(capsys):
    on_gpu, on_cpu = _account(capsys, "cuda"), _account(capsys, "cpu")
    ran = [answer["attrs"]["monte_carlo"]["options"]["device"] for answer in (on_gpu, on_cpu)]
    assert ran == ["cuda", "cpu"] and on_gpu["inputs"]["device"] == "cuda"
    assert on_gpu["rows"] == on_cpu["rows"] and any("monte_carlo_delta_estimate" in row for row in on_gpu["rows"])
