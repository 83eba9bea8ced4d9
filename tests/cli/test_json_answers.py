"""One envelope for every --json answer (issues 32.2, 45): every command's --json validates against
src/dpsampling/cli/output.schema.json (``run_json`` checks each document it reads; here every
command and kind once more, the reference methods included): exactly the fields ``command``,
``kind``, ``version``, ``inputs``, ``run``, ``attrs``, ``statement``, ``rows``, and the rows of its
kind; the schema is strict enough that a renamed key, a missing or unknown kind, or rows of
another kind fail."""

import copy
import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml
from answer_schema import ANSWER_SCHEMA, check_answer

from dpsampling import Accountant, Phase, __version__
from dpsampling.cli.output import ENVELOPE, KINDS

ROOT = Path(__file__).resolve().parents[2]
POISSON = ["--sampler", "poisson", "--sigma", "1.2", "--sampling-rate", "0.01", "--steps", "200"]


@pytest.mark.parametrize("argv", [
    ["account", *POISSON, "--delta", "1e-5", "1e-6"],
    ["account", *POISSON, "--epsilon", "1", "2"],
    ["account", *POISSON, "--delta", "1e-5", "--method", "rdp"],
    ["account", *POISSON, "--epsilon", "1", "--method", "dp_accounting", "--accuracy", "0.2"],
    ["account", "--sampler", "wor", "--sigma", "2", "--sampling-rate", "0.01", "--steps", "100",
     "--relation", "substitution", "--delta", "1e-5"],
    ["account", "--sampler", "shuffle", "--sigma", "1", "--steps-per-epoch", "50", "--epochs", "1", "--epsilon", "1"],
    ["compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--sampler", "poisson", "--delta", "1e-5",
     "--sigma", "1"],
], ids=lambda argv: " ".join(argv[:1] + argv[-4:]))
def test_bounds_answers_are_long_rows_with_their_sampler(run_json, argv):
    document = run_json(*argv)
    rows = document["rows"]
    assert document["kind"] == "bounds" and {row["direction"] for row in rows} == {"remove", "add", "max"}
    if argv[0] == "account":
        assert {row["sampler"] for row in rows} == {argv[2]}
    else:
        assert {row["sampler"] for row in rows} == {"deterministic", "shuffle", "poisson", "balls_and_bins", "wor"}
    method = argv[argv.index("--method") + 1] if "--method" in argv else "certified"
    assert document["attrs"]["method"] == method
    if argv[0] == "account":  # the flag as given, named as the face's argument
        assert document["inputs"]["method"] == (None if method == "certified" else method)
    assert ("certified upper bound" in document["statement"]) == (method == "certified")
    if argv[0] == "compare":  # one sentence per sampler, the chosen one's as the statement
        assert document["statement"] == document["attrs"]["statements"][document["inputs"]["sampler"]]


def test_compare_without_a_sampler_gives_no_single_statement(run_json):
    document = run_json("compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--delta", "1e-5",
                        "--sigma", "1")
    assert document["statement"] is None and document["inputs"]["sampler"] is None
    assert set(document["attrs"]["statements"]) == {row["sampler"] for row in document["rows"]}


def test_a_schedule_names_its_samplers_in_every_row(tmp_path, run_json):
    path = tmp_path / "run.yaml"
    path.write_text("phases:\n  - {sampler: poisson, sigma: 1.0, steps: 100, sampling_rate: 0.01}\n"
                    "  - {sampler: deterministic, sigma: 2.0, steps_per_epoch: 5, epochs: 1}\n")
    document = run_json("account", "--schedule", path, "--delta", "1e-5")
    assert {row["sampler"] for row in document["rows"]} == {"poisson + deterministic"}


