"""Issue 42: no bad number is an internal error. Every numeric option of every command, given 0, a
negative, nan, inf, 1e300, 1e-300 or a huge integer, answers (exit 0, a valid bracket), refuses
(exit 2, one line on stderr) or is stopped at its time limit (exit 3, one line); never exit 1 or a
traceback. The same over the Python face and the adapters: a ValueError whose message starts with
the argument's name."""

from __future__ import annotations

import contextlib
import io
import json
import math

import pytest
from answer_schema import check_answer
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsampling import Accountant, Phase
from dpsampling.cli.main import main
from dpsampling.integrations.opacus import accountant_class

BAD = ["0", "-1", "nan", "inf", "-inf", "1e300", "1e-300", "-1e-5", "99999999999999999999999", "1e400"]
LOADERS = """
from dpsampling.batches import BatchSampler
def shuffled():
    return BatchSampler("shuffle", 600, 20, epochs=3, seed=3)
"""
COMMANDS = {  # a run that answers within a second, and its numeric options
    "account": (["account", "--sampler", "poisson", "--sigma", "1", "--sampling-rate", "0.01", "--steps", "10",
                 "--delta", "1e-5"],
                ["--sigma", "--sampling-rate", "--steps", "--delta", "--accuracy", "--time-limit",
                 "--max-grid-points"]),
    "account-sizes": (["account", "--sampler", "wor", "--sigma", "1", "--dataset-size", "1000", "--batch-size", "10",
                       "--epochs", "1", "--epsilon", "1"],
                      ["--dataset-size", "--batch-size", "--epochs", "--epsilon", "--steps-per-epoch"]),
    "account-epochs": (["account", "--sampler", "deterministic", "--sigma", "1", "--steps-per-epoch", "10",
                        "--epochs", "2", "--delta", "1e-5"],
                       ["--steps-per-epoch", "--epochs", "--sigma"]),
    "compare": (["compare", "--dataset-size", "100", "--batch-size", "10", "--epochs", "1", "--sigma", "1",
                 "--delta", "1e-5"],
                ["--dataset-size", "--batch-size", "--epochs", "--sigma", "--delta", "--accuracy"]),
    "calibrate": (["calibrate", "--sampler", "deterministic", "--steps-per-epoch", "10", "--epochs", "1",
                   "--target-epsilon", "5", "--delta", "1e-5"],
                  ["--target-epsilon", "--delta", "--rtol", "--steps-per-epoch", "--epochs", "--accuracy"]),
    "audit": (["audit", "loaders:shuffled", "--assumed", "poisson", "--sigma", "1", "--sampling-rate", "0.03",
               "--steps", "90", "--delta", "1e-5"],
              ["--epochs", "--seed", "--alpha", "--sigma", "--sampling-rate", "--steps", "--delta", "--dataset-size",
               "--steps-per-epoch"]),
}
CASES = [(name, option) for name, (_, options) in COMMANDS.items() for option in options]


@pytest.fixture(scope="module", autouse=True)
def loaders(tmp_path_factory):
    folder = tmp_path_factory.mktemp("loaders")
    (folder / "loaders.py").write_text(LOADERS)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.syspath_prepend(str(folder))
        yield


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_info:
            code = exit_info.code
    return code, out.getvalue(), err.getvalue()


def _brackets_are_valid(document: dict) -> None:
    """Every bounds row of a valid answer (``check_answer``) brackets: 0 <= lower <= upper."""
    for row in document["rows"] if check_answer(document)["kind"] in ("bounds", "audit") else ():
        for quantity in ("epsilon", "delta"):
            if f"{quantity}_upper" in row:
                lower, upper = row[f"{quantity}_lower"], row[f"{quantity}_upper"]
                assert lower is not None and upper is not None and 0 <= lower <= upper, row


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.sampled_from(CASES), st.sampled_from(BAD))
def test_every_numeric_option_of_every_command_answers_or_refuses_in_one_line(case, value):
    name, option = case
    argv = list(COMMANDS[name][0])
    if option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv += [option, value]
    code, out, err = _run([*argv, "--json", "--time-limit", "20"] if name != "audit" else [*argv, "--json"])
    assert code in (0, 2, 3), f"{argv}: exit {code}\n{err}"
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 0:
        _brackets_are_valid(json.loads(out))
    else:
        assert out == "" and err.count("\n") == 1, f"{argv}: {err!r}"
        assert err.startswith(f"dpsampling {argv[0]}: {'error' if code == 2 else 'stopped'}: "), err


NUMBERS = st.sampled_from([0, -1, -1e-5, math.nan, math.inf, -math.inf, 1e300, 1e-300, 10**23, 10**400, "1", None])
KEYWORDS = st.sampled_from(["sigma", "steps", "epochs", "steps_per_epoch", "sampling_rate", "dataset_size",
                            "batch_size"])
GOOD = {"sigma": 1.0, "sampling_rate": 0.01, "steps": 10}


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.sampled_from(["poisson", "wor", "deterministic", "shuffle", "balls_and_bins"]), KEYWORDS, NUMBERS)
def test_the_python_face_refuses_a_bad_number_naming_the_argument(sampler, keyword, value):
    keywords = {"sampling_rate": 0.01, "steps": 10} if sampler in ("poisson", "wor") else \
        {"steps_per_epoch": 10, "epochs": 1}
    keywords = {k: v for k, v in keywords.items() if k != keyword}
    sigma = value if keyword == "sigma" else 1.0
    if keyword != "sigma":
        keywords[keyword] = value
    try:
        phase = Phase(sampler, sigma, **keywords)
    except ValueError as error:
        assert str(error).split(" ", 1)[0] in (*GOOD, *keywords, "sigma", "--steps", "steps_per_epoch",
                                                "sampling_rate", "batch_size", "dataset_size", "epochs"), error
        return
    bounds = Accountant(phase).epsilon_rows([1e-5]).columns
    assert (0 <= bounds["epsilon_lower"]).all() and (bounds["epsilon_lower"] <= bounds["epsilon_upper"]).all()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(NUMBERS, st.sampled_from(["delta", "epsilon", "noise_multiplier", "sample_rate"]))
def test_the_adapters_refuse_a_bad_number_naming_the_argument(value, argument):
    accountant = accountant_class()()
    if argument in ("noise_multiplier", "sample_rate"):
        step = {"noise_multiplier": 1.0, "sample_rate": 0.01, argument: value}
        call, names = (lambda: accountant.step(**step)), (argument,)
    elif argument == "delta":
        accountant.step(noise_multiplier=1.0, sample_rate=0.01)
        call, names = (lambda: accountant.get_epsilon(value)), ("delta",)
    else:
        from dpsampling.integrations.dp_accounting import CertifiedAccountant

        call, names = (lambda: CertifiedAccountant().get_delta(value)), ("target_epsilon",)
    try:
        answer = call()
    except ValueError as error:
        assert str(error).split(" ", 1)[0] in names, error
        return
    assert answer is None or (isinstance(answer, float) and answer >= 0)
