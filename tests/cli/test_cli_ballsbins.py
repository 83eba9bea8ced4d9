"""dpsampling account --sampler balls_and_bins --method ...: the papers' Monte Carlo estimators beside
the certified bounds (the Accountant's): JSON shape, T = 1 against the Gaussian mechanism, eps
queries, honesty about what m samples can certify, and one-line refusals.

Statistical checks are seeded; each states its false-failure probability (for a random seed).
"""

import math

import pytest

from dpsampling import Accountant, Phase, statement
from dpsampling.accountants.closed_form.gaussian import gaussian_delta, gaussian_epsilon

pytest.importorskip("dpsampling.accountants.ballsbins.tables", exc_type=ImportError,
                    reason="accountants.ballsbins.tables does not import on this branch (it still names the deleted "
                           "accountants.deterministic); the Monte Carlo path is tested once it does")

Z = 4.5  # two-sided normal tail 6.8e-6 per check


def _b(*argv) -> list:
    return ["account", "--sampler", "balls_and_bins", *argv]


def test_json_rows_have_estimates_both_directions_and_the_certified_bracket(run_json):
    document = run_json(*_b("--sigma", "0.6", "--steps-per-epoch", "20", "--epsilon", "0.5", "2", "--method", "naive",
                            "--samples", "20000", "--seed", "3", "--error-prob", "0.01"))
    inputs = document["inputs"]
    assert (inputs["samples"], inputs["seed"], inputs["error_prob"], inputs["method"]) == (20000, 3, 0.01, "naive")
    assert "1 - error_prob" in inputs["guarantee"]
    certified = Accountant(Phase("balls_and_bins", 0.6, steps_per_epoch=20, epochs=1)).delta_bounds([0.5, 2.0])
    assert document["certified"]["bounds"] == certified.to_dict("records")
    assert [row["epsilon"] for row in document["rows"]] == [0.5, 2.0]
    for row, value in zip(document["rows"], [0.5, 2.0]):
        for direction in ("remove", "add"):
            values = row[direction]
            assert set(values) == {"delta_lower", "delta_estimate", "delta_stderr", "delta_upper"}
            # bound (6) <= mean + Z se and mean <= UCB (6.8e-6 per check)
            assert values["delta_lower"] <= values["delta_estimate"] + Z * values["delta_stderr"]
            assert values["delta_estimate"] <= values["delta_upper"]
        assert row["delta_upper"] == max(row["remove"]["delta_upper"], row["add"]["delta_upper"])
        bracket = certified[(certified["epsilon"] == value) & (certified["direction"] == "max")].iloc[0]
        assert row["certified"] == {"delta_lower": bracket["delta_lower"], "delta_upper": bracket["delta_upper"]}
        # the true delta lies in the certified bracket; the larger MC mean estimates it (5 stderr: < 1e-6)
        largest = max(row[d]["delta_estimate"] for d in ("remove", "add"))
        stderr = max(row[d]["delta_stderr"] for d in ("remove", "add"))
        assert bracket["delta_lower"] - 5 * stderr <= largest <= bracket["delta_upper"] + 5 * stderr


@pytest.mark.parametrize("method", ["naive", "importance"])
def test_single_step_reproduces_the_gaussian_mechanism(run_json, method):
    eps = [0.0, 1.0, 2.5]
    document = run_json(*_b("--sigma", "0.8", "--steps-per-epoch", "1", "--epsilon", *map(str, eps), "--samples", "100000",
                            "--seed", "5", "--error-prob", "1e-6", "--method", method))
    exact = gaussian_delta(eps, 0.8)
    for row, value in zip(document["rows"], exact):
        for direction in ("remove", "add"):
            result = row[direction]
            assert abs(result["delta_estimate"] - value) < Z * result["delta_stderr"]  # 6.8e-6 each
            assert result["delta_upper"] >= value  # fails with probability <= 1e-6 (Thm 4.1)
            assert result["delta_lower"] == pytest.approx(value, rel=1e-7, abs=1e-15)  # bound (6) is exact at T = 1


