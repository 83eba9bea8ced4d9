"""The command line: JSON shape, the chua24 headline numbers, and one-line errors for bad input."""

import json
import subprocess
import sys

import pytest

from dpsampling.cli.main import main


def _run(args, capsys):
    try:
        code = main(args)
    except SystemExit as exit_info:  # argparse's own errors
        code = exit_info.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_headline_numbers_of_chua24(capsys):
    """sigma = 0.5, T = 10,000, delta = 1e-6 (chua24 Fig. 1 text)."""
    results = {}
    for sampler in ("poisson", "shuffle", "deterministic"):
        code, out, _ = _run(["account", "--sampler", sampler, "--sigma", "0.5", "--steps", "10000",
                             "--delta", "1e-6", "--pld-min-discretization", "2.5e-5", "--json"], capsys)
        assert code == 0
        results[sampler] = json.loads(out)["rows"][0]
    assert results["poisson"]["epsilon_upper"] < 1.96
    assert results["poisson"]["epsilon_upper_rdp"] < 3.43
    assert results["shuffle"]["epsilon_lower"] > 10.994
    assert results["deterministic"]["epsilon_upper"] == pytest.approx(10.997, abs=5e-4)


def test_json_rows_have_both_directions_and_bounds(capsys):
    code, out, _ = _run(["account", "--sampler", "shuffle", "--sigma", "0.8", "--steps", "100",
                         "--epsilon", "0.5", "2", "--json"], capsys)
    assert code == 0
    document = json.loads(out)
    assert document["inputs"]["sampler"] == "shuffle" and document["inputs"]["steps"] == 100
    assert [r["epsilon"] for r in document["rows"]] == [0.5, 2.0]
    for row in document["rows"]:
        for direction in ("remove", "add"):
            assert set(row[direction]) == {"delta_lower", "delta_upper"}
            assert row[direction]["delta_lower"] <= row[direction]["delta_upper"]
        assert row["delta_lower"] == max(row["remove"]["delta_lower"], row["add"]["delta_lower"])


def test_table_output_and_help(capsys):
    code, out, _ = _run(["account", "--sampler", "deterministic", "--sigma", "1", "--steps", "10", "--epsilon", "1"], capsys)
    assert code == 0 and "delta_lower" in out and "remove_lower" in out
    with pytest.raises(SystemExit) as exit_info:
        main(["account", "--help"])
    assert exit_info.value.code == 0
    assert "examples:" in capsys.readouterr().out


BAD_INPUTS = [
    (["--sigma", "-0.5"], "sigma must be positive"),
    (["--sigma", "0"], "sigma must be positive"),
    (["--sigma", "abc"], "argument --sigma: invalid float value: 'abc'"),
    (["--steps", "0"], "steps must be an integer >= 1; got 0"),
    (["--epochs", "0"], "epochs must be an integer >= 1; got 0"),
    (["--delta", "0"], "delta must be in the open interval (0, 1); got 0.0"),
    (["--delta", "1.5"], "delta must be in the open interval (0, 1); got 1.5"),
    (["--epsilon", "-1"], "epsilon must be non-negative and finite; got -1.0"),
    (["--sampler", "uniform"], "argument --sampler: invalid choice: 'uniform'"),
    (["--pld-discretization", "0"], "--pld-discretization must be positive; got 0.0"),
]


@pytest.mark.parametrize("change, message", BAD_INPUTS)
def test_bad_input_is_one_line_with_exit_status_2(change, message, capsys):
    args = {"--sampler": "poisson", "--sigma": "1", "--steps": "10"}
    query = ["--delta", "1e-5"]
    for key, value in zip(change[::2], change[1::2]):
        if key in ("--delta", "--epsilon"):
            query = [key, value]
        else:
            args[key] = value
    argv = ["account"] + [x for kv in args.items() for x in kv] + query
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert message in err
    assert err.count("\n") == 1


def test_console_script_runs_as_module():
    out = subprocess.run([sys.executable, "-m", "dpsampling.cli", "account", "--sampler", "deterministic", "--sigma",
                          "1", "--steps", "1", "--epsilon", "1", "--json"], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["rows"][0]["delta_upper"] > 0


@pytest.mark.parametrize(("sampler", "rate", "relation"), [("poisson", "1e-5", "add_or_remove"), ("wor", "1e-5", "remove")])
def test_refine_relation_brings_the_relations_bracket_within_accuracy_alone(capsys, sampler, rate, relation):
    """chua24 Fig. 4's query: --refine relation stops once the bracket the relation reads is within
    1% (the add direction, eps ~0.14, needs more refinements); the others are reported as reached.
    Both runs refine the same grids, so the all-direction brackets lie inside."""
    base = ["account", "--sampler", sampler, "--sigma", "0.4" if sampler == "poisson" else "0.8", "--steps", "100000",
            "--sampling-rate", rate, "--delta", "1e-6", "--relation", relation, "--json"]
    rows = {}
    for refine in ("all", "relation"):
        code, out, _ = _run([*base, "--refine", refine], capsys)
        assert code == 0
        document = json.loads(out)
        assert document["inputs"]["options"]["refine"] == refine
        rows[refine] = document["rows"][0]
    every, alone = rows["all"], rows["relation"]
    assert alone["pld_converged"] and alone["pld_accuracy"] <= 0.01
    assert alone["epsilon_upper"] - alone["epsilon_lower"] <= 0.01 * alone["epsilon_upper"]
    add = alone["add"]
    assert add["epsilon_upper"] - add["epsilon_lower"] > 0.01 * add["epsilon_upper"]  # add was not refined further
    for key in ("remove", "add"):
        assert alone[key]["epsilon_lower"] <= every[key]["epsilon_lower"] <= every[key]["epsilon_upper"] <= alone[key]["epsilon_upper"]


def test_refine_relation_for_balls_and_bins_and_schedules(capsys, tmp_path):
    code, out, _ = _run(["account", "--sampler", "balls_and_bins", "--sigma", "0.8", "--steps", "1000", "--delta", "1e-6",
                         "--relation", "remove", "--refine", "relation", "--json"], capsys)
    assert code == 0 and json.loads(out)["inputs"]["computation"]["directions_refined"] == ["remove"]
    schedule = tmp_path / "run.yaml"
    schedule.write_text("phases:\n  - {sampler: poisson, sigma: 0.4, steps: 100000, sampling_rate: 1.0e-5}\n")
    code, out, _ = _run(["account", "--schedule", str(schedule), "--delta", "1e-6", "--refine", "relation", "--json"],
                        capsys)
    assert code == 0 and json.loads(out)["computation"]["directions_refined"] == ["max"]
    code, _, err = _run(["account", "--sampler", "poisson", "--sigma", "1", "--steps", "10", "--delta", "1e-6",
                         "--refine", "max"], capsys)
    assert code == 2 and "--refine: invalid choice: 'max' (choose from 'all', 'relation')" in err
