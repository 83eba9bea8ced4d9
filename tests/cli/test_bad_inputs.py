"""Bad input, on the command line and in the config: one line naming the argument, the value and
what is allowed; exit status 2 (CLI) or a non-zero exit before any job runs (Snakemake). Internal
errors are one line and exit status 1 (the traceback with --debug); Ctrl-C one line and 130.

Each case is distinct (a different argument, or a different way of being wrong): this file is the
one list of them, one per refusal class of docs/COMMANDS.md ("What the tool refuses").
"""

import importlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from workflow_runs import ROOT, copy_workflow, snakemake

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.frames import AccountingError
from dpsampling.cli.main import COMMANDS, main

GOOD = {"--sampler": "poisson", "--sigma": "1", "--steps": "10", "--sampling-rate": "0.1"}


def _account(change: dict, query=("--delta", "1e-5"), drop=()) -> list[str]:
    arguments = dict(GOOD, **{k: v for k, v in change.items() if k not in ("--delta", "--epsilon")})
    arguments = {k: v for k, v in arguments.items() if v is not None and k not in drop}
    query = next(([k, v] for k, v in change.items() if k in ("--delta", "--epsilon")), list(query))
    return ["account", *[x for kv in arguments.items() for x in kv], *query]


def _choices(command: str, option: str) -> str:
    """argparse's list of allowed values of an option (so new samplers do not break the test)."""
    parser = importlib.import_module(COMMANDS[command].module).build_parser(f"dpsampling {command}")
    action = next(a for a in parser._actions if option in a.option_strings)
    return ", ".join(map(repr, action.choices))


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "bad.yaml").write_text("chua24: {fig1: {steps: 0}}\n")
    (tmp_path / "broken.yaml").write_text("chua24: [1, 2\n")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    (tmp_path / "shuffle.yaml").write_text("phases:\n  - {sampler: shuffle, sigma: 1.0, steps: 10}\n")
    (tmp_path / "rate.yaml").write_text("phases:\n  - {sampler: poisson, sigma: 1.0, steps: 10}\n")
    return tmp_path


