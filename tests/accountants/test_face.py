"""The one face: the run description, the accountant, the result shape, calibration, compare and
schedules (issue 27), and what they refuse (issue 24.1-3). Deterministic checks."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpsampling import __version__
from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.calibrate import calibrate_sigma
from dpsampling.accountants.closed_form.gaussian import gaussian_epsilon
from dpsampling.accountants.compare import compare_epsilons, compare_sigmas
from dpsampling.accountants.frames import AccountingError, Refused, bounds_frame, statement, wide
from dpsampling.accountants.reference import rdp
from dpsampling.accountants.run import Phase
from dpsampling.accountants.schedule import ScheduleError, load_schedule
from dpsampling.samplers import PAPER_SAMPLERS, SAMPLERS

MNIST = {"dataset_size": 60_000, "batch_size": 256}


def test_opacus_and_dp_accounting_vocabularies_describe_the_same_run():
    by_epochs = Phase("poisson", 1.1, epochs=20, **MNIST)
    by_total = Phase("poisson", 1.1, sampling_rate=256 / 60_000, steps=4_700)
    by_rate_and_epochs = Phase("poisson", 1.1, sampling_rate=256 / 60_000, epochs=20)
    assert by_epochs.steps == by_total.steps == by_rate_and_epochs.steps == 20 * math.ceil(60_000 / 256)
    assert by_epochs.sampling_rate == by_total.sampling_rate
    assert by_epochs.expected_batch_size == 256
    ours = [Accountant(p).get_epsilon(1e-5) for p in (by_epochs, by_total, by_rate_and_epochs)]
    assert ours[0] == ours[1] == ours[2]


def test_total_steps_are_never_read_as_steps_per_epoch():
    """The run of issue 24 (4,700 total steps at b/n): eps is that of 20 epochs, not of one."""
    run = Phase("poisson", 1.1, steps=4_700, **MNIST)
    one_epoch = Phase("poisson", 1.1, steps=235, **MNIST)
    frame = Accountant(run).epsilon_bounds([1e-5])
    assert frame.attrs["phases"][0]["steps"] == 4_700
    assert Accountant(one_epoch).get_epsilon(1e-5) < 0.5 * frame.set_index("direction").loc["max", "epsilon_lower"]


def test_the_run_is_described_in_full():
    text = Phase("wor", 1.0, epochs=10, **MNIST).describe()
    for part in ("2,350 steps", "sampling rate 0.00426667", "expected batch size 256", "60,000 examples"):
        assert part in text, text
    text = Phase("balls_and_bins", 1.0, epochs=3, **MNIST).describe()
    assert "3 epoch(s) of 235 steps (705 steps)" in text, text


@pytest.mark.parametrize(("fields", "start"), [
    ({"steps": 4_700}, "sampling_rate must be given"),
    ({"sampling_rate": 0.01, "steps": 10, "epochs": 2}, "steps must not be given with epochs"),
    ({"dataset_size": 100, "batch_size": 10, "steps": 25}, None),
])
def test_ambiguous_or_incomplete_runs_are_refused_in_one_line(fields, start):
    if start is None:  # an epoch-based run of 25 steps at 10 steps per epoch is not whole epochs
        with pytest.raises(ValueError, match="^steps must be a whole number of epochs"):
            Phase("balls_and_bins", 1.0, **fields)
        return
    with pytest.raises(ValueError, match=f"^{start}"):
        Phase("poisson", 1.0, **fields)


def test_get_epsilon_is_the_headline_upper_bound_of_the_relation():
    phase = Phase("poisson", 0.8, sampling_rate=0.01, steps=1_000)
    for relation, row in (("add", "add"), ("remove", "remove"), ("add_or_remove", "max")):
        for refine in ("all", "relation"):  # one policy: get_epsilon is the headline of the same answer
            frame = Accountant(phase, relation=relation, refine=refine).epsilon_bounds([1e-6])
            assert frame.attrs["headline"] == row
            upper = frame.set_index("direction").loc[row, "epsilon_upper"]
            assert Accountant(phase, relation=relation, refine=refine).get_epsilon(1e-6) == upper
    frame = Accountant(phase).epsilon_bounds([1e-6]).set_index("direction")
    assert frame.loc["add", "epsilon_upper"] < frame.loc["remove", "epsilon_lower"]  # the directions differ


def test_the_gaussian_mechanism_is_answered_exactly():
    """Deterministic batches: K epochs are the Gaussian mechanism at sensitivity sqrt(K); so is
    Poisson at rate 1 over K steps (chua24 Prop. 3.1)."""
    exact = gaussian_epsilon(1e-6, 2.0, math.sqrt(7))
    for phase in (Phase("deterministic", 2.0, steps_per_epoch=50, epochs=7),
                  Phase("poisson", 2.0, sampling_rate=1.0, steps=7)):
        frame = Accountant(phase).epsilon_bounds([1e-6])
        # a bracket of the closed form's rounding (docs/PROOF.md Lemma 16), not one value
        assert (frame["epsilon_lower"] <= exact).all() and (frame["epsilon_upper"] >= exact).all()
        assert (frame["epsilon_upper"] - frame["epsilon_lower"] <= 1e-9 * exact).all()


def test_relations_and_compositions_a_sampler_lacks_are_refused():
    with pytest.raises(ValueError, match="^relation must be one of add, remove, add_or_remove for sampler poisson"):
        Accountant(Phase("poisson", 1.0, sampling_rate=0.1, steps=10), relation="substitution")
    shuffle = Phase("shuffle", 1.0, steps_per_epoch=10, epochs=2)
    with pytest.raises(ValueError, match="^phase 1 \\(shuffle\\) cannot be composed"):
        Accountant([shuffle, Phase("poisson", 1.0, sampling_rate=0.1, steps=10)])
    with pytest.raises(ValueError, match="^method dp_accounting applies to one poisson or wor phase"):
        Accountant(Phase("balls_and_bins", 1.0, steps_per_epoch=10, epochs=2), method="dp_accounting")


def test_wor_substitution_reports_the_smallest_valid_upper_bound_and_names_it():
    """lebeda24's replace-one: the Theorem 14 pair's certified bound or dp-accounting's RDP bound,
    whichever is smaller, per row; the lower bound is the add/remove pair's."""
    phase = Phase("wor", 2.0, steps=2_344, **MNIST)
    frame = Accountant(phase, relation="substitution").epsilon_bounds([1e-5, 1e-2])
    attrs = frame.attrs["computation"]
    for row, delta in enumerate((1e-5, 1e-2)):
        rows = frame[frame["delta"] == delta]
        smallest = min(attrs["certified_upper"][row], attrs["rdp_upper"][row])
        assert (rows["epsilon_upper"] == smallest).all()
        assert rows["upper_method"].str.startswith("RDP").all() == (attrs["rdp_upper"][row] < attrs["certified_upper"][row])
    assert attrs["rdp_upper"][0] == rdp.query(rdp.wor_substitution(2.0, 256 / 60_000, 2_344), "epsilon", [1e-5])[0]
    add_remove = Accountant(phase).epsilon_bounds([1e-5]).set_index("direction").loc["max", "epsilon_lower"]
    assert frame.loc[frame["delta"] == 1e-5, "epsilon_lower"].iloc[0] == add_remove


