"""dpsampling compare and calibrate: the face's numbers bit for bit, one calibration (calibrate,
compare --target-epsilon and calibrate_sigma give the same sigma), its three words, the number to
report, and a --plot written whole or not at all."""

import pytest

from dpsampling import Accountant, Phase, calibrate_sigma, compare_epsilons, compare_sigmas, statement
from dpsampling.accountants import printed

RUN = ["--dataset-size", "2000", "--batch-size", "100", "--epochs", "2", "--delta", "1e-5"]
KEYWORDS = {"dataset_size": 2000, "batch_size": 100, "epochs": 2}


def test_compare_gives_the_faces_bounds_and_the_number_to_report_for_the_chosen_sampler(run_json, run, same_records):
    document = run_json("compare", *RUN, "--sigma", "1.0", "--sampler", "shuffle")
    frame = compare_epsilons(1.0, 1e-5, **KEYWORDS)
    assert same_records(document["rows"], frame)
    assert document["inputs"]["sampler"] == "shuffle"
    assert document["statement"] == statement(frame, sampler="shuffle")
    assert "shuffle has no certified bound of its own" in document["statement"]
    assert set(document["attrs"]["statements"]) == {"deterministic", "shuffle", "poisson", "balls_and_bins", "wor"}
    table = run("compare", *RUN, "--sigma", "1.0")
    assert table.code == 0
    lines = table.out.splitlines()
    # without --sampler: no single sentence to paste, one per sampler, each led by its name
    samplers = list(dict.fromkeys(frame["sampler"]))
    assert lines[-len(samplers) - 1].startswith("Number to report, per sampler")
    assert lines[-len(samplers):] == [f"  {name}: {statement(frame, sampler=name)}" for name in samplers]
    assert not any(line.startswith("Report:") for line in lines)
    for row in frame[frame["direction"] == "max"].itertuples():
        line = next(line for line in lines if line.startswith(row.sampler + " "))
        assert printed.upper(row.epsilon_upper) in line and ("tight" if row.tight_pair else "bracket") in line
        assert ("yes" if row.converged else "no") in line.split()


@pytest.mark.parametrize("sampler", ["poisson", "balls_and_bins"])
def test_one_calibration_calibrate_compare_and_python_give_the_same_sigma(sampler, run_json):
    target = ["--target-epsilon", "4", "--delta", "1e-5"]
    run_flags = ["--dataset-size", "2000", "--batch-size", "100", "--epochs", "2"]
    calibrated = run_json("calibrate", "--sampler", sampler, *run_flags, *target, "--rtol", "0.01")["rows"][0]
    compared = run_json("compare", *run_flags, *target, "--rtol", "0.01", "--sampler", sampler)
    python = calibrate_sigma(Phase(sampler, 1.0, **KEYWORDS), 4.0, 1e-5, rtol=0.01)
    row = next(r for r in compared["rows"] if r["sampler"] == sampler)
    assert calibrated["sigma_sufficient"] == row["sigma_sufficient"] == python.sigma
    assert calibrated["sigma_not_shown_sufficient"] == row["sigma_not_shown_sufficient"] == \
        python.sigma_not_shown_sufficient
    assert calibrated["sigma_shown_insufficient"] == row["sigma_shown_insufficient"] == python.sigma_shown_insufficient
    assert calibrated["epsilon_upper"] == row["epsilon_upper"] == python.epsilon_upper <= 4.0
    assert compared["attrs"]["words"] == {"sigma_sufficient": "shown sufficient",
                                                         "sigma_not_shown_sufficient": "not shown sufficient",
                                                         "sigma_shown_insufficient": "shown insufficient"}
    # the sentence is read at the sigma shown sufficient: its eps is the calibration's
    assert Phase(sampler, python.sigma, **KEYWORDS).describe() in compared["run"]
    assert compared["statement"].startswith(f"Report: ({printed.upper(python.epsilon_upper, 4)}, 1e-05)-DP")
    frame = compare_sigmas(4.0, 1e-5, rtol=0.01, samplers=(sampler,), **KEYWORDS)
    assert frame["sigma_sufficient"].iloc[0] == python.sigma


def test_calibrate_says_shown_sufficient_not_shown_sufficient_and_shown_insufficient(run):
    result = run("calibrate", "--sampler", "shuffle", "--steps-per-epoch", "50", "--epochs", "1",
                 "--target-epsilon", "1", "--delta", "1e-5", "--rtol", "0.02")
    assert result.code == 0
    python = calibrate_sigma(Phase("shuffle", 1.0, steps_per_epoch=50, epochs=1), 1.0, 1e-5, rtol=0.02)
    lines = result.out.splitlines()
    assert lines[2].startswith(f"sigma = {python.sigma:.6g}  shown sufficient")
    assert lines[3].startswith(f"sigma = {python.sigma_not_shown_sufficient:.6g}  not shown sufficient")
    assert lines[4].startswith(f"sigma = {python.sigma_shown_insufficient:.6g}  shown insufficient")
    # shuffle's bracket is loose: its lower bound rules out much less than its upper bound certifies
    assert python.sigma_shown_insufficient < 0.9 * python.sigma
    assert "insufficient" not in lines[3].replace("not shown sufficient", "")