@pytest.mark.parametrize("argv", [
    ["calibrate", *POISSON[:2], "--sampling-rate", "0.01", "--steps", "200", "--target-epsilon", "3", "--delta", "1e-5",
     "--rtol", "0.01"],
    ["calibrate", *POISSON[:2], "--sampling-rate", "0.01", "--steps", "200", "--target-epsilon", "3", "--delta", "1e-5",
     "--rtol", "0.01", "--method", "rdp"],
    ["compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--delta", "1e-5",
     "--target-epsilon", "4", "--rtol", "0.05"],
], ids=["calibrate", "calibrate rdp", "compare --target-epsilon"])
def test_calibration_answers_are_one_row_per_sampler_with_the_three_sigmas(run_json, argv):
    document = run_json(*argv)
    rows = document["rows"]
    assert document["kind"] == "calibrations"
    assert len(rows) == (1 if argv[0] == "calibrate" else 5)
    for row in rows:
        assert row["sigma_not_shown_sufficient"] < row["sigma_sufficient"]
        assert row["epsilon_upper"] <= row["target_epsilon"]
    method = argv[argv.index("--method") + 1] if "--method" in argv else "certified"
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
    renamed["rows"][0]["eps_upper"] = renamed["rows"][0].pop("epsilon_upper")
    second = copy.deepcopy(document)
    second["bounds"] = second.pop("rows")
    unnamed = copy.deepcopy(document)
    del unnamed["rows"][1]["sampler"]
    for bad in (renamed, second, unnamed):
        with pytest.raises(jsonschema.ValidationError):
            check_answer(bad)


TINY = yaml.safe_load((ROOT / ".test/config/config.yaml").read_text())
KNOB_RUN = [*POISSON, "--target-epsilon", "3", "--delta", "1e-5"]
EVERY_KIND = {  # (command, kind): its argv (estimate: run in a workflow folder of no experiments)
    ("account", "bounds"): ["account", *POISSON, "--delta", "1e-5"],
    ("compare", "bounds"): ["compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--delta",
                            "1e-5", "--sigma", "1"],
    ("calibrate", "calibrations"): ["calibrate", *POISSON[:2], *POISSON[4:], "--target-epsilon", "3", "--delta", "1e-5",
                                    "--rtol", "0.01"],
    ("compare", "calibrations"): ["compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1",
                                  "--delta", "1e-5", "--target-epsilon", "4", "--rtol", "0.05", "--sampler", "wor"],
    ("calibrate", "knob"): ["calibrate", "--knob", "steps", *KNOB_RUN],
    ("calibrate", "budget"): ["calibrate", "--budget-left", *KNOB_RUN],
    ("estimate", "estimate"): ["estimate", "--cores", "2"],
    ("audit", "audit"): ["audit", "audited:loader", "--assumed", "poisson", "--sigma", "1", "--sampling-rate", "0.025",
                         "--steps", "80", "--delta", "1e-5"],
}