def test_a_bracket_that_is_not_one_never_leaves_the_library():
    bounds = np.array([[[0.1, 0.2], [0.3, 0.2], [0.3, 0.2]]])
    with pytest.raises(AccountingError, match="^internal error: the delta bounds at epsilon = 1 \\(add\\)"):
        bounds_frame("delta", np.array([1.0]), bounds, ("a", "b"), 0.01, {})
    bounds = np.array([[[np.nan, 0.2], [0.1, 0.2], [0.1, 0.2]]])
    with pytest.raises(AccountingError):
        bounds_frame("epsilon", np.array([1e-5]), bounds, ("a", "b"), 0.01, {})


def test_the_wide_view_and_the_sentence_to_report():
    frame = Accountant(Phase("balls_and_bins", 1.0, epochs=2, **MNIST)).epsilon_bounds([1e-5, 1e-6])
    view = wide(frame)
    assert list(view["delta"]) == [1e-5, 1e-6]
    long = frame.set_index(["delta", "direction"])
    for _, row in view.iterrows():
        for direction in ("remove", "add", "max"):
            assert row[f"{direction}_epsilon_upper"] == long.loc[(row["delta"], direction), "epsilon_upper"]
        assert row["epsilon_upper"] == row["max_epsilon_upper"]
    sentence = statement(frame)
    upper = long.loc[(1e-5, "max"), "epsilon_upper"]
    for part in (f"({upper:.4g}, 1e-05)-DP", "add-or-remove", "balls_and_bins", __version__):
        assert part in sentence, sentence
    shuffled = Accountant(Phase("shuffle", 1.0, epochs=2, **MNIST)).epsilon_bounds([1e-5])
    assert "deterministic batches" in statement(shuffled)


