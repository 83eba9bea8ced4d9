"""dpsampling account: the same numbers as the face, bit for bit, for every sampler and a schedule;
the run stated in full; the number to report; a --help that imports nothing heavy."""

import json
import signal
import subprocess
import sys

import pytest
from answer_schema import check_answer

from dpsampling import Accountant, Phase, load_schedule, statement
from dpsampling.cli.main import COMMANDS

# (CLI flags, the same run in Python, query flag, query values, Accountant keywords)
RUNS = {
    "deterministic": (["--sampler", "deterministic", "--sigma", "0.8", "--steps-per-epoch", "100", "--epochs", "3"],
                      Phase("deterministic", 0.8, steps_per_epoch=100, epochs=3), "--delta", [1e-5, 1e-6], {}),
    "shuffle": (["--sampler", "shuffle", "--sigma", "0.8", "--steps-per-epoch", "100", "--epochs", "1"],
                Phase("shuffle", 0.8, steps_per_epoch=100, epochs=1), "--epsilon", [0.5, 2.0], {}),
    "poisson": (["--sampler", "poisson", "--sigma", "0.9", "--sampling-rate", "0.01", "--steps", "1000"],
                Phase("poisson", 0.9, sampling_rate=0.01, steps=1000), "--delta", [1e-5], {}),
    "balls_and_bins": (["--sampler", "balls_and_bins", "--sigma", "1.0", "--steps-per-epoch", "50", "--epochs", "2"],
                       Phase("balls_and_bins", 1.0, steps_per_epoch=50, epochs=2), "--epsilon", [1.0], {}),
    "wor": (["--sampler", "wor", "--sigma", "1.5", "--dataset-size", "1000", "--batch-size", "10", "--epochs", "2",
             "--relation", "remove", "--refine", "relation"],
            Phase("wor", 1.5, dataset_size=1000, batch_size=10, epochs=2), "--delta", [1e-6],
            {"relation": "remove", "refine": "relation"}),
    "wor substitution": (["--sampler", "wor", "--sigma", "2.0", "--sampling-rate", "0.02", "--steps", "100",
                          "--relation", "substitution", "--accuracy", "0.05"],
                         Phase("wor", 2.0, sampling_rate=0.02, steps=100), "--delta", [1e-5],
                         {"relation": "substitution", "accuracy": 0.05}),
}


@pytest.mark.parametrize("name", RUNS)
def test_account_gives_the_faces_numbers_bit_for_bit(name, run_json, same_records):
    flags, phase, query, values, keywords = RUNS[name]
    document = run_json("account", *flags, query, *values)
    accountant = Accountant(phase, **keywords)
    frame = accountant.epsilon_bounds(values) if query == "--delta" else accountant.delta_bounds(values)
    assert same_records(document["rows"], frame)
    assert document["attrs"] == json.loads(json.dumps(frame.attrs))  # (tuples become lists)
    assert document["run"] == [phase.describe()]
    assert document["statement"] == statement(frame)


def test_account_of_a_schedule_is_the_faces_and_honours_the_relation(tmp_path, run_json, run, same_records):
    path = tmp_path / "run.yaml"
    path.write_text("phases:\n"
                    "  - {sampler: poisson, sigma: 0.8, steps: 200, sampling_rate: 4e-3}\n"
                    "  - {sampler: balls_and_bins, sigma: 1.0, steps_per_epoch: 20, epochs: 2}\n"
                    "  - {sampler: deterministic, sigma: 3.0, steps_per_epoch: 10, epochs: 1}\n")
    phases = load_schedule(path)
    for relation in ("add_or_remove", "add"):
        document = run_json("account", "--schedule", path, "--delta", "1e-5", "--relation", relation)
        frame = Accountant(phases, relation=relation).epsilon_bounds([1e-5])
        assert same_records(document["rows"], frame)
        assert document["attrs"]["headline"] == ("max" if relation == "add_or_remove" else "add")
        assert document["run"] == [p.describe() for p in phases]
        assert document["statement"] == statement(frame)
        assert "poisson then balls_and_bins then deterministic" in document["statement"]
    refused = run("account", "--schedule", path, "--delta", "1e-5", "--relation", "substitution")
    assert refused.code == 2 and refused.out == ""
    assert refused.err == ("dpsampling account: error: argument --relation: relation must be one of add, remove, "
                           "add_or_remove for sampler poisson; got 'substitution'\n")


