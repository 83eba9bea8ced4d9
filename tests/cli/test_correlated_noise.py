"""``--coefficients`` (correlated noise, issue 44) on ``dpsampling account``: the face's answer bit for
bit, certified where a reduction holds, Monte Carlo only when asked for and labelled so, and
one-line refusals (exit 2, nothing on stdout)."""

import pytest

from dpsampling import Accountant, Phase

BANDED = ["--sampler", "balls_and_bins", "--sigma", "1", "--steps-per-epoch", "5", "--epochs", "2"]


def test_coefficients_one_is_todays_json_answer(run_json):
    poisson = ["--sampler", "poisson", "--sigma", "1.2", "--sampling-rate", "0.01", "--steps", "200", "--delta", "1e-5"]
    ours, today = run_json("account", *poisson, "--coefficients", "1"), run_json("account", *poisson)
    assert ours["rows"] == today["rows"] and ours["attrs"]["phases"] == today["attrs"]["phases"]


def test_a_certified_reduction_is_answered_by_the_engine(run_json, same_records):
    document = run_json("account", "--sampler", "poisson", "--sigma", "2.4", "--sampling-rate", "0.01", "--steps",
                        "200", "--coefficients", "2", "--delta", "1e-5")
    face = Accountant(Phase("poisson", 2.4, sampling_rate=0.01, steps=200, coefficients=[2.0])).epsilon_bounds([1e-5])
    assert same_records(document["rows"], face)
    assert document["attrs"]["method"] == "certified" and document["attrs"]["certified_reduction"][0]["sigma"] == 1.2
    assert "certified upper bound" in document["statement"]


def test_the_monte_carlo_answer_is_the_faces_and_says_it_is_not_certified(tmp_path, run_json, same_records):
    path = tmp_path / "c.txt"
    path.write_text("1 0.5\n0.25\n")
    document = run_json("account", *BANDED, "--coefficients", f"@{path}", "--epsilon", "1", "--samples", "3000",
                        "--seed", "4", "--error-prob", "0.01")
    phase = Phase("balls_and_bins", 1.0, steps_per_epoch=5, epochs=2, coefficients=[1, 0.5, 0.25])
    face = Accountant(phase, method="monte_carlo", samples=3000, seed=4, error_prob=0.01).delta_bounds([1.0])
    assert same_records(document["rows"], face)
    assert document["attrs"]["method"] == "monte_carlo"
    assert document["attrs"]["phases"][0]["coefficients"] == [1.0, 0.5, 0.25]
    assert "certified upper bound" not in document["statement"]
    assert "probability >= 1 - 0.02 (not certified)" in document["statement"]


def test_the_monte_carlo_text_answer_says_its_confidence_in_words(run):
    result = run("account", *BANDED, "--coefficients", "1,0.5", "--delta", "0.05", "--samples", "2000")
    assert result.code == 0, result.err
    assert "method monte_carlo" in result.out and "holding with probability >= 1 - 0.002 (not certified)" in result.out


@pytest.mark.parametrize(("extra", "message"), [
    (["--coefficients", "1,0.5", "--epsilon", "1"], "there is no certified bound for this run"),
    (["--coefficients", "1,0.5", "--epsilon", "1", "--samples", "100", "--orders", "1..5"], "--orders does not apply"),
    (["--coefficients", "1,0.5", "--epsilon", "1", "--samples", "100", "--method", "rdp"],
     "--method does not apply"),
    (["--coefficients", "1,x", "--epsilon", "1"], "--coefficients must be numbers"),
    (["--coefficients", "@/nonexistent/c.txt", "--epsilon", "1"], "--coefficients @FILE must name a readable file"),
    (["--coefficients", "1,-0.5", "--epsilon", "1"], "coefficients must be a non-empty 1-d list of finite non-negative"),
    (["--coefficients", "1,0.5", "--epsilon", "1", "--samples", "0"], "samples must be"),
    (["--coefficients", "1,0.5,0.25,0.1,0.1,0.1", "--epsilon", "1", "--samples", "100"],
     "argument --coefficients: coefficients [1.0, 0.5, 0.25, 0.1, 0.1, 0.1] have neither a certified bound nor a Monte "
     "Carlo here for balls_and_bins"),
])
def test_bad_correlated_runs_are_refused_in_one_line(run, extra, message):
    result = run("account", *BANDED, *extra)
    assert result.code == 2 and result.out == ""
    assert message in result.err and len(result.err.strip().splitlines()) == 1, result.err


