"""The certified balls-and-bins bounds on the command line: account (default pld, Monte Carlo beside
it and honest about what it can certify), calibrate for every sampler, and compare."""

import json
import math

import numpy as np
import pytest

from dpsampling.accountants import deterministic
from dpsampling.accountants.ballsbins import gaussian_mechanism_delta
from dpsampling.accountants.ballsbins_pld import ballsbins_delta_bounds
from dpsampling.accountants.shuffle import shuffle_delta_lower
from dpsampling.cli.main import main


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exit_info:
        code = exit_info.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(argv, capsys):
    code, out, err = _run([*argv, "--json"], capsys)
    assert code == 0, err
    assert err == ""  # no progress bar or chatter outside a terminal
    return json.loads(out)


def test_account_balls_and_bins_defaults_to_certified_bounds_that_contain_the_exact_value(capsys):
    """T = 1 is the Gaussian mechanism: its exact delta lies between the certified bounds, which
    agree to the requested accuracy, and the result says how it was computed."""
    eps = [0.0, 0.5, 2.0]
    document = _json(["account", "--sampler", "balls_and_bins", "--sigma", "0.8", "--steps", "1", "--epsilon",
                      *map(str, eps)], capsys)
    inputs = document["inputs"]
    assert inputs["method"] == "pld" and inputs["certified"] is True
    assert inputs["computation"]["engine_version"] >= 1 and inputs["computation"]["accuracy_requested"] == 0.01
    exact = gaussian_mechanism_delta(0.8, eps)
    for row, value in zip(document["rows"], exact):
        for direction in ("remove", "add"):
            bounds = row[direction]
            assert bounds["delta_lower"] <= value * (1 + 1e-9) and value <= bounds["delta_upper"] * (1 + 1e-9)
            assert bounds["delta_upper"] - bounds["delta_lower"] <= 0.01 * bounds["delta_upper"] + 1e-12
        assert row["delta_upper"] == max(row["remove"]["delta_upper"], row["add"]["delta_upper"])


def test_monte_carlo_is_reported_beside_the_certified_bounds(capsys):
    document = _json(["account", "--sampler", "balls_and_bins", "--sigma", "0.7", "--steps", "10", "--epsilon", "1",
                      "--method", "naive", "--samples", "20000", "--seed", "3"], capsys)
    row = document["rows"][0]
    certified = row["certified"]
    assert 0 <= certified["delta_lower"] <= certified["delta_upper"]
    # the true delta (max direction) lies in the certified bracket, and each direction's MC mean is an
    # unbiased estimate of at most that: mean - 5 stderr <= certified upper (false failure < 1e-6)
    for direction in ("remove", "add"):
        mean, stderr = row[direction]["delta_estimate"], row[direction]["delta_stderr"]
        assert mean - 5 * stderr <= certified["delta_upper"]
    largest = max(row[d]["delta_estimate"] + 5 * row[d]["delta_stderr"] for d in ("remove", "add"))
    assert largest >= certified["delta_lower"]


def test_a_delta_monte_carlo_cannot_certify_is_refused_with_the_sample_count_that_would(capsys):
    code, out, err = _run(["account", "--sampler", "balls_and_bins", "--sigma", "1", "--steps", "196", "--epochs",
                           "10", "--delta", "1e-5", "--method", "naive"], capsys)
    needed = math.ceil(math.log(1e3) / 1e-5)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--samples 100000 cannot certify delta = 1e-05" in err and f"--samples >= {needed}" in err


