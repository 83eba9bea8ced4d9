"""Issue 42: inputs that gave a silent wrong answer or an internal error (exit 1, "please report
it") are one-line refusals naming the value (exit 2); a time-out has its own exit status (3)."""

from __future__ import annotations

import pytest

from dpsampling import Accountant, Phase
from dpsampling.integrations.opacus import accountant_class

POISSON = ["account", "--sampler", "poisson", "--sigma", "1", "--sampling-rate", "0.01", "--steps", "10",
           "--delta", "1e-5"]
MONTE_CARLO = ["account", "--sampler", "balls_and_bins", "--sigma", "1", "--steps-per-epoch", "10", "--epochs", "1",
               "--delta", "1e-5", "--estimator", "naive"]


def _one_line(result, start: str) -> None:
    assert result.code == 2 and result.out == "" and result.err.count("\n") == 1, result
    assert result.err.startswith(start), result.err


@pytest.mark.parametrize("sampler", ["poisson", "balls_and_bins"])
def test_steps_per_epoch_that_contradicts_the_sizes_is_refused_not_taken_issue_42_3(run, sampler):
    result = run("account", "--sampler", sampler, "--sigma", "1.1", "--dataset-size", "60000", "--batch-size", "256",
                 "--steps-per-epoch", "100", "--epochs", "2", "--delta", "1e-5")
    _one_line(result, "dpsampling account: error: argument --steps-per-epoch: steps_per_epoch must equal "
                      "ceil(dataset_size / batch_size) = 235 when both are given")
    with pytest.raises(ValueError, match="^steps_per_epoch must equal ceil"):
        Phase(sampler, 1.1, dataset_size=60000, batch_size=256, steps_per_epoch=100, epochs=2)
    # the sizes and a T that agrees with them stay one run
    agreeing = Phase(sampler, 1.1, dataset_size=60000, batch_size=256, steps_per_epoch=235, epochs=2)
    assert agreeing == Phase(sampler, 1.1, dataset_size=60000, batch_size=256, epochs=2)


@pytest.mark.parametrize("argv, start", [
    ([*POISSON[:4], "1e300", *POISSON[5:]], "argument --sigma: sigma must be at most 10000"),
    ([*POISSON[:6], "1e-300", *POISSON[7:]], "argument --sampling-rate: sampling_rate must be at least 1e-100"),
    ([*POISSON[:-1], "-1e-5"], "argument --delta: delta must be in the open interval (0, 1); got -1e-05"),
    ([*MONTE_CARLO, "--samples", "0"], "argument --samples: samples must be an integer >= 1; got 0"),
    ([*MONTE_CARLO, "--error-prob", "0"], "argument --error-prob: error_prob must be in the open interval (0, 1)"),
    (["account", "--sampler", "poisson", "--sigma", "1", "--dataset-size", "1e300", "--batch-size", "1", "--steps",
      "10", "--delta", "1e-5"], "argument --dataset-size: dataset_size must be at most 1e+100 times batch_size"),
])
def test_values_that_were_internal_errors_are_one_line_refusals_issue_42(run, argv, start):
    _one_line(run(*argv), f"dpsampling account: error: {start}")


def test_the_calibration_search_and_the_phase_share_the_largest_sigma():
    from dpsampling.accountants import calibrate, run

    assert run.MAX_SIGMA == calibrate.MAX_SIGMA
    assert Accountant(Phase("poisson", run.MAX_SIGMA, sampling_rate=0.01, steps=10)).get_epsilon(1e-5) >= 0


def test_a_yaml_merge_key_then_an_override_is_the_yaml_spec_s_merge_not_a_duplicate(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "merged.yaml").write_text("phases:\n  - &b {sampler: poisson, sigma: 1.0, sampling_rate: 0.01, "
                                          "steps: 10}\n  - <<: *b\n    sigma: 2\n")
    (tmp_path / "plain.yaml").write_text("phases:\n  - {sampler: poisson, sigma: 1.0, sampling_rate: 0.01, steps: 10}"
                                         "\n  - {sampler: poisson, sigma: 2, sampling_rate: 0.01, steps: 10}\n")
    merged, plain = (run("account", "--schedule", name, "--delta", "1e-5") for name in ("merged.yaml", "plain.yaml"))
    assert merged.code == 0 and merged.out == plain.out
    (tmp_path / "twice.yaml").write_text("phases:\n  - {sampler: poisson, sigma: 1.0, sigma: 2, sampling_rate: 0.01, "
                                         "steps: 10}\n")
    _one_line(run("account", "--schedule", "twice.yaml", "--delta", "1e-5"),
              "dpsampling account: error: twice.yaml (line 2): duplicate key 'sigma'")


@pytest.mark.parametrize("z", [-1.0, float("nan"), float("inf")])
def test_the_opacus_adapter_refuses_a_bad_noise_multiplier_as_the_dp_accounting_one_does(z):
    accountant = accountant_class()()
    accountant.history = [(z, 0.01, 10)]  # set or loaded directly, not through step()
    with pytest.raises(ValueError, match="^noise_multiplier must be "):
        accountant.get_epsilon(1e-5)
    with pytest.raises(ValueError, match="^noise_multiplier must be "):
        accountant_class()().step(noise_multiplier=z, sample_rate=0.01)
