"""Bad input, on the command line and in the config: one line naming the argument, the value and
what is allowed; exit status 2 (CLI) or a non-zero exit before any job runs (Snakemake).

Each case is distinct (a different argument, or a different way of being wrong). Some repeat
cases of test_cli.py and test_workflow.py on purpose: this file is the one list of them.
"""

import argparse

import pytest
from workflow_runs import ROOT, copy_workflow, snakemake

from dpsampling.cli.main import _build_parser, main

GOOD = {"--sampler": "poisson", "--sigma": "1", "--steps": "10"}


def _account(change: dict, query=("--delta", "1e-5")) -> list[str]:
    arguments = dict(GOOD, **{k: v for k, v in change.items() if k not in ("--delta", "--epsilon")})
    query = next(([k, v] for k, v in change.items() if k in ("--delta", "--epsilon")), list(query))
    return ["account", *[x for kv in arguments.items() for x in kv], *query]


def _choices(command: str, option: str) -> str:
    """argparse's list of allowed values of an option (so new samplers do not break the test)."""
    subparsers = next(a for a in _build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    action = next(a for a in subparsers.choices[command]._actions if option in a.option_strings)
    return ", ".join(map(repr, action.choices))


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "bad.yaml").write_text("chua24: {fig1: {steps: 0}}\n")
    (tmp_path / "broken.yaml").write_text("chua24: [1, 2\n")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    return tmp_path


CLI_CASES = [
    (_account({"--sigma": "-0.5"}), "dpsampling account: error: sigma must be positive and finite; got -0.5"),
    (_account({"--sigma": "0"}), "dpsampling account: error: sigma must be positive and finite; got 0.0"),
    (_account({"--sigma": "inf"}), "dpsampling account: error: sigma must be positive and finite; got inf"),
    (_account({"--sigma": "nan"}), "dpsampling account: error: sigma must be a real number (not NaN); got nan"),
    (_account({"--sigma": "abc"}), "dpsampling account: error: argument --sigma: invalid float value: 'abc'"),
    (_account({"--steps": "0"}), "dpsampling account: error: steps must be an integer >= 1; got 0"),
    (_account({"--steps": "1.5"}), "dpsampling account: error: argument --steps: invalid int value: '1.5'"),
    (_account({"--epochs": "0"}), "dpsampling account: error: epochs must be an integer >= 1; got 0"),
    (_account({"--delta": "0"}), "dpsampling account: error: delta must be in the open interval (0, 1); got 0.0"),
    (_account({"--delta": "1.5"}), "dpsampling account: error: delta must be in the open interval (0, 1); got 1.5"),
    (_account({"--epsilon": "-1"}), "dpsampling account: error: epsilon must be non-negative and finite; got -1.0"),
    (_account({"--epsilon": "nan"}), "dpsampling account: error: epsilon must be a real number (not NaN); got nan"),
    (_account({"--sampler": "uniform"}),
     "dpsampling account: error: argument --sampler: invalid choice: 'uniform' (choose from {account:--sampler})"),
    (_account({"--pld-discretization": "0"}), "dpsampling account: error: --pld-discretization must be positive; got 0.0"),
    (["estimate", "--configfile", "{tmp}/missing.yaml"],
     "dpsampling estimate: error: --configfile must name an existing file; got '{tmp}/missing.yaml'"),
    (["estimate", "--configfile", "{tmp}/broken.yaml"],
     "dpsampling estimate: error: --configfile '{tmp}/broken.yaml' is not valid YAML (while parsing a flow sequence)"),
    (["estimate", "--configfile", "{tmp}/list.yaml"],
     "dpsampling estimate: error: --configfile must hold a mapping of config keys; got list in '{tmp}/list.yaml'"),
    (["estimate", "--configfile", "{tmp}/bad.yaml"], "dpsampling estimate: error: config chua24.fig1.steps: must be >= 1; got 0"),
    (["estimate", "--cores", "0"], "dpsampling estimate: error: --cores must be an integer >= 1; got 0"),
    (["estimate", "--cores", "two"], "dpsampling estimate: error: argument --cores: invalid int value: 'two'"),
    (["estimate", "--directory", "{tmp}"],
     "dpsampling estimate: error: --directory must be the workflow folder (with a Snakefile); got '{tmp}'"),
    (["report", "--directory", "{tmp}/nowhere"], "dpsampling report: error: --directory must be an existing folder; got '{tmp}/nowhere'"),
]