def test_one_calibration_shown_sufficient_not_shown_sufficient_and_shown_insufficient():
    phase = Phase("poisson", 1.0, epochs=5, **MNIST)
    result = calibrate_sigma(phase, 1.0, 1e-5, rtol=1e-3)
    assert result.sigma / result.sigma_not_shown_sufficient - 1 <= 1e-3
    sufficient = Accountant(phase.with_sigma(result.sigma), refine="relation").epsilon_bounds([1e-5])
    not_shown = Accountant(phase.with_sigma(result.sigma_not_shown_sufficient), refine="relation").epsilon_bounds([1e-5])
    insufficient = Accountant(phase.with_sigma(result.sigma_shown_insufficient), refine="relation").epsilon_bounds([1e-5])

    def maximum(frame, bound):
        return frame.set_index("direction").loc["max", f"epsilon_{bound}"]

    assert maximum(sufficient, "upper") <= 1.0 < maximum(not_shown, "upper")
    assert maximum(insufficient, "lower") > 1.0
    compared = compare_sigmas(1.0, 1e-5, epochs=5, samplers=("poisson",), **MNIST).iloc[0]
    assert compared["sigma_sufficient"] == result.sigma
    assert compared["sigma_shown_insufficient"] == result.sigma_shown_insufficient


def test_calibrating_a_schedule_scales_every_phase():
    phases = [Phase("poisson", 0.8, sampling_rate=0.01, steps=500), Phase("balls_and_bins", 1.0, steps_per_epoch=100,
                                                                          epochs=2)]
    result = calibrate_sigma(phases, 2.0, 1e-6)
    assert result.sigma is None
    assert [p.sigma for p in result.phases] == [0.8 * result.scale, 1.0 * result.scale]
    assert Accountant(result.phases).get_epsilon(1e-6) <= 2.0


def test_compare_is_the_accountant_per_sampler():
    frame = compare_epsilons(1.0, 1e-5, epochs=3, **MNIST)
    assert list(dict.fromkeys(frame["sampler"])) == list(PAPER_SAMPLERS)  # compare's default: the papers' samplers
    for name in PAPER_SAMPLERS:
        alone = Accountant(Phase(name, 1.0, epochs=3, **MNIST)).epsilon_bounds([1e-5])
        block = frame[frame["sampler"] == name].reset_index(drop=True)
        pd.testing.assert_frame_equal(block[alone.columns], alone)