@pytest.mark.parametrize("argv, message", [
    (["--accuracy", "0"], "accuracy must be in the open interval (0, 1); got 0"),
    (["--accuracy", "1.5"], "accuracy must be in the open interval (0, 1); got 1.5"),
    (["--max-grid-points", "3"], "max_grid_points must be at least"),
    (["--samples", "100"], "--samples applies to the Monte Carlo methods only"),
    (["--method", "magic"], "invalid choice: 'magic'"),
])
def test_bad_certified_options_are_one_line_and_exit_2(capsys, argv, message):
    code, out, err = _run(["account", "--sampler", "balls_and_bins", "--sigma", "1", "--steps", "10", "--epsilon",
                           "1", *argv], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_calibrate_balls_and_bins_gives_a_sufficient_sigma_and_an_insufficient_one(capsys):
    result = _json(["calibrate", "--sampler", "balls_and_bins", "--epsilon", "1", "--delta", "1e-5", "--steps", "20",
                    "--rtol", "0.02"], capsys)
    at = ballsbins_delta_bounds(result["sigma"], 20, [1.0])
    below = ballsbins_delta_bounds(result["sigma_low"], 20, [1.0])
    assert at.loc[at["direction"] == "max", "delta_upper"].iloc[0] <= 1e-5
    assert below.loc[below["direction"] == "max", "delta_upper"].iloc[0] > 1e-5
    assert result["sigma"] / result["sigma_low"] <= 1.02 + 1e-12


def test_calibrate_deterministic_is_the_gaussian_mechanism(capsys):
    result = _json(["calibrate", "--sampler", "deterministic", "--epsilon", "2", "--delta", "1e-6", "--steps", "100",
                    "--epochs", "4", "--rtol", "1e-4"], capsys)
    # K epochs of a fixed batching: sensitivity sqrt(K), so sigma / 2 with one epoch has the same delta
    assert deterministic.deterministic_delta([2.0], result["sigma"], 4)[0] <= 1e-6
    assert deterministic.deterministic_delta([2.0], result["sigma_low"], 4)[0] > 1e-6
    one_epoch = _json(["calibrate", "--sampler", "deterministic", "--epsilon", "2", "--delta", "1e-6", "--steps",
                       "100", "--rtol", "1e-4"], capsys)
    assert result["sigma"] == pytest.approx(2 * one_epoch["sigma"], rel=3e-4)


def test_calibrate_shuffle_reports_sufficient_and_necessary_sigmas(capsys):
    result = _json(["calibrate", "--sampler", "shuffle", "--epsilon", "1", "--delta", "1e-5", "--steps", "50",
                    "--rtol", "0.02"], capsys)
    assert result["sigma_necessary"] <= result["sigma"]
    ruled_out = shuffle_delta_lower([1.0], result["sigma_ruled_out"], 50)["max"][0]
    allowed = shuffle_delta_lower([1.0], result["sigma_necessary"], 50)["max"][0]
    assert ruled_out > 1e-5 >= allowed
    code, out, _ = _run(["calibrate", "--sampler", "shuffle", "--epsilon", "1", "--delta", "1e-5", "--steps", "50",
                         "--rtol", "0.02"], capsys)
    assert code == 0 and "necessary, not sufficient" in out


COMPARE = ["compare", "--dataset-size", "2000", "--batch-size", "100", "--epochs", "2", "--delta", "1e-5"]


def test_compare_gives_one_row_per_sampler_and_the_table_matches_the_json(capsys, tmp_path):
    document = _json([*COMPARE, "--sigma", "1.0"], capsys)
    rows = {row["sampler"]: row for row in document["rows"]}
    assert list(rows) == ["deterministic", "shuffle", "poisson", "balls_and_bins", "wor"]
    assert document["inputs"]["steps_per_epoch"] == 20
    for row in rows.values():
        assert row["steps"] == 20 and row["epochs"] == 2
        assert 0 <= row["epsilon_lower"] <= row["epsilon_upper"]
    exact = deterministic.deterministic_epsilon([1e-5], 1.0, 2)[0]
    assert rows["deterministic"]["epsilon_lower"] == rows["deterministic"]["epsilon_upper"] == pytest.approx(exact)
    assert rows["deterministic"]["tight"] and not rows["shuffle"]["tight"]
    assert rows["shuffle"]["epsilon_upper"] == pytest.approx(exact)  # eps_D bounds shuffle from above
    assert rows["poisson"]["expected_batch_size"] == 100 and rows["poisson"]["sampling_rate"] == 0.05
    # every sampler that uses each example once per epoch is at most as costly as deterministic
    assert rows["balls_and_bins"]["epsilon_upper"] <= exact
    code, table, _ = _run([*COMPARE, "--sigma", "1.0"], capsys)
    assert code == 0
    for sampler, row in rows.items():
        line = next(line for line in table.splitlines() if line.startswith(sampler))
        assert f"{row['epsilon_upper']:.4g}" in line and ("tight" if row["tight"] else "brackets") in line


def test_compare_with_a_target_epsilon_gives_the_sigma_each_sampler_needs(capsys):
    document = _json([*COMPARE, "--target-epsilon", "4"], capsys)
    rows = {row["sampler"]: row for row in document["rows"]}
    assert rows["shuffle"]["sigma_necessary"] <= rows["shuffle"]["sigma_sufficient"]
    assert rows["deterministic"]["sigma_necessary"] is None
    assert rows["shuffle"]["sigma_sufficient"] == pytest.approx(rows["deterministic"]["sigma_sufficient"])
    for row in rows.values():
        assert row["sigma_insufficient"] < row["sigma_sufficient"]


def test_compare_plot_is_written(capsys, tmp_path):
    path = tmp_path / "eps.png"
    code, out, _ = _run([*COMPARE, "--sigma", "1.0", "--plot", str(path)], capsys)
    assert code == 0 and path.stat().st_size > 10_000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, message", [
    (["--dataset-size", "0", "--batch-size", "1", "--epochs", "1", "--delta", "1e-5", "--sigma", "1"],
     "--dataset-size must be an integer >= 1; got 0"),
    (["--dataset-size", "10", "--batch-size", "20", "--epochs", "1", "--delta", "1e-5", "--sigma", "1"],
     "--batch-size must be in [1, dataset_size=10]; got 20"),
    (["--dataset-size", "10", "--batch-size", "0", "--epochs", "1", "--delta", "1e-5", "--sigma", "1"],
     "--batch-size must be an integer >= 1; got 0"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "0", "--delta", "1e-5", "--sigma", "1"],
     "--epochs must be an integer >= 1; got 0"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1", "--sigma", "1"],
     "--delta must be in the open interval (0, 1); got 1"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5"],
     "exactly one of --sigma and --target-epsilon must be given; got neither"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5", "--sigma", "1",
      "--target-epsilon", "1"], "exactly one of --sigma and --target-epsilon must be given; got both"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5", "--sigma", "1",
      "--plot", "/nonexistent-folder/eps.png"], "--plot must be in an existing folder"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5", "--sigma", "1",
      "--plot", "eps.svg"], "--plot must end in .png or .pdf; got 'eps.svg'"),
])
def test_compare_bad_input_is_one_line_exit_2_and_writes_nothing(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["compare", *argv], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_progress_is_quiet_unless_stderr_is_a_terminal(capsys):
    from dpsampling import progress

    assert progress.enable(True) is False  # pytest's stderr is not a terminal
    assert progress.steps([1, 2], "x") == [1, 2]
    np.testing.assert_equal(progress.enabled(), False)
