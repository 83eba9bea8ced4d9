"""dpsampling account --sampler balls_and_bins: JSON shape, T = 1 against the Gaussian mechanism,
eps queries, and one-line errors for bad input.

Statistical checks are seeded; each states its false-failure probability (for a random seed).
"""

import json
import math

import numpy as np
import pytest

from dpsampling.accountants.ballsbins import gaussian_mechanism_delta
from dpsampling.accountants.deterministic import deterministic_epsilon
from dpsampling.cli.main import main

Z = 4.5  # two-sided normal tail 6.8e-6 per check


MONTE_CARLO_OPTIONS = ("--samples", "--error-prob", "--orders", "--epsilon-step", "--seed")


def _run(args, capsys):
    """Balls-and-bins queries by Monte Carlo (naive unless a --method is given)."""
    if "--method" not in args and any(option in args for option in MONTE_CARLO_OPTIONS):
        args = [*args, "--method", "naive"]
    try:
        code = main(["account", "--sampler", "balls_and_bins", *args])
    except SystemExit as exit_info:  # argparse's own errors
        code = exit_info.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(args, capsys):
    code, out, err = _run([*args, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


def test_json_rows_have_bounds_estimates_and_both_directions(capsys):
    document = _json(["--sigma", "0.6", "--steps", "20", "--epsilon", "0.5", "2", "--samples", "20000",
                      "--seed", "3", "--error-prob", "0.01"], capsys)
    inputs = document["inputs"]
    assert (inputs["samples"], inputs["seed"], inputs["error_prob"], inputs["method"]) == (20000, 3, 0.01, "naive")
    assert "1 - error_prob" in inputs["guarantee"]
    assert [row["epsilon"] for row in document["rows"]] == [0.5, 2.0]
    for row in document["rows"]:
        for direction in ("remove", "add"):
            values = row[direction]
            assert set(values) == {"delta_lower", "delta_estimate", "delta_stderr", "delta_upper"}
            # bound (6) <= mean + Z se and mean <= UCB (6.8e-6 per check)
            assert values["delta_lower"] <= values["delta_estimate"] + Z * values["delta_stderr"]
            assert values["delta_estimate"] <= values["delta_upper"]
        assert row["delta_lower"] == max(row["remove"]["delta_lower"], row["add"]["delta_lower"])
        assert row["delta_upper"] == max(row["remove"]["delta_upper"], row["add"]["delta_upper"])
        assert "delta_estimate" not in row  # estimates are per direction only


@pytest.mark.parametrize("method", ["naive", "importance"])
def test_single_step_reproduces_the_gaussian_mechanism(capsys, method):
    eps = [0.0, 1.0, 2.5]
    document = _json(["--sigma", "0.8", "--steps", "1", "--epsilon", *map(str, eps), "--samples", "100000",
                      "--seed", "5", "--error-prob", "1e-6", "--method", method], capsys)
    exact = gaussian_mechanism_delta(0.8, eps)
    for row, value in zip(document["rows"], exact):
        for direction in ("remove", "add"):
            result = row[direction]
            assert abs(result["delta_estimate"] - value) < Z * result["delta_stderr"]  # 6.8e-6 each
            assert result["delta_upper"] >= value  # fails with probability <= 1e-6 (Thm 4.1)
            assert result["delta_lower"] == pytest.approx(value, rel=1e-7, abs=1e-15)  # bound (6) is exact at T = 1


def test_epsilon_queries_bracket_the_gaussian_mechanism(capsys):
    deltas = [1e-2, 1e-3]
    document = _json(["--sigma", "0.8", "--steps", "1", "--delta", *map(str, deltas), "--samples", "200000",
                      "--seed", "6", "--error-prob", "1e-6", "--epsilon-step", "0.005"], capsys)
    exact = deterministic_epsilon(deltas, 0.8)
    for row, value in zip(document["rows"], exact):
        assert row["epsilon_lower"] <= value + 1e-9  # bound (6) is exact at T = 1: equality up to bisection
        assert row["epsilon_lower"] == pytest.approx(value, abs=1e-6)
        assert row["epsilon_upper"] >= value  # fails with probability <= 1e-6 (see accounting_ballsbins)
        assert row["epsilon_upper"] <= value + 0.3  # 2e5 samples resolve delta = 1e-3 to within a few %
        assert row["epsilon_deterministic"] == pytest.approx(value)
        for direction in ("remove", "add"):
            assert row[direction]["epsilon_lower"] <= row[direction]["epsilon_upper"]


def test_order_statistics_and_epochs(capsys):
    document = _json(["--sigma", "0.7", "--steps", "30", "--epsilon", "1", "--samples", "5000",
                      "--method", "order-stats", "--orders", "1..5,10..25/5", "--epochs", "2"], capsys)
    row = document["rows"][0]
    assert document["inputs"]["orders"] == "1..5,10..25/5"
    assert row["delta_lower"] is None and row["remove"]["delta_lower"] is None  # bound (6): one epoch only
    assert 0 < row["remove"]["delta_estimate"] <= row["delta_upper"] <= 1


def test_table_output(capsys):
    code, out, _ = _run(["--sigma", "0.8", "--steps", "5", "--epsilon", "1", "--samples", "1000"], capsys)
    assert code == 0 and "remove_estimate" in out and "method=naive" in out


BAD = [
    (["--sigma", "-0.5", "--steps", "10", "--epsilon", "1"], "sigma must be positive and finite; got -0.5"),
    (["--sigma", "0", "--steps", "10", "--epsilon", "1"], "sigma must be positive and finite; got 0"),
    (["--sigma", "1", "--steps", "0", "--epsilon", "1"], "steps must be an integer >= 1; got 0"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--samples", "0"], "samples must be an integer >= 1; got 0"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--error-prob", "0"], "error_prob must be in the open interval (0, 1); got 0"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--error-prob", "1"], "error_prob must be in the open interval (0, 1); got 1"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--method", "order-stats", "--orders", "1,3,2"],
     "orders must be strictly increasing"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--method", "order-stats", "--orders", "1..10"],
     "orders must start at 1 and stay inside [1, T - 1] = [1, 9]"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--method", "order-stats", "--orders", "2..5"],
     "orders must start at 1"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--method", "order-stats"], "orders must be given"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--orders", "1..3"], "orders must be omitted unless"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--samples", str(10**13)], "samples must be at most"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--method", "importance", "--epochs", "2"],
     "epochs must be 1 with importance sampling"),
    (["--sigma", "1", "--steps", "10", "--delta", "1e-3", "--method", "importance"],
     "method must be naive or order-stats for --delta queries"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "-1"], "epsilon must be non-negative"),
    (["--sigma", "1", "--steps", "10", "--delta", "1.5"], "delta must be in the open interval (0, 1)"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--relation", "substitution"],
     "relation must be one of add, remove, add_or_remove for sampler 'balls_and_bins'; got 'substitution'"),
    (["--sigma", "1", "--steps", "10", "--epsilon", "1", "--sampling-rate", "0.5"],
     "--sampling-rate must not be given with --sampler balls_and_bins"),
]


