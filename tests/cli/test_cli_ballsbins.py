"""dpsampling account --sampler balls_and_bins --estimator ...: the papers' Monte Carlo estimators beside
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


def _by(rows: list, key: str) -> dict:
    """{(query value, direction): row} of the long rows."""
    return {(row[key], row["direction"]): row for row in rows}


MC_DELTA = {f"monte_carlo_delta_{name}" for name in ("lower", "estimate", "stderr", "upper")}


def test_json_rows_are_the_certified_rows_with_the_estimates_beside_them(run_json):
    document = run_json(*_b("--sigma", "0.6", "--steps-per-epoch", "20", "--epsilon", "0.5", "2", "--estimator", "naive",
                            "--samples", "20000", "--seed", "3", "--error-prob", "0.01"))
    inputs = document["inputs"]
    assert (inputs["samples"], inputs["seed"], inputs["error_prob"], inputs["estimator"]) == (20000, 3, 0.01, "naive")
    assert "1 - error_prob" in document["attrs"]["monte_carlo"]["guarantee"]
    certified = Accountant(Phase("balls_and_bins", 0.6, steps_per_epoch=20, epochs=1)).delta_bounds([0.5, 2.0])
    rows = document["rows"]
    assert [{k: row[k] for k in certified.columns} for row in rows] == certified.to_dict("records")
    assert all(row["sampler"] == "balls_and_bins" for row in rows)
    by = _by(rows, "epsilon")
    for value in (0.5, 2.0):
        for direction in ("remove", "add"):
            row = by[(value, direction)]
            assert MC_DELTA <= set(row)
            # bound (6) <= mean + Z se and mean <= UCB (6.8e-6 per check)
            assert row["monte_carlo_delta_lower"] <= row["monte_carlo_delta_estimate"] + Z * row["monte_carlo_delta_stderr"]
            assert row["monte_carlo_delta_estimate"] <= row["monte_carlo_delta_upper"]
        top = by[(value, "max")]
        assert top["monte_carlo_delta_upper"] == max(by[(value, d)]["monte_carlo_delta_upper"] for d in ("remove", "add"))
        assert top["monte_carlo_delta_estimate"] is None  # no estimate of a maximum is made
        # the true delta lies in the certified bracket; the larger MC mean estimates it (5 stderr: < 1e-6)
        largest = max(by[(value, d)]["monte_carlo_delta_estimate"] for d in ("remove", "add"))
        stderr = max(by[(value, d)]["monte_carlo_delta_stderr"] for d in ("remove", "add"))
        assert top["delta_lower"] - 5 * stderr <= largest <= top["delta_upper"] + 5 * stderr


@pytest.mark.parametrize("estimator", ["naive", "importance"])
def test_single_step_reproduces_the_gaussian_mechanism(run_json, estimator):
    eps = [0.0, 1.0, 2.5]
    document = run_json(*_b("--sigma", "0.8", "--steps-per-epoch", "1", "--epsilon", *map(str, eps), "--samples", "100000",
                            "--seed", "5", "--error-prob", "1e-6", "--estimator", estimator))
    by = _by(document["rows"], "epsilon")
    for value, exact in zip(eps, gaussian_delta(eps, 0.8)):
        for direction in ("remove", "add"):
            row = by[(value, direction)]
            assert abs(row["monte_carlo_delta_estimate"] - exact) < Z * row["monte_carlo_delta_stderr"]  # 6.8e-6 each
            assert row["monte_carlo_delta_upper"] >= exact  # fails with probability <= 1e-6 (Thm 4.1)
            # bound (6) is exact at T = 1
            assert row["monte_carlo_delta_lower"] == pytest.approx(exact, rel=1e-7, abs=1e-15)


def test_epsilon_queries_bracket_the_gaussian_mechanism_and_end_with_the_number_to_report(run_json):
    deltas = [1e-2, 1e-3]
    document = run_json(*_b("--sigma", "0.8", "--steps-per-epoch", "1", "--delta", *map(str, deltas), "--samples", "200000",
                            "--seed", "6", "--error-prob", "1e-6", "--epsilon-step", "0.005", "--estimator", "naive"))
    by = _by(document["rows"], "delta")
    for delta in deltas:
        value = gaussian_epsilon(delta, 0.8, 1.0)
        top = by[(delta, "max")]
        assert top["monte_carlo_epsilon_lower"] == pytest.approx(value, abs=1e-6)  # bound (6) is exact at T = 1
        assert value <= top["monte_carlo_epsilon_upper"] <= value + 0.3  # fails with probability <= 1e-6
        for direction in ("remove", "add"):
            row = by[(delta, direction)]
            assert row["monte_carlo_epsilon_lower"] <= row["monte_carlo_epsilon_upper"] <= row["epsilon_deterministic"]
    certified = Accountant(Phase("balls_and_bins", 0.8, steps_per_epoch=1, epochs=1)).epsilon_bounds(deltas)
    assert document["statement"] == statement(certified)


def test_order_statistics_and_epochs(run_json):
    document = run_json(*_b("--sigma", "0.7", "--steps-per-epoch", "30", "--epochs", "2", "--epsilon", "1",
                            "--samples", "5000", "--estimator", "order-stats", "--orders", "1..5,10..25/5"))
    by = _by(document["rows"], "epsilon")
    assert document["inputs"]["orders"] == "1..5,10..25/5" and document["inputs"]["epochs"] == 2
    # bound (6): one epoch only
    assert by[(1.0, "max")]["monte_carlo_delta_lower"] is None and by[(1.0, "remove")]["monte_carlo_delta_lower"] is None
    assert 0 < by[(1.0, "remove")]["monte_carlo_delta_estimate"] <= by[(1.0, "max")]["monte_carlo_delta_upper"] <= 1


@pytest.mark.parametrize("relation", ["add", "remove"])
def test_relation_picks_the_headline_row_of_the_certified_bounds(run_json, relation):
    document = run_json(*_b("--sigma", "0.8", "--steps-per-epoch", "20", "--epsilon", "0.5", "1", "--samples", "3000",
                            "--estimator", "naive", "--relation", relation))
    assert document["inputs"]["relation"] == relation and document["attrs"]["headline"] == relation
    certified = Accountant(Phase("balls_and_bins", 0.8, steps_per_epoch=20, epochs=1), relation=relation).delta_bounds([0.5, 1.0])
    assert document["statement"] == statement(certified)


def test_table_output(run):
    result = run(*_b("--sigma", "0.8", "--steps-per-epoch", "5", "--epsilon", "1", "--samples", "1000", "--estimator", "naive"))
    assert result.code == 0 and "mc_estimate" in result.out and "estimator=naive" in result.out
    assert "certified_upper" in result.out and result.out.rstrip().splitlines()[-1].startswith("Report: ")


def test_a_delta_monte_carlo_cannot_certify_is_refused_with_the_sample_count_that_would(run):
    result = run(*_b("--sigma", "1", "--steps-per-epoch", "196", "--epochs", "10", "--delta", "1e-5",
                     "--estimator", "naive"))
    needed = math.ceil(math.log(1e3) / 1e-5)
    assert result.code == 2 and result.out == "" and result.err.count("\n") == 1
    assert "--samples 100000 cannot certify delta = 1e-05" in result.err and f"--samples >= {needed}" in result.err


BAD = [
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--estimator", "naive", "--samples", "0"],
     "argument --samples: samples must be an integer >= 1; got 0"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--estimator", "naive", "--error-prob", "1"],
     "argument --error-prob: error_prob must be in the open interval (0, 1); got 1"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--estimator", "order-stats", "--orders", "1,3,2"],
     "orders must be strictly increasing"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--estimator", "order-stats"],
     "argument --orders: orders must be given"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--estimator", "naive", "--orders", "1..3"],
     "argument --orders: orders must be omitted unless"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epochs", "2", "--epsilon", "1", "--estimator", "importance"],
     "argument --epochs: epochs must be 1 with importance sampling"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--delta", "1e-3", "--estimator", "importance"],
     "argument --estimator: estimator must be naive or order-stats for --delta queries"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--samples", "100"],
     "--samples applies to the Monte Carlo estimators: choose --estimator"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--estimator", "naive", "--method", "dp_accounting"],
     "--method applies without --estimator"),
    (["--sigma", "1", "--steps-per-epoch", "10", "--epsilon", "1", "--estimator", "magic"], "invalid choice: 'magic'"),
]


@pytest.mark.parametrize("argv, message", BAD)
def test_bad_input_is_one_line_and_exit_2(run, argv, message):
    result = run(*_b(*argv))
    assert result.code == 2 and result.out == ""
    assert message in result.err and result.err.count("\n") == 1, result.err
