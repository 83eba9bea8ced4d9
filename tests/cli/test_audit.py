"""``dpsampling audit``: the loader from MODULE:FUNCTION, the verdict, the accountant check, the
same numbers as Python's ``check_accountant``, and one-line refusals naming the flag."""

import pytest

from dpsampling import Phase, audit
from dpsampling.auditing import check_accountant
from dpsampling.batches import BatchSampler

MODULE = """
from dpsampling.batches import BatchSampler
def shuffled():
    return BatchSampler("shuffle", 6000, 64, epochs=3, seed=3)
def history():
    return [(1.1, 1 / 94, 376)]
def data():
    return [[0.5, 1.5]]
def text():
    return "an accountant"
def failing():
    return Failing()
class Failing:
    def __iter__(self):
        yield [1, 2]
        raise KeyError("their bug")
class Answers:
    history = [(1.1, 1 / 94, 376)]
    def get_epsilon(self, delta):
        return "1.2"
def answers():
    return Answers()
def negative():
    return [[0, -3], [1, 2]] * 3
"""


@pytest.fixture()
def here(tmp_path, monkeypatch):
    (tmp_path / "myloaders.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_the_verdict_and_the_check_are_python_s(here, run_json):
    document = run_json("audit", "myloaders:shuffled", "--accountant", "myloaders:history", "--delta", "1e-5")
    verdict = audit(BatchSampler("shuffle", 6000, 64, epochs=3, seed=3))
    check = check_accountant(verdict, [(1.1, 1 / 94, 376)], 1e-5)
    assert document["attrs"]["verdict"]["sampler"] == "shuffle" and document["attrs"]["verdict"]["matches"] is True
    assert document["statement"] == check.sentence and "your loader shuffles" in check.sentence
    rows = [r for r in document["rows"] if r["run"] == "loader"]
    expected = check.frame[check.frame["run"] == "loader"]
    assert [r["epsilon_upper"] for r in rows] == expected["epsilon_upper"].tolist()


def test_flags_describe_the_assumed_run(here, run):
    result = run("audit", "myloaders:shuffled", "--assumed", "poisson", "--sigma", "1.1", "--sampling-rate",
                 str(1 / 94), "--steps", "376", "--delta", "1e-5")
    check = check_accountant(audit(BatchSampler("shuffle", 6000, 64, epochs=3, seed=3)),
                             Phase("poisson", 1.1, sampling_rate=1 / 94, steps=376), 1e-5)
    assert result.code == 0 and result.out.splitlines()[-1] == check.sentence


@pytest.mark.parametrize("argv, message", [
    (["myloaders:nothing"], "argument LOADER: loader must name an importable function; got 'myloaders:nothing'"),
    (["myloaders"], "argument LOADER: loader must be MODULE:FUNCTION; got 'myloaders'"),
    (["myloaders:data"], "argument LOADER: loader must yield 1-D batches of integer example indices"),
    (["myloaders:shuffled", "--sigma", "1"], "argument --assumed: sampler (with sigma and steps) describes"),
    (["myloaders:shuffled", "--accountant", "myloaders:history"], "argument --delta: delta must be given for the accountant check"),
    (["myloaders:shuffled", "--alpha", "2"], "argument --alpha: alpha must be in the open interval (0, 1); got 2.0"),
    # issue 42: the user's objects and code, refused as theirs (never "internal error ... please report it")
    (["myloaders:shuffled", "--accountant", "myloaders:text", "--delta", "1e-5"],
     "argument --accountant: accountant must be a Phase, an Opacus PrivacyEngine or accountant"),
    (["myloaders:shuffled", "--accountant", "myloaders:answers", "--delta", "1e-5"],
     "argument --accountant: accountant must return a number >= 0 from get_epsilon(1e-05); got str '1.2'"),
    (["myloaders:failing"], "argument LOADER: loader raised KeyError: 'their bug' (in your code, myloaders.py:"),
    (["myloaders:negative", "--steps-per-epoch", "2"],
     "argument LOADER: loader must yield example indices >= 0; got -3 in batch 0 of epoch 0"),
])
def test_refusals_are_one_line_naming_the_flag(here, run, argv, message):
    result = run("audit", *argv)
    assert result.code == 2 and result.out == "" and len(result.err.splitlines()) == 1
    assert result.err.startswith(f"dpsampling audit: error: {message}"), result.err