@pytest.mark.parametrize("args,message", BAD)
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = _run(args, capsys)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_ballsbins_options_with_another_sampler_are_refused(capsys):
    try:
        code = main(["account", "--sampler", "poisson", "--sigma", "1", "--steps", "10", "--epsilon", "1",
                     "--samples", "10"])
    except SystemExit as exit_info:
        code = exit_info.code
    err = capsys.readouterr().err
    assert code == 2 and "--samples must be used with --sampler balls_and_bins only; got --sampler poisson" in err


def test_epsilon_upper_falls_back_to_delta_d_when_the_ucb_never_reaches_delta():
    from dpsampling.accountants.ballsbins.tables import BallsBinsOptions, ballsbins_epsilon_table
    # 200 samples cannot certify delta = 1e-5 (UCB floor log(1/beta)/m ~ 0.035): eps_upper = eps_D(delta)
    frame = ballsbins_epsilon_table(0.8, 10, [1e-5], options=BallsBinsOptions(samples=200, seed=1))
    assert frame["epsilon_upper"].iloc[0] == pytest.approx(frame["epsilon_deterministic"].iloc[0])
    assert math.isfinite(frame["epsilon_lower"].iloc[0])
    assert np.all(frame["epsilon_lower"] <= frame["epsilon_upper"])


@pytest.mark.parametrize("relation", ["add", "remove"])
def test_relation_selects_the_top_level_direction(capsys, relation):
    args = ["account", "--sampler", "balls_and_bins", "--sigma", "0.8", "--steps", "20", "--epsilon", "0.5", "1",
            "--samples", "3000", "--method", "naive", "--relation", relation, "--json"]
    assert main(args) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["inputs"]["relation"] == relation
    for row in document["rows"]:
        assert row["delta_upper"] == row[relation]["delta_upper"]
        assert row["delta_lower"] == row[relation]["delta_lower"]