def test_calibrate_a_schedule_scales_every_phase(tmp_path, run_json):
    path = tmp_path / "run.yaml"
    path.write_text("phases:\n  - {sampler: poisson, sigma: 1.0, steps: 100, sampling_rate: 0.01}\n"
                    "  - {sampler: deterministic, sigma: 2.0, steps_per_epoch: 5, epochs: 1}\n")
    document = run_json("calibrate", "--schedule", path, "--target-epsilon", "3", "--delta", "1e-5")
    phases = (Phase("poisson", 1.0, steps=100, sampling_rate=0.01), Phase("deterministic", 2.0, steps_per_epoch=5, epochs=1))
    python = calibrate_sigma(phases, 3.0, 1e-5)
    row = document["rows"][0]
    assert row["scale"] == python.scale and row["sigma_sufficient"] is None and row["sampler"] == "poisson + deterministic"
    assert document["run"] == [p.describe() for p in python.phases]
    assert Accountant(python.phases).get_epsilon(1e-5) <= 3.0


def test_compare_plot_is_written_whole(tmp_path, run):
    path = tmp_path / "eps.png"
    result = run("compare", *RUN, "--sigma", "1.0", "--plot", path)
    assert result.code == 0 and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eps.png"]  # no temporary file left


@pytest.mark.parametrize("argv, message", [
    (["--dataset-size", "0", "--batch-size", "1", "--epochs", "1", "--delta", "1e-5", "--sigma", "1"],
     "argument --dataset-size: dataset_size must be an integer >= 1; got 0"),
    (["--dataset-size", "10", "--batch-size", "20", "--epochs", "1", "--delta", "1e-5", "--sigma", "1"],
     "argument --batch-size: batch_size must be in [1, dataset_size = 10]; got 20"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "0", "--delta", "1e-5", "--sigma", "1"],
     "argument --epochs: epochs must be an integer >= 1; got 0"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--steps", "5", "--delta", "1e-5", "--sigma", "1"],
     "argument --steps: steps must not be given with epochs"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1", "--sigma", "1"],
     "argument --delta: delta must be in the open interval (0, 1); got 1.0"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5"],
     "one of the arguments --sigma --target-epsilon is required"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5", "--sigma", "1", "--rtol", "0.1"],
     "--rtol applies to --target-epsilon"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5", "--target-epsilon", "1",
      "--plot", "eps.png"], "--plot applies to --sigma"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5", "--sigma", "1",
      "--plot", "/nonexistent-folder/eps.png"], "--plot must be in an existing folder"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5", "--sigma", "1",
      "--plot", "eps.svg"], "--plot must end in .png or .pdf; got 'eps.svg'"),
    (["--dataset-size", "10", "--batch-size", "2", "--epochs", "1", "--delta", "1e-5", "--sigma", "1",
      "--relation", "substitution"], "argument --relation: invalid choice: 'substitution'"),
])
def test_compare_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, monkeypatch, run, argv, message):
    monkeypatch.chdir(tmp_path)
    result = run("compare", *argv)
    assert result.code == 2 and result.out == "" and result.err.count("\n") == 1, result.err
    assert result.err.startswith("dpsampling compare: error: ") and message in result.err
    assert list(tmp_path.iterdir()) == []


def test_calibrate_refusals(run):
    base = ["calibrate", "--target-epsilon", "1", "--delta", "1e-5"]
    cases = [
        (["--sampler", "wor", "--steps", "10"], "argument --sampling-rate: sampling_rate must be given for sampler wor"),
        (["--sampler", "deterministic", "--steps-per-epoch", "10", "--max-grid-points", "1000"],
         "--max-grid-points applies where the certified engine refines a grid"),
        (["--sampler", "poisson", "--sampling-rate", "0.1", "--steps", "10", "--target-epsilon", "-1"],
         "argument --target-epsilon: target_epsilon must be positive and finite; got -1.0"),
        (["--sampler", "poisson", "--sampling-rate", "0.1", "--steps", "10", "--rtol", "2"],
         "argument --rtol: rtol must be in the open interval (0, 1); got 2.0"),
    ]
    for argv, message in cases:
        result = run(*base, *argv)
        assert result.code == 2 and result.out == "" and result.err.count("\n") == 1, result.err
        assert message in result.err, result.err