E = "dpsampling account: error: "
CLI_CASES = [
    # the face's ValueError, led by the flag of the argument it names
    (_account({"--sigma": "-0.5"}), E + "argument --sigma: sigma must be positive and finite; got -0.5"),
    (_account({"--sigma": "inf"}), E + "argument --sigma: sigma must be positive and finite; got inf"),
    (_account({"--sigma": "nan"}), E + "argument --sigma: sigma must be a real number (not NaN); got nan"),
    (_account({"--sigma": "0.01"}), E + "argument --sigma: sigma must be >= 0.05 for sampler poisson (below, the "
     "certified grid of its likelihood ratio passes the range of floating point); got 0.01"),
    (_account({"--steps": "0"}), E + "argument --steps: steps must be an integer >= 1; got 0"),
    (_account({"--sampling-rate": "1.5"}), E + "argument --sampling-rate: sampling_rate must be in (0, 1]; got 1.5"),
    (_account({}, drop=("--sampling-rate",)), E + "argument --sampling-rate: sampling_rate must be given for sampler "
     "poisson (or dataset_size and batch_size, q = batch_size / dataset_size); got neither (there is no default rate)"),
    (_account({"--sampler": "deterministic"}), E + "argument --sampling-rate: sampling_rate applies to samplers poisson, "
     "wor, cyclic_poisson, b_min_sep only (deterministic is described by its steps per epoch and epochs); got 0.1"),
    (_account({"--epochs": "2"}), E + "argument --steps: steps must not be given with epochs: steps is the total number "
     "of steps; give epochs with steps_per_epoch (or dataset_size and batch_size) instead; got steps=10 and epochs=2"),
    (_account({"--dataset-size": "100"}), E + "argument --batch-size: batch_size must be given with dataset_size (they "
     "describe the run together); got dataset_size alone"),
    (_account({"--sampler": "balls_and_bins", "--sampling-rate": None, "--steps": "10", "--steps-per-epoch": "3"}),
     E + "argument --steps: steps must be a whole number of epochs of 3 steps for sampler balls_and_bins; got 10"),
    (_account({"--sampler": "balls_and_bins", "--sampling-rate": None}), E + "--steps alone does not describe a run "
     "of sampler balls_and_bins (its cost depends on how the steps are cut into epochs: 4,700 steps as one epoch cost "
     "far less than 20 epochs of 235): give --steps-per-epoch with --epochs (or with --steps), or --dataset-size and "
     "--batch-size; got --steps 10 alone"),
    (_account({"--delta": "0"}), E + "argument --delta: delta must be in the open interval (0, 1); got 0.0"),
    (_account({"--epsilon": "-1"}), E + "argument --epsilon: epsilon must be non-negative and finite; got -1.0"),
    (_account({"--accuracy": "1.5"}), E + "argument --accuracy: accuracy must be in the open interval (0, 1); got 1.5"),
    (_account({"--max-grid-points": "3"}), E + "argument --max-grid-points: max_grid_points must be at least"),
    (_account({"--relation": "substitution"}), E + "argument --relation: relation must be one of add, remove, "
     "add_or_remove for sampler poisson; got 'substitution'"),
    (_account({"--sampler": "shuffle", "--sampling-rate": None, "--steps": None, "--steps-per-epoch": "10", "--method": "dp_accounting"}),
     E + "argument --method: method dp_accounting applies to one poisson or wor phase under add, remove or "
     "add_or_remove (a reference method of dp-accounting); got shuffle, sigma 1: 1 epoch(s) of 10 steps (10 steps) under add_or_remove"),
    # 1e12 steps at rate 1e-12: the engine's rounding bounds outgrow the laws; refused, never answered
    (_account({"--steps": "1000000000000", "--sampling-rate": "1e-12"}), E + "the certified engine cannot bound "
     "poisson(sigma=1, 1000000000000 steps): its rounding bounds outgrew the laws (relative error ..."),
    # an option that would change nothing is refused
    (_account({"--sampler": "deterministic", "--sampling-rate": None, "--steps": None, "--steps-per-epoch": "10", "--refine": "relation"}),
     E + "--refine applies where the certified engine refines a grid; this run is one Gaussian mechanism, answered "
     "in closed form, so it would change nothing; got --refine relation"),
    (_account({"--sampler": "wor", "--relation": "substitution", "--refine": "relation"}),
     E + "--refine applies to the add and remove directions; under substitution both are one curve, refined as a "
     "whole; got --refine relation"),
    (_account({"--samples": "100"}), E + "--samples applies to the Monte Carlo estimators of balls_and_bins (one "
     "phase) only; got it with sampler poisson"),
    (_account({"--schedule": "{tmp}/rate.yaml"}), E + "--schedule describes the whole run (each phase's sampler, "
     "sigma and length); got --sampler too (write it into the file)"),
    # schedules: the file, the phase, the field
    (["account", "--schedule", "{tmp}/missing.yaml", "--delta", "1e-5"], E + "{tmp}/missing.yaml: schedule file not found"),
    (["account", "--schedule", "{tmp}/shuffle.yaml", "--delta", "1e-5"], E + "{tmp}/shuffle.yaml: phase 1: field "
     "'sampler' is 'shuffle'; allowed: deterministic, poisson, balls_and_bins, wor, cyclic_poisson, b_min_sep, "
     "fixed_balls_and_bins (a sampler without a dominating pair cannot be composed)"),
    (["account", "--schedule", "{tmp}/rate.yaml", "--delta", "1e-5"], E + "{tmp}/rate.yaml: phase 1: sampling_rate must "
     "be given for sampler poisson (or dataset_size and batch_size, q = batch_size / dataset_size); got neither "
     "(there is no default rate)"),
    # argparse
    (_account({"--sigma": "abc"}), E + "argument --sigma: invalid float value: 'abc'"),
    (_account({"--steps": "1.5"}), E + "argument --steps: steps must be an integer >= 1; got 1.5"),
    (_account({"--steps": "ten"}), E + "argument --steps: invalid whole value: 'ten'"),
    (_account({"--sampler": "uniform"}), E + "argument --sampler: invalid choice: 'uniform' (choose from "
     "{account:--sampler})"),
    (["account", "--sampler", "poisson", "--sigma", "1"], E + "one of the arguments --epsilon --delta is required"),
    (["estimate", "--configfile", "{tmp}/missing.yaml"],
     "dpsampling estimate: error: --configfile must name an existing file; got '{tmp}/missing.yaml'"),
    (["estimate", "--configfile", "{tmp}/broken.yaml"],
     "dpsampling estimate: error: --configfile {tmp}/broken.yaml (line 2): not valid YAML: expected ',' or ']', but got '<stream end>'"),
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
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    if message.endswith("at least"):
        assert captured.err.startswith(message) and captured.err.count("\n") == 1
    elif message.endswith("..."):  # a computed number follows: the message up to it
        assert captured.err.startswith(message[:-3]) and captured.err.count("\n") == 1
    else:
        assert captured.err == message + "\n"


CONFIG_CASES = [
    ("pld: {relative_accuracy: 0}", "config pld.relative_accuracy: must be > 0; got 0"),
    ("pld: {relative_accuracy: 2}", "config pld.relative_accuracy: must be <= 0.5; got 2"),
    ("seed: maybe", "config seed: must be of type integer; got 'maybe'"),
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


def _fails_inside(monkeypatch, error: Exception) -> None:
    """Make the face's eps query fail the way an internal fault would."""
    def fail(self, deltas):
        raise error
    monkeypatch.setattr(Accountant, "epsilon_rows", fail)  # what account asks (epsilon_bounds is its frame)


def test_an_accounting_error_is_an_internal_error_one_line_exit_1(monkeypatch, capsys):
    _fails_inside(monkeypatch, AccountingError("internal error: the epsilon bounds at delta = 1e-05 (add) are "
                                               "[0.1, 0.0], not a valid bracket; please report it"))
    assert main(_account({})) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("dpsampling account: internal error: AccountingError: the epsilon bounds at delta")
    assert "--debug" in captured.err


def test_a_value_error_from_numpy_is_internal_not_a_usage_error(monkeypatch, capsys):
    """Issue 24: numpy's 'zero-size array' message was shown as a usage error (exit 2)."""
    def fail(self, deltas):
        return np.array([]).min()
    monkeypatch.setattr(Accountant, "epsilon_rows", fail)  # what account asks (epsilon_bounds is its frame)
    assert main(_account({})) == 1
    err = capsys.readouterr().err
    assert err.startswith("dpsampling account: internal error: ValueError: zero-size array") and err.count("\n") == 1


def test_a_value_error_at_a_call_in_package_code_is_internal(monkeypatch, capsys):
    """numpy's C code raising inside one of our functions: the innermost frame is ours but is not
    a raise of our checks, so it is an internal error (the rule of cli/main.py)."""
    namespace = {"np": np}
    source = "\n" * 40 + "def fail(self, deltas):\n    return np.minimum.reduce(np.array([]))\n"
    exec(compile(source, Accountant.__init__.__code__.co_filename, "exec"), namespace)
    monkeypatch.setattr(Accountant, "epsilon_rows", namespace["fail"])
    assert main(_account({})) == 1
    err = capsys.readouterr().err
    assert err.startswith("dpsampling account: internal error: ValueError: zero-size array") and err.count("\n") == 1


def test_debug_prints_the_traceback(monkeypatch, capsys):
    _fails_inside(monkeypatch, RuntimeError("boom"))
    assert main([*_account({}), "--debug"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):") and "RuntimeError: boom" in err
    assert err.splitlines()[-1] == ("dpsampling account: internal error: RuntimeError: boom (please report it with "
                                    "the command)")


def test_ctrl_c_is_one_line_exit_130_and_nothing_written(tmp_path):
    """SIGINT while compare --target-epsilon bisects (tens of seconds of work; sent after 6 s,
    well after start-up): one line on stderr, nothing on stdout, no file left."""
    process = subprocess.Popen([sys.executable, "-m", "dpsampling", "compare", "--dataset-size", "60000",
                                "--batch-size", "256", "--epochs", "20", "--delta", "1e-6", "--target-epsilon", "1",
                                "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    time.sleep(6)
    assert process.poll() is None, "the command ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130
    assert out == "" and err == "dpsampling compare: interrupted (Ctrl-C); nothing was written\n"
    assert list(tmp_path.iterdir()) == []