def test_coefficients_are_refused_for_a_sampler_without_correlated_noise_and_beside_a_schedule(run, tmp_path):
    result = run("account", "--sampler", "shuffle", "--sigma", "1", "--steps-per-epoch", "5", "--epochs", "1",
                 "--coefficients", "1,0.5", "--epsilon", "1")
    assert result.code == 2 and "coefficients must be [1] (DP-SGD) for sampler shuffle" in result.err
    path = tmp_path / "run.yaml"
    path.write_text("phases:\n  - {sampler: poisson, sigma: 1.0, steps: 100, sampling_rate: 0.01}\n")
    result = run("account", "--schedule", path, "--coefficients", "1,0.5", "--epsilon", "1")
    assert result.code == 2 and "got --coefficients too" in result.err


def test_calibrate_refuses_without_monte_carlo_flags_and_labels_its_monte_carlo_answer(run, run_json):
    calibrate = ["calibrate", "--sampler", "balls_and_bins", "--steps-per-epoch", "5", "--epochs", "2",
                 "--coefficients", "1,0.5", "--target-epsilon", "2", "--delta", "0.01", "--rtol", "0.02"]
    result = run(*calibrate)
    assert result.code == 2 and result.out == "" and "there is no certified bound for this run" in result.err
    document = run_json(*calibrate, "--samples", "2000", "--seed", "1")
    row = document["rows"][0]
    assert row["method"] == "monte_carlo" and row["sigma_shown_insufficient"] is None
    assert "not certified" in document["attrs"]["method_label"]
    result = run("calibrate", "--sampler", "poisson", "--sampling-rate", "0.01", "--steps", "100", "--target-epsilon",
                 "1", "--delta", "1e-5", "--samples", "100")
    assert result.code == 2 and "--samples applies to correlated noise" in result.err


def test_calibrate_of_a_certified_reduction_is_certified(run_json):
    common = ["calibrate", "--sampler", "poisson", "--sampling-rate", "0.01", "--steps", "100", "--target-epsilon", "1",
              "--delta", "1e-5"]
    correlated, plain = run_json(*common, "--coefficients", "2"), run_json(*common)
    assert correlated["rows"][0]["method"] == "certified"
    assert correlated["rows"][0]["sigma_sufficient"] == 2 * plain["rows"][0]["sigma_sufficient"]


def test_the_correlated_noise_samplers_are_sampler_choices(run_json, same_records):
    """``--sampler cyclic_poisson`` with ``--coefficients``: the face's certified answer (bands <= k);
    ``--sampler b_min_sep`` with ``--min-separation``, ``--warm-start``: the face's Monte Carlo."""
    cyclic = run_json("account", "--sampler", "cyclic_poisson", "--sigma", "2", "--sampling-rate", "0.1",
                      "--steps-per-epoch", "2", "--epochs", "15", "--coefficients", "1,0.5", "--delta", "1e-5")
    phase = Phase("cyclic_poisson", 2.0, sampling_rate=0.1, steps_per_epoch=2, epochs=15, coefficients=[1, 0.5])
    assert same_records(cyclic["rows"], Accountant(phase).epsilon_bounds([1e-5]))
    assert cyclic["attrs"]["method"] == "certified" and cyclic["attrs"]["certified_reduction"][0]["steps"] == 15
    separated = run_json("account", "--sampler", "b_min_sep", "--sigma", "1.2", "--sampling-rate", "0.2", "--steps",
                         "20", "--min-separation", "2", "--warm-start", "--epsilon", "1", "--samples", "2000",
                         "--seed", "5")
    phase = Phase("b_min_sep", 1.2, sampling_rate=0.2, steps=20, min_separation=2, warm_start=True)
    face = Accountant(phase, method="monte_carlo", samples=2000, seed=5).delta_bounds([1.0])
    assert same_records(separated["rows"], face)
    assert separated["inputs"]["min_separation"] == 2 and separated["inputs"]["warm_start"] is True
    assert separated["attrs"]["phases"][0]["warm_start"] is True


def test_a_separation_flag_for_another_sampler_is_refused_in_one_line(run):
    result = run("account", "--sampler", "poisson", "--sigma", "1", "--sampling-rate", "0.1", "--steps", "10",
                 "--min-separation", "2", "--delta", "1e-5")
    assert result.code == 2 and result.out == "" and len(result.err.strip().splitlines()) == 1
    assert "argument --min-separation: min_separation applies to sampler b_min_sep only; got 2" in result.err