def test_opacus_and_dp_accounting_vocabularies_describe_the_same_run(run_json):
    """n 60,000, b 256, 20 epochs (Opacus) is 4,700 steps at rate 256 / 60,000 (dp_accounting): the
    same bounds; --steps is the TOTAL, never steps per epoch."""
    by_epochs = run_json("account", "--sampler", "poisson", "--sigma", "1.1", "--dataset-size", "60000",
                         "--batch-size", "256", "--epochs", "20", "--delta", "1e-5", "--refine", "relation")
    by_steps = run_json("account", "--sampler", "poisson", "--sigma", "1.1", "--sampling-rate", repr(256 / 60000),
                        "--steps", "4700", "--delta", "1e-5", "--refine", "relation")
    assert by_epochs["rows"] == by_steps["rows"]
    assert by_epochs["attrs"]["phases"][0]["steps"] == by_steps["attrs"]["phases"][0]["steps"] == 4700
    assert by_epochs["attrs"]["phases"][0]["expected_batch_size"] == 256.0
    headline = next(r for r in by_steps["rows"] if r["direction"] == "max")
    assert 1.2 < headline["epsilon_lower"] <= headline["epsilon_upper"] < 1.4  # not 0.05 (issue 24: a default rate)


def test_the_table_states_the_run_in_full_and_ends_with_the_number_to_report(run):
    result = run("account", "--sampler", "poisson", "--sigma", "1.1", "--dataset-size", "60000", "--batch-size", "256",
                 "--epochs", "20", "--delta", "1e-5", "--refine", "relation")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == ("# run: poisson, sigma 1.1: 4,700 steps (20 epoch(s) of 235 steps) at sampling rate 0.00426667, "
                        "expected batch size 256 of 60,000 examples (20.05 expected passes over the data)")
    assert "remove_lower" in lines[2] and "max_upper" in lines[2]
    assert lines[-1].startswith("Report: (1.3") and "-DP under add-or-remove adjacency for poisson" in lines[-1]
    epochs = run("account", "--sampler", "balls_and_bins", "--sigma", "1", "--steps-per-epoch", "20", "--epochs",
                 "3", "--epsilon", "1")
    assert epochs.out.splitlines()[0] == "# run: balls_and_bins, sigma 1: 3 epoch(s) of 20 steps (60 steps)"
    assert epochs.out.splitlines()[-1].startswith("Report: (1, ") and "-DP under add-or-remove" in epochs.out


def test_a_delta_below_the_engines_proven_floor_is_one_line_naming_it(run):
    """A delta at or below what the engine charges to every delta of the run (its tails moved or
    cut and their rounding, ~1e-16 here) is refused in one line naming that floor and the run; a
    delta of 1e-15 is answered with a finite certified bracket."""
    args = ["account", "--sampler", "poisson", "--sigma", "1", "--sampling-rate", "0.01", "--steps", "1000"]
    refused = run(*args, "--delta", "1e-18", "--time-limit", "inf")  # engine 4 refines > 50 CPU s before refusing
    assert refused.code == 2 and refused.out == "" and refused.err.count("\n") == 1
    assert refused.err.startswith("dpsampling account: error: argument --delta: delta must be above the proven floor ")
    assert "poisson(sigma=1, 1000 steps)" in refused.err and refused.err.endswith("got 1e-18\n")
    answered = run(*args, "--delta", "1e-15", "--json")
    assert answered.code == 0
    rows = check_answer(json.loads(answered.out))["rows"]
    assert all(0 < r["epsilon_lower"] <= r["epsilon_upper"] < 100 for r in rows)