def test_schedules_read_yaml_numbers_and_refuse_in_one_line(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("phases:\n  - {sampler: poisson, sigma: 0.8, steps: 1000, sampling_rate: 4e-3}\n"
                    "  - {sampler: balls_and_bins, sigma: 1.0, steps_per_epoch: 500, epochs: 4}\n")
    phases = load_schedule(path)
    assert phases[0].sampling_rate == 4e-3 and phases[1].steps == 2_000
    for entry, message in (("{sampler: shuffle, sigma: 1.0, steps: 10}", "field 'sampler' is 'shuffle'"),
                           ("{sampler: poisson, sigma: 1.0, steps: 10, epochs: 2, sampling_rate: 0.1}",
                            "steps must not be given with epochs"),
                           ("{sampler: poisson, sigma: one, steps: 10, sampling_rate: 0.1}", "field 'sigma' is 'one'"),
                           ("{sampler: poisson, sigma: 1.0, step: 10}", "unknown field 'step'")):
        path.write_text(f"phases:\n  - {entry}\n")
        with pytest.raises(ScheduleError) as error:
            load_schedule(path)
        assert str(error.value).startswith(f"{path}: phase 1: ") and message in str(error.value)
        assert "\n" not in str(error.value)


@pytest.mark.parametrize("sampler", ["poisson", "wor"])
def test_rdp_is_a_method_of_the_face_labelled_as_a_reference(sampler):
    """method="rdp": dp-accounting's RDP bound (Poisson's at sigma / the pair's distance) in every
    row of the same long frame, 0 below, and a sentence that never calls it certified."""
    phase = Phase(sampler, 1.5, sampling_rate=0.01, steps=300)
    frame = Accountant(phase, method="rdp").epsilon_bounds([1e-5, 1e-3])
    reference = rdp.query(rdp.poisson_accountant(1.5 / SAMPLERS[sampler].distance, 0.01, 300), "epsilon", [1e-5, 1e-3])
    assert list(frame["epsilon_upper"]) == list(np.repeat(reference, 3))
    assert (frame["epsilon_lower"] == 0.0).all() and not frame["converged"].any()
    assert frame.attrs["method"] == "rdp"
    sentence = statement(frame)
    assert "certified upper bound" not in sentence and "a reference method, not certified" in sentence, sentence
    certified = Accountant(phase).epsilon_bounds([1e-5])
    assert "certified upper bound" in statement(certified)
    assert Accountant(phase, method="rdp").get_epsilon(1e-5) == reference[0]


def test_rdp_answers_wor_under_substitution_and_refuses_other_samplers():
    phase = Phase("wor", 2.0, steps=2_344, **MNIST)
    frame = Accountant(phase, relation="substitution", method="rdp").delta_bounds([1.0])
    expected = rdp.query(rdp.wor_substitution(2.0, 256 / 60_000, 2_344), "delta", [1.0])[0]
    assert (frame["delta_upper"] == expected).all()
    with pytest.raises(ValueError, match="^method rdp applies to one poisson or wor phase"):
        Accountant(Phase("deterministic", 1.0, steps_per_epoch=10, epochs=1), method="rdp")


def test_dp_accounting_answers_are_labelled_as_a_reference():
    frame = Accountant(Phase("poisson", 1.0, sampling_rate=0.01, steps=100), method="dp_accounting").epsilon_bounds([1e-5])
    assert frame.attrs["method"] == "dp_accounting"
    assert "certified" not in statement(frame).replace("not certified", "")


def test_calibration_by_a_reference_method_meets_the_target_by_that_method():
    phase = Phase("poisson", 1.0, sampling_rate=0.01, steps=300)
    result = calibrate_sigma(phase, 2.0, 1e-5, method="rdp", rtol=1e-2)
    assert result.method == "rdp" and result.as_row()["method"] == "rdp"
    assert Accountant(phase.with_sigma(result.sigma), method="rdp").get_epsilon(1e-5) <= 2.0
    assert Accountant(phase.with_sigma(result.sigma_not_shown_sufficient), method="rdp").get_epsilon(1e-5) > 2.0
    assert result.sigma_shown_insufficient is None  # RDP has no lower bound


def test_one_bisection_start_whatever_sigma_the_phase_was_given():
    """One phase's calibration does not depend on the sigma it was built with (one door, one number)."""
    answers = {calibrate_sigma(Phase("wor", sigma, sampling_rate=0.01, steps=200), 3.0, 1e-5).sigma
               for sigma in (0.3, 1.0, 7.0)}
    assert len(answers) == 1


def test_a_sigma_the_engine_refuses_is_not_sufficient_for_the_calibration(monkeypatch):
    """A refusal at a candidate sigma (the engine cannot charge so small a delta there) means "not
    shown sufficient": the calibration goes on above it, and still answers the same sigma as when
    nothing below it is refused (it is only ever reached from above)."""
    phase = Phase("poisson", 1.0, sampling_rate=0.01, steps=1000)
    free = calibrate_sigma(phase, 2.0, 1e-5)
    original, refusals = Accountant.epsilon_settled, []

    def refusing(self, delta, target):
        if self.phases[0].sigma < 0.95 * free.sigma:
            refusals.append(self.phases[0].sigma)
            raise Refused("delta must be above the proven floor (a stand-in)")
        return original(self, delta, target)

    monkeypatch.setattr(Accountant, "epsilon_settled", refusing)
    refused_below = calibrate_sigma(phase, 2.0, 1e-5)
    assert refusals and refused_below.sigma == free.sigma
