"""Issue 33 (no silent wrong answer, round 2) on the command line: each case answers right or
refuses in one line (exit 2) before any work, a test per case. No randomness."""

import time

import pytest

from dpsampling import Accountant, Phase
from dpsampling.accountants.knobs import budget_left, calibrate_knob

E = "dpsampling account: error: "


def _one_line_refusal(result) -> str:
    assert result.code == 2 and result.out == "" and result.err.count("\n") == 1, result
    return result.err


def test_account_steps_alone_for_balls_and_bins_is_refused_with_both_ways(run):
    err = _one_line_refusal(run("account", "--sampler", "balls_and_bins", "--sigma", "1.1", "--steps", "4700",
                                "--delta", "1e-5"))
    assert err.startswith(E + "--steps alone does not describe a run of sampler balls_and_bins")
    assert "give --steps-per-epoch with --epochs (or with --steps), or --dataset-size and --batch-size" in err
    assert err.endswith("got --steps 4700 alone\n")


@pytest.mark.parametrize("sampler", ["deterministic", "shuffle"])
def test_calibrate_steps_alone_for_an_epoch_based_sampler_is_refused(run, sampler):
    err = _one_line_refusal(run("calibrate", "--sampler", sampler, "--steps", "4700", "--target-epsilon", "2",
                                "--delta", "1e-5"))
    assert f"--steps alone does not describe a run of sampler {sampler}" in err


def test_account_schedule_pointed_at_a_binary_is_one_line(run, tmp_path):
    binary = tmp_path / "tool"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe\x00")
    err = _one_line_refusal(run("account", "--schedule", binary, "--delta", "1e-5"))
    assert err == E + f"{binary}: not a text file (byte 7 is not UTF-8 text); a schedule file is a YAML text file\n"


def test_account_schedule_with_a_duplicated_phases_key_is_one_line(run, tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("phases:\n  - {sampler: poisson, sigma: 0.8, steps: 1000, sampling_rate: 0.01}\n"
                    "phases:\n  - {sampler: poisson, sigma: 5, steps: 1, sampling_rate: 0.01}\n")
    err = _one_line_refusal(run("account", "--schedule", path, "--delta", "1e-5"))
    assert "duplicate key 'phases' (lines 1 and 3; YAML would keep the last silently)" in err


COMPARE = ["compare", "--dataset-size", "1000", "--batch-size", "10", "--epochs", "1", "--delta", "1e-5", "--sigma",
           "1"]


def test_compare_plot_under_a_regular_file_is_refused_before_the_work(run, tmp_path):
    regular = tmp_path / "notes.txt"
    regular.write_text("x")
    start = time.monotonic()
    err = _one_line_refusal(run(*COMPARE, "--plot", regular / "eps.png"))
    assert f"--plot must be in a folder; got '{regular / 'eps.png'}' ({regular} is a file, not a folder)" in err
    assert time.monotonic() - start < 5.0  # refused before any sampler is accounted


def test_compare_plot_into_a_folder_that_cannot_be_written_is_refused_before_the_work(run):
    err = _one_line_refusal(run(*COMPARE, "--plot", "/proc/eps.png"))
    assert "--plot must be a file in a writable folder; got '/proc/eps.png' (/proc: cannot create a file there" in err


def test_compare_without_sampler_reports_no_single_sampler_sentence(run):
    result = run(*COMPARE)
    assert result.code == 0
    lines = result.out.splitlines()
    assert not any(line.startswith("Report:") for line in lines)
    reports = [line for line in lines if line.startswith("  ") and ": Report: " in line]
    assert [line.split(":")[0].strip() for line in reports] == ["deterministic", "shuffle", "poisson",
                                                                 "balls_and_bins", "wor"]
    sigmas = run("compare", *COMPARE[1:9], "--target-epsilon", "4")
    assert sigmas.code == 0 and "Report:" not in sigmas.out and sigmas.out.splitlines()[-1].startswith(
        "Number to report: --sampler")


def test_account_substitution_header_names_the_substitution_curve(run):
    result = run("account", "--sampler", "wor", "--sigma", "2", "--sampling-rate", "0.01", "--steps", "100",
                 "--relation", "substitution", "--accuracy", "0.2", "--delta", "1e-5")
    assert result.code == 0
    assert "# relation substitution: lower/upper are the substitution curve" in result.out
    assert "maximum of the remove and add" not in result.out


def test_account_pathological_poisson_refuses_at_its_time_limit(run):
    """sigma 0.05 at rate 0.5 (T 1,000 to 100,000) ran for 19 minutes and more before engine 4 (about
    a minute now); --time-limit stops the query (the default, 50 s, keeps the answer or refusal
    within a minute of work: tests/accountants/test_limits.py)."""
    start = time.monotonic()
    result = run("account", "--sampler", "poisson", "--sigma", "0.05", "--sampling-rate", "0.5",
                 "--steps", "100000", "--delta", "1e-5", "--time-limit", "2")
    assert time.monotonic() - start < 20.0
    # its own exit status and words (issue 42): not an error of --time-limit, nor bad input
    assert result.code == 3 and result.out == "" and result.err.count("\n") == 1, result
    err = result.err
    assert err.startswith("dpsampling account: stopped: the query took longer than the time limit of 2 s "
                          "(--time-limit 2), CPU and wall-clock time, so it has no answer; stopped before the "
                          "epsilon query of poisson, sigma 0.05: 100,000 steps at sampling rate 0.5")
    assert "raise it to let the work run longer (--time-limit S, 'inf': none" in err


def test_calibrate_knob_and_budget_left_are_pythons(run_json):
    run_flags = ["--sampler", "poisson", "--sigma", "1.1", "--sampling-rate", "0.01", "--steps", "500",
                 "--target-epsilon", "2", "--delta", "1e-5"]
    phase = Phase("poisson", 1.1, sampling_rate=0.01, steps=500)
    (knob,) = run_json("calibrate", "--knob", "steps", *run_flags)["rows"]
    python = calibrate_knob(phase, "steps", 2.0, 1e-5)
    assert (knob["value_sufficient"], knob["value_not_shown_sufficient"]) == (python.value, python.value_not_shown)
    assert knob["epsilon_upper"] == Accountant(python.phases).get_epsilon(1e-5) <= 2.0
    (budget,) = run_json("calibrate", "--budget-left", *run_flags)["rows"]
    assert budget["more"] == budget_left(phase, 2.0, 1e-5).more == python.value - 500


def test_report_output_under_a_regular_file_is_refused_before_the_work(run, tmp_path):
    regular = tmp_path / "results"
    regular.write_text("not a folder")
    result = run("report", "--directory", tmp_path, "--output", "results/REPORT.md")
    assert result.code == 2 and result.err == (f"dpsampling report: error: --output must be in a folder; got "
                                               f"'{regular / 'REPORT.md'}' ({regular} is a file, not a folder)\n")