@pytest.fixture()
def workplace(tmp_path, monkeypatch):
    """A folder with the audited loader and a workflow of no experiments (estimate: seconds)."""
    (tmp_path / "audited.py").write_text(AUDITED)
    (tmp_path / "Snakefile").write_text("")
    shutil.copytree(ROOT / "workflow/schemas", tmp_path / "workflow/schemas")
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_text(yaml.safe_dump({k: TINY[k] for k in ("seed", "pld", "shuffle")
                                                                  if k in TINY}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_every_kind_has_a_command():
    assert sorted({kind for _, kind in EVERY_KIND}) == sorted(KINDS)
    assert ANSWER_SCHEMA["properties"]["kind"]["enum"] == list(KINDS)


@pytest.mark.parametrize(("command", "kind"), EVERY_KIND, ids=lambda value: value)
def test_every_answer_is_one_envelope_and_the_schema_holds_its_kind(workplace, run, command, kind):
    result = run(*EVERY_KIND[command, kind], "--json")
    assert result.code == 0, result.err
    document = check_answer(json.loads(result.out))
    assert tuple(document) == ENVELOPE and (document["command"], document["kind"]) == (command, kind)
    assert document["version"] == __version__
    assert all(isinstance(line, str) for line in document["run"])
    assert document["statement"] is None or isinstance(document["statement"], str)
    without_kind, unknown_kind, extra_field = (copy.deepcopy(document) for _ in range(3))
    del without_kind["kind"]
    unknown_kind["kind"] = "sigma"
    extra_field["words"] = {}
    for bad in (without_kind, unknown_kind, extra_field):
        with pytest.raises(jsonschema.ValidationError):
            check_answer(bad)
    for other in sorted({other for _, other in EVERY_KIND if other != kind}):  # rows of another kind: refused
        mislabelled = copy.deepcopy(document)
        mislabelled["rows"] = [_row_of(other)] * max(1, len(document["rows"]))
        with pytest.raises(jsonschema.ValidationError):
            check_answer(mislabelled)


def _row_of(kind: str) -> dict:
    """One row of ``kind`` as its command writes it (a record the schema checks per kind)."""
    bounds = {"delta": 1e-5, "direction": "max", "sampler": "poisson", "epsilon_lower": 1.0, "epsilon_upper": 1.01,
              "accuracy": 0.01, "converged": True, "lower_method": "m", "upper_method": "m"}
    return {"bounds": bounds, "audit": {**bounds, "run": "loader"},
            "calibrations": {"sampler": "poisson", "sigma_sufficient": 1.0, "epsilon_upper": 2.0},
            "knob": {"knob": "steps", "value_sufficient": 10, "value_not_shown_sufficient": 11, "epsilon_upper": 2.0,
                     "target_epsilon": 2.0, "delta": 1e-5, "relation": "add", "evaluations": 3},
            "budget": {"epsilon_spent_lower": 1.0, "epsilon_spent_upper": 1.1, "more": 3, "unit": "steps",
                       "target_epsilon": 2.0, "delta": 1e-5},
            "estimate": {"experiment": "x", "units": 1, "unit": "step", "core_hours": 0.5}}[kind]


def test_the_old_shapes_are_refused(run_json):
    """Before issue 45: bounds, calibrations, flat knob and budget fields beside command and inputs."""
    document = _account_document(run_json)
    old = {"command": "account", "inputs": document["inputs"], "run": document["run"], "bounds": document["rows"],
           "attrs": document["attrs"], "statement": document["statement"]}
    with pytest.raises(jsonschema.ValidationError):
        check_answer(old)


AUDITED = "from dpsampling.batches import BatchSampler\ndef loader():\n    return BatchSampler('poisson', 2000, 50, epochs=2, seed=1)\n"


@pytest.mark.parametrize("check", [(), ("--assumed", "poisson", "--sigma", "1", "--sampling-rate", "0.025", "--steps",
                                        "80", "--delta", "1e-5")], ids=["verdict", "with a check"])
def test_audit_answers_are_the_verdict_and_bounds_rows_naming_their_run(tmp_path, monkeypatch, run_json, check):
    (tmp_path / "audited.py").write_text(AUDITED)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    document = run_json("audit", "audited:loader", *check)
    assert document["command"] == "audit" and document["attrs"]["verdict"]["sampler"] == "poisson"
    assert bool(document["rows"]) == bool(document["run"]) == bool(check)
    if not check:
        assert document["statement"] == f"your loader {document['attrs']['verdict']['behaviour']}"
    else:
        assert {row["run"] for row in document["rows"]} >= {"assumed", "loader"}
        assert [line.split(":")[0] for line in document["run"]] == ["assumed", "loader"]
        unnamed = copy.deepcopy(document)
        del unnamed["rows"][0]["run"]
        no_statement = copy.deepcopy(document)
        del no_statement["statement"]
        no_verdict = copy.deepcopy(document)
        del no_verdict["attrs"]["verdict"]
        for bad in (unnamed, no_statement, no_verdict):
            with pytest.raises(jsonschema.ValidationError):
                check_answer(bad)


def test_only_audit_rows_name_a_run(run_json):
    document = _account_document(run_json)
    document["rows"][0]["run"] = "assumed"
    with pytest.raises(jsonschema.ValidationError):
        check_answer(document)


def test_the_schema_is_documented():
    commands = (Path(__file__).resolve().parents[2] / "docs" / "COMMANDS.md").read_text()
    assert "src/dpsampling/cli/output.schema.json" in commands
    for key in ENVELOPE + KINDS:
        assert f"`{key}`" in commands, key
    for kind in ("bounds_row", "calibration_row", "knob_row", "budget_row"):
        for key in ANSWER_SCHEMA["$defs"][kind]["required"]:
            assert f"`{key}`" in commands, key


def test_compare_with_a_plot_is_a_bounds_answer_too(tmp_path, monkeypatch, run_json):
    monkeypatch.chdir(tmp_path)
    document = run_json("compare", "--dataset-size", "1000", "--batch-size", "100", "--epochs", "1", "--delta", "1e-5",
                        "--sigma", "1", "--plot", "eps.png")
    assert document["attrs"]["plot"]["file"] == "eps.png" and (tmp_path / "eps.png").is_file()
    assert set(document["attrs"]["plot"]["curves"]) == {row["sampler"] for row in document["rows"]}