def test_epsilon_queries_bracket_the_gaussian_mechanism_and_end_with_the_number_to_report(run_json):
    deltas = [1e-2, 1e-3]
    document = run_json(*_b("--sigma", "0.8", "--steps-per-epoch", "1", "--delta", *map(str, deltas), "--samples", "200000",
                            "--seed", "6", "--error-prob", "1e-6", "--epsilon-step", "0.005", "--method", "naive"))
    for row, delta in zip(document["rows"], deltas):
        value = gaussian_epsilon(delta, 0.8, 1.0)
        assert row["epsilon_lower"] == pytest.approx(value, abs=1e-6)  # bound (6) is exact at T = 1
        assert value <= row["epsilon_upper"] <= value + 0.3  # fails with probability <= 1e-6
        for direction in ("remove", "add"):
            assert row[direction]["epsilon_lower"] <= row[direction]["epsilon_upper"]
    certified = Accountant(Phase("balls_and_bins", 0.8, steps_per_epoch=1, epochs=1)).epsilon_bounds(deltas)
    assert document["statement"] == statement(certified)


def test_order_statistics_and_epochs(run_json):
    document = run_json(*_b("--sigma", "0.7", "--steps-per-epoch", "30", "--epochs", "2", "--epsilon", "1",
                            "--samples", "5000", "--method", "order-stats", "--orders", "1..5,10..25/5"))
    row = document["rows"][0]
    assert document["inputs"]["orders"] == "1..5,10..25/5" and document["inputs"]["epochs"] == 2
    assert row["delta_lower"] is None and row["remove"]["delta_lower"] is None  # bound (6): one epoch only
    assert 0 < row["remove"]["delta_estimate"] <= row["delta_upper"] <= 1


@pytest.mark.parametrize("relation", ["add", "remove"])
def test_relation_selects_the_top_level_direction(run_json, relation):
    document = run_json(*_b("--sigma", "0.8", "--steps-per-epoch", "20", "--epsilon", "0.5", "1", "--samples", "3000",
                            "--method", "naive", "--relation", relation))
    assert document["inputs"]["relation"] == relation
    for row in document["rows"]:
        assert row["delta_upper"] == row[relation]["delta_upper"]
        assert row["delta_lower"] == row[relation]["delta_lower"]


def test_table_output(run):
    result = run(*_b("--sigma", "0.8", "--steps-per-epoch", "5", "--epsilon", "1", "--samples", "1000", "--method", "naive"))
    assert result.code == 0 and "remove_estimate" in result.out and "method=naive" in result.out
    assert "certified_upper" in result.out


def test_a_delta_monte_carlo_cannot_certify_is_refused_with_the_sample_count_that_would(run):
    result = run(*_b("--sigma", "1", "--steps-per-epoch", "196", "--epochs", "10", "--delta", "1e-5",
                     "--method", "naive"))
    needed = math.ceil(math.log(1e3) / 1e-5)
    assert result.code == 2 and result.out == "" and result.err.count("\n") == 1
    assert "--samples 100000 cannot certify delta = 1e-05" in result.err and f"--samples >= {needed}" in result.err


BAD = [
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--method", "naive", "--samples", "0"],
     "argument --samples: samples must be an integer >= 1; got 0"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--method", "naive", "--error-prob", "1"],
     "argument --error-prob: error_prob must be in the open interval (0, 1); got 1"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--method", "order-stats", "--orders", "1,3,2"],
     "orders must be strictly increasing"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--method", "order-stats"],
     "argument --orders: orders must be given"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--method", "naive", "--orders", "1..3"],
     "argument --orders: orders must be omitted unless"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epochs", "2", "--epsilon", "1", "--method", "importance"],
     "argument --epochs: epochs must be 1 with importance sampling"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--delta", "1e-3", "--method", "importance"],
     "argument --method: method must be naive or order-stats for --delta queries"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--samples", "100"],
     "--samples applies to the Monte Carlo estimators: choose --method"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--method", "naive", "--pld-method", "dp_accounting"],
     "--pld-method applies without --method"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--method", "magic"], "invalid choice: 'magic'"),
]


@pytest.mark.parametrize("argv, message", BAD)
def test_bad_input_is_one_line_and_exit_2(run, argv, message):
    result = run(*_b(*argv))
    assert result.code == 2 and result.out == ""
    assert message in result.err and result.err.count("\n") == 1, result.err
