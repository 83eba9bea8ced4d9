"""The frontier benchmark's machinery (issue 31) on one small run (Poisson, T 1e3): our bracket is
ordered, the peers' upper bounds (dp-accounting's pessimistic PLD, RDP) are not below our certified
lower bound, a peer past its time limit is reported as such, and the JSON holds the fields.
Deterministic (no sampling): no false-failure probability to state."""

import json

import pytest

from dpsampling.benchmark import frontier
from dpsampling.benchmark.frontier import PEERS, Run, benchmark_run, main, markdown, run_peer

pytest.importorskip("dp_accounting")
pytest.importorskip("prv_accountant")

SMALL = Run("small", (("poisson", 1.0, {"sampling_rate": 0.01, "steps": 1_000}),), 1e-6)


@pytest.fixture(scope="module")
def record():
    return benchmark_run(SMALL, timeout=None)  # peers in this process: the same code as in a child


def test_our_bracket_is_ordered_and_within_the_target(record):
    mine = record["ours"]
    assert mine["refused"] is None
    for direction in ("remove", "add", "max"):
        row = mine["directions"][direction]
        assert 0 <= row["lower"] <= row["upper"]
    assert mine["lower"] == max(mine["directions"][d]["lower"] for d in ("remove", "add"))
    assert mine["gap"] <= frontier.TARGET_ACCURACY and mine["converged"]


def test_peer_upper_bounds_are_not_below_our_lower_bound(record):
    lower = record["ours"]["lower"]
    assert record["peers"]["pld_pessimistic"]["epsilon"] >= lower
    assert record["peers"]["rdp"]["epsilon"] >= lower
    assert record["peers"]["prv"]["upper"] >= record["ours"]["directions"]["remove"]["lower"]
    assert not any("PLD pessimistic" in note or "RDP" in note for note in record["disagreements"])


def test_balls_and_bins_is_not_modelled_by_the_peers():
    run = Run("b", (("balls_and_bins", 1.0, {"steps_per_epoch": 10, "epochs": 2}),), 1e-5)
    answer = run_peer("rdp", run, timeout=None)
    assert answer["refused"] == "not modelled (balls_and_bins)"


def test_a_peer_past_its_limit_is_reported():
    answer = run_peer("prv", SMALL, timeout=0.01)  # a spawned child cannot even import in 10 ms
    assert answer["refused"] == "no answer in 0.01 s" and answer["timed_out"]


def test_json_and_table(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(frontier, "RUNS", (SMALL,))
    out = tmp_path / "frontier.json"
    assert main(["--json", str(out), "--timeout", "60"]) == 0
    document = json.loads(out.read_text())
    assert document["machine"]["cpu_count"] >= 1 and document["date"]
    assert {"peer_timeout_seconds", "pld_discretization", "prv_eps_error"} <= set(document["settings"])
    (row,) = document["runs"]
    assert row["run"]["total_steps"] == 1_000 and set(row["peers"]) == set(PEERS)
    for key in ("lower", "upper", "gap", "converged", "grid_points", "relative_error", "excess", "seconds",
                "cpu_seconds"):
        assert key in row["ours"]
    for method in PEERS:
        assert row["peers"][method]["refused"] is None and row["peers"][method]["seconds"] > 0
    assert markdown(document) in capsys.readouterr().out