@pytest.mark.parametrize("argv, message", CLI_CASES, ids=[" ".join(a[:1] + a[-2:]) for a, _ in CLI_CASES])
def test_bad_command_line_is_one_line_with_exit_status_2(argv, message, files, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # estimate reads config/config.yaml of the workflow folder
    argv = [a.replace("{tmp}", str(files)) for a in argv]
    message = message.replace("{tmp}", str(files)).replace("{account:--sampler}", _choices("account", "--sampler"))
    try:
        code = main(argv)
    except SystemExit as exit_info:  # argparse's own errors
        code = exit_info.code
    err = capsys.readouterr().err
    assert code == 2
    assert err == message + "\n"


CONFIG_CASES = [
    ("pld: {relative_accuracy: 0}", "config pld.relative_accuracy: must be > 0; got 0"),
    ("pld: {relative_accuracy: 2}", "config pld.relative_accuracy: must be <= 0.5; got 2"),
    ("shuffle: {refine: maybe}", "config shuffle.refine: must be of type boolean; got 'maybe'"),
    ("chua24: {fig4: {steps: 2.5}}", "config chua24.fig4.steps: must be of type integer; got 2.5"),
    ("chua24: {fig5: {sigmas: []}}", "config chua24.fig5.sigmas: must be a list of at least 1 item(s); got []"),
    ("chua24: {fig2: {epsilon_grid: {num: 0}}}", "config chua24.fig2.epsilon_grid.num: must be >= 2; got 0"),
    ("chua24: {thm41: {epochs: [0]}}", "config chua24.thm41.epochs[0]: must be >= 1; got 0"),
    ("chua25: {fig1: {seeds: 0}}", "config chua25.fig1.seeds: must be >= 1; got 0"),
    ("chua25: {fig1: {learning_rates: [-0.1]}}", "config chua25.fig1.learning_rates[0]: must be > 0; got -0.1"),
    ("chua25: {fig1: {data: {test_fraction: 1.5}}}", "config chua25.fig1.data.test_fraction: must be < 0.9; got 1.5"),
    ("chua25: {fig1: {data: {rows: 10}}}", "config chua25.fig1.data.rows: must be >= 1000; got 10"),
]


@pytest.mark.parametrize("bad, message", CONFIG_CASES, ids=[b for b, _ in CONFIG_CASES])
def test_bad_config_is_refused_by_the_command_line(tmp_path, bad, message, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    (tmp_path / "bad.yaml").write_text(bad + "\n")
    assert main(["estimate", "--configfile", str(tmp_path / "bad.yaml")]) == 2
    assert capsys.readouterr().err == f"dpsampling estimate: error: {message}\n"


SNAKEMAKE_CASES = CONFIG_CASES[::4]  # each costs a Snakemake start (~3 s); the schema check is the same


@pytest.mark.workflow
@pytest.mark.parametrize("bad, message", SNAKEMAKE_CASES, ids=[b for b, _ in SNAKEMAKE_CASES])
def test_bad_config_stops_snakemake_before_any_job(tmp_path, bad, message):
    directory = copy_workflow(tmp_path)
    (directory / "bad.yaml").write_text(bad + "\n")
    result = snakemake(directory, "--cores", "1", "--configfile", "bad.yaml")
    assert result.returncode != 0
    assert message in result.stderr.splitlines()  # the whole line, as printed
    assert not any((directory / name).exists() for name in ("results", "figures", "logs", "benchmarks"))


def test_there_are_at_least_20_distinct_cases():
    assert len({tuple(a) for a, _ in CLI_CASES}) + len({b for b, _ in CONFIG_CASES}) >= 20
