"""One JSON shape per kind of answer (issue 32.2): every command's --json validates against
src/dpsampling/cli/output.schema.json (``run_json`` checks each document it reads; here every
command and kind of run once more, the reference methods included), and the schema is strict
enough that a renamed key or a second shape fails."""

import copy
from pathlib import Path

import jsonschema
import pytest
from answer_schema import ANSWER_SCHEMA, check_answer

from dpsampling import Accountant, Phase

POISSON = ["--sampler", "poisson", "--sigma", "1.2", "--sampling-rate", "0.01", "--steps", "200"]


@pytest.mark.parametrize("argv", [
    ["account", *POISSON, "--delta", "1e-5", "1e-6"],
    ["account", *POISSON, "--epsilon", "1", "2"],
    ["account", *POISSON, "--delta", "1e-5", "--pld-method", "rdp"],
    ["account", *POISSON, "--epsilon", "1", "--pld-method", "dp_accounting", "--accuracy", "0.2"],
    ["account", "--sampler", "wor", "--sigma", "2", "--sampling-rate", "0.01", "--steps", "100",
     "--relation", "substitution", "--delta", "1e-5"],
    ["account", "--sampler", "shuffle", "--sigma", "1", "--steps-per-epoch", "50", "--epochs", "1", "--epsilon", "1"],
    ["compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--sampler", "poisson", "--delta", "1e-5",
     "--sigma", "1"],
], ids=lambda argv: " ".join(argv[:1] + argv[-4:]))
def test_bounds_answers_are_long_rows_with_their_sampler(run_json, argv):
    document = run_json(*argv)
    rows = document["bounds"]
    assert {row["direction"] for row in rows} == {"remove", "add", "max"}
    if argv[0] == "account":
        assert {row["sampler"] for row in rows} == {argv[2]}
    else:
        assert {row["sampler"] for row in rows} == {"deterministic", "shuffle", "poisson", "balls_and_bins", "wor"}
    method = argv[argv.index("--pld-method") + 1] if "--pld-method" in argv else "certified"
    assert document["attrs"]["method"] == method
    assert ("certified upper bound" in document["statement"]) == (method == "certified")
    if argv[0] == "compare":  # one sentence per sampler, the chosen one's as the statement
        assert document["statement"] == document["statements"][document["statement_sampler"]]


def test_compare_without_a_sampler_gives_no_single_statement(run_json):
    document = run_json("compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--delta", "1e-5",
                        "--sigma", "1")
    assert document["statement"] is None and document["statement_sampler"] is None
    assert set(document["statements"]) == {row["sampler"] for row in document["bounds"]}


def test_a_schedule_names_its_samplers_in_every_row(tmp_path, run_json):
    path = tmp_path / "run.yaml"
    path.write_text("phases:\n  - {sampler: poisson, sigma: 1.0, steps: 100, sampling_rate: 0.01}\n"
                    "  - {sampler: deterministic, sigma: 2.0, steps_per_epoch: 5, epochs: 1}\n")
    document = run_json("account", "--schedule", path, "--delta", "1e-5")
    assert {row["sampler"] for row in document["bounds"]} == {"poisson + deterministic"}


@pytest.mark.parametrize("argv", [
    ["calibrate", *POISSON[:2], "--sampling-rate", "0.01", "--steps", "200", "--target-epsilon", "3", "--delta", "1e-5",
     "--rtol", "0.01"],
    ["calibrate", *POISSON[:2], "--sampling-rate", "0.01", "--steps", "200", "--target-epsilon", "3", "--delta", "1e-5",
     "--rtol", "0.01", "--pld-method", "rdp"],
    ["compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--delta", "1e-5",
     "--target-epsilon", "4", "--rtol", "0.05"],
], ids=["calibrate", "calibrate rdp", "compare --target-epsilon"])
def test_calibration_answers_are_one_row_per_sampler_with_the_three_sigmas(run_json, argv):
    document = run_json(*argv)
    rows = document["calibrations"]
    assert len(rows) == (1 if argv[0] == "calibrate" else 5)
    for row in rows:
        assert row["sigma_not_shown_sufficient"] < row["sigma_sufficient"]
        assert row["epsilon_upper"] <= row["target_epsilon"]
    method = argv[argv.index("--pld-method") + 1] if "--pld-method" in argv else "certified"
    assert rows[0]["method"] == document["attrs"]["method"] == method
    if method == "rdp":  # the sigma meets the target by that method, and is labelled as such
        sigma = rows[0]["sigma_sufficient"]
        at = Accountant(Phase("poisson", sigma, sampling_rate=0.01, steps=200), method="rdp")
        assert at.get_epsilon(1e-5) == rows[0]["epsilon_upper"]
        assert "not certified" in document["attrs"]["method_label"]


def _account_document(run_json) -> dict:
    return run_json("account", *POISSON, "--delta", "1e-5")


def test_the_schema_refuses_a_renamed_key_a_second_shape_and_a_missing_sampler(run_json):
    document = _account_document(run_json)
    renamed = copy.deepcopy(document)
    renamed["bounds"][0]["eps_upper"] = renamed["bounds"][0].pop("epsilon_upper")
    second = copy.deepcopy(document)
    second["rows"] = second.pop("bounds")
    unnamed = copy.deepcopy(document)
    del unnamed["bounds"][1]["sampler"]
    for bad in (renamed, second, unnamed):
        with pytest.raises(jsonschema.ValidationError):
            check_answer(bad)


AUDITED = "from dpsampling.batches import BatchSampler\ndef loader():\n    return BatchSampler('poisson', 2000, 50, epochs=2, seed=1)\n"


@pytest.mark.parametrize("check", [(), ("--assumed", "poisson", "--sigma", "1", "--sampling-rate", "0.025", "--steps",
                                        "80", "--delta", "1e-5")], ids=["verdict", "with a check"])
def test_audit_answers_are_the_verdict_and_bounds_rows_naming_their_run(tmp_path, monkeypatch, run_json, check):
    (tmp_path / "audited.py").write_text(AUDITED)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    document = run_json("audit", "audited:loader", *check)
    assert document["command"] == "audit" and document["loader"]["sampler"] == "poisson"
    assert ("bounds" in document) == bool(check)
    if check:
        assert {row["run"] for row in document["bounds"]} >= {"assumed", "loader"}
        unnamed = copy.deepcopy(document)
        del unnamed["bounds"][0]["run"]
        no_statement = copy.deepcopy(document)
        del no_statement["statement"]
        for bad in (unnamed, no_statement):
            with pytest.raises(jsonschema.ValidationError):
                check_answer(bad)


def test_only_audit_rows_name_a_run(run_json):
    document = _account_document(run_json)
    document["bounds"][0]["run"] = "assumed"
    with pytest.raises(jsonschema.ValidationError):
        check_answer(document)


def test_the_schema_is_documented():
    commands = (Path(__file__).resolve().parents[2] / "docs" / "COMMANDS.md").read_text()
    assert "src/dpsampling/cli/output.schema.json" in commands
    for kind in ("bounds_row", "calibration_row"):
        for key in ANSWER_SCHEMA["$defs"][kind]["required"]:
            assert f"`{key}`" in commands, key


def test_compare_with_a_plot_is_a_bounds_answer_too(tmp_path, monkeypatch, run_json):
    monkeypatch.chdir(tmp_path)
    document = run_json("compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--delta", "1e-5",
                        "--sigma", "1", "--plot", "eps.png")
    assert document["plot"]["file"] == "eps.png" and (tmp_path / "eps.png").is_file()
    assert set(document["plot"]["curves"]) == {row["sampler"] for row in document["bounds"]}