def test_help_lists_the_commands_without_importing_numpy():
    code = ("import sys\nfrom dpsampling.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit as e:\n    assert e.code == 0\n"
            "heavy = [m for m in ('numpy', 'pandas', 'numba', 'scipy', 'dp_accounting') if m in sys.modules]\n"
            "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "HEAVY []"
    for name in COMMANDS:
        assert f"  {name} " in out


def test_account_and_calibrate_import_neither_dp_accounting_nor_matplotlib():
    """dp-accounting is the reference (--method dp_accounting; declared with lazy_import, so its
    name may be registered, but nothing of it runs) and matplotlib draws compare's --plot: neither
    is loaded by the commands that do not use them."""
    code = ("import sys\nimport dpsampling.cli.account, dpsampling.cli.calibrate\n"
            "print('LOADED', sorted({m.split('.')[0] for m in sys.modules if m.startswith(('dp_accounting.', "
            "'matplotlib'))}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "LOADED []"


def test_an_account_query_imports_no_pandas_and_no_yaml_of_its_own():
    """Start-up (issue 32.7): a Poisson query, as a table and as JSON, answers from the face's
    LongRows (the same rows as its DataFrame) without importing pandas, and a schedule's yaml
    reader is imported for --schedule only (numba reads its own config with yaml; that stays)."""
    code = ("import sys, io, contextlib\nfrom dpsampling.cli.main import main\n"
            "argv = ['account', '--sampler', 'poisson', '--sigma', '1', '--sampling-rate', '0.01', '--steps', '10000',"
            " '--delta', '1e-5']\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(argv) == 0 and main([*argv, '--json']) == 0\n"
            "print('LOADED', sorted(m for m in sys.modules if m in ('pandas', 'dpsampling.accountants.schedule')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "LOADED []"


@pytest.mark.parametrize("entry", [["-m", "dpsampling"], ["-m", "dpsampling.cli"]])
def test_the_command_runs_as_a_module(entry):
    out = subprocess.run([sys.executable, *entry, "account", "--sampler", "deterministic", "--sigma", "1",
                          "--steps-per-epoch", "1", "--epsilon", "1", "--json"], capture_output=True, text=True, check=True).stdout
    assert check_answer(json.loads(out))["rows"][0]["delta_upper"] > 0


def test_account_help_and_top_level_errors(run):
    help_text = run("account", "--help")
    assert help_text.code == 0 and "examples:" in help_text.out and "--steps-per-epoch" in help_text.out
    assert run().err == ("dpsampling: error: a COMMAND is required, one of account, compare, calibrate, estimate, "
                         "report, audit\n")
    unknown = run("acount")
    assert unknown.code == 2 and "invalid choice: 'acount'" in unknown.err and unknown.err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["account", "--sampler", "poisson", "--sigma", "1", "--sampling-rate", "0.01", "--steps", "10", "--delta", "1e-5"],
    ["calibrate", "--sampler", "poisson", "--sampling-rate", "0.01", "--steps", "10", "--target-epsilon", "1",
     "--delta", "1e-5"],
], ids=["account", "calibrate"])
def test_flags_are_named_as_the_python_arguments_and_the_old_names_are_gone(run, argv):
    """--method is the face's method= (issue 45: it was --pld-method); account's Monte Carlo
    estimator, BallsBinsOptions(estimator=), is --estimator: one word, one meaning."""
    old = run(*argv, "--pld-method", "rdp")
    assert old.code == 2 and old.err.endswith("error: unrecognized arguments: --pld-method rdp\n")
    assert run(*argv, "--method", "rdp").code == 0
    if argv[0] == "account":
        estimator = run(*argv, "--method", "naive")
        assert estimator.code == 2 and "argument --method: invalid choice: 'naive'" in estimator.err
        assert "--estimator {naive,importance,order-stats,importance+order-stats}" in run(*argv[:1], "--help").out


def test_the_ctrl_c_handler_is_the_callers_again_after_a_command(run):
    """main() handles SIGINT while a command runs, and gives the handler back (it is called
    in-process by tests and by other programs)."""
    before = signal.getsignal(signal.SIGINT)
    assert run("account", "--sampler", "deterministic", "--sigma", "1", "--steps-per-epoch", "1", "--epsilon", "1").code == 0
    assert run("account", "--sampler", "deterministic", "--sigma", "-1", "--steps-per-epoch", "1", "--epsilon", "1").code == 2
    assert signal.getsignal(signal.SIGINT) is before
