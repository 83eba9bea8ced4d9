"""The accountant check: both numbers come from the face, and the sentence says what to do."""

import math

import dp_accounting
import pytest
from stand_in_loaders import TorchShuffle

from dpsampling import Accountant, Phase, audit
from dpsampling.accountants.frames import headline_value
from dpsampling.auditing import check_accountant
from dpsampling.auditing.check import assumed_phases, loader_phase, rounded
from dpsampling.batches import BatchSampler
from dpsampling.integrations import ledger
from dpsampling.integrations.events import KeptBinsDpEvent
from dpsampling.samplers import PAPER_SAMPLERS, SAMPLERS

N, B, SIGMA, DELTA = 6_000, 64, 1.1, 1e-5
T = math.ceil(N / B)
STEPS = 4 * T


def _eps(phase, bound="upper"):
    return headline_value(Accountant(phase).epsilon_bounds([DELTA]), bound)


@pytest.fixture(scope="module")
def shuffled():
    return audit(TorchShuffle(N, B, seed=5), dataset_size=N)


def test_a_dp_accounting_poisson_event_over_shuffled_batches_gets_the_mismatch_sentence(shuffled):
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(B / N, dp_accounting.GaussianDpEvent(SIGMA)), STEPS)
    check = check_accountant(shuffled, event, DELTA)
    claimed = _eps(Phase("poisson", SIGMA, sampling_rate=B / N, steps=STEPS))
    shuffle = Phase("shuffle", SIGMA, steps_per_epoch=T, epochs=4)
    assert check.mismatch and check.loader == (shuffle,)
    assert check.reported is None  # a DpEvent describes the run; it reports nothing itself
    assert check.sentence.startswith("your accountant assumes poisson at q = ")
    assert f"(our certified eps for it: {rounded(claimed, True)})" in check.sentence
    assert (f"your loader shuffles (every example once per epoch, fixed batch sizes): our certified bracket is "
            f"[{rounded(_eps(shuffle, 'lower'), False)}, {rounded(_eps(shuffle), True)}]") in check.sentence
    # every sampler on the same run whose certified eps is at most the claimed one is named, with its eps
    runs = {s: Phase(s, SIGMA, sampling_rate=B / N, steps=STEPS) if s in ("poisson", "wor")
            else Phase(s, SIGMA, steps_per_epoch=T, epochs=4) for s in PAPER_SAMPLERS}
    named = [f"{SAMPLERS[s].audit_words} (ours: {rounded(_eps(phase), True)})" for s, phase in runs.items() if _eps(phase) <= claimed]
    assert named and check.sentence.endswith(f"; to claim eps {rounded(claimed, True)} use {' or '.join(named)}")
    assert "balls-and-bins (ours: " in check.sentence and "shuffled batches (" not in check.sentence


def test_the_frame_is_the_face_s_long_frame_per_run(shuffled):
    check = check_accountant(shuffled, [(SIGMA, 1 / T, STEPS)], DELTA)  # an Opacus history: Poisson at 1 / T
    assert set(check.frame["run"]) == {"assumed", "loader", "alternative"}
    loader = check.frame[check.frame["run"] == "loader"]
    face = Accountant(Phase("shuffle", SIGMA, steps_per_epoch=T, epochs=4)).epsilon_bounds([DELTA])
    assert loader[["epsilon_lower", "epsilon_upper"]].values.tolist() == \
        face[["epsilon_lower", "epsilon_upper"]].values.tolist()


def test_a_loader_that_does_what_the_accountant_assumes_gets_no_mismatch():
    verdict = audit(BatchSampler("poisson", N, B, epochs=3, seed=1))
    check = check_accountant(verdict, Phase("poisson", SIGMA, sampling_rate=B / N, steps=STEPS), DELTA)
    assert not check.mismatch and check.loader == check.assumed
    assert set(check.frame["run"]) == {"assumed", "loader"}


def test_a_poisson_loader_at_another_rate_is_accounted_at_its_own_rate():
    verdict = audit(BatchSampler("poisson", N, 2 * B, epochs=3, seed=1))
    check = check_accountant(verdict, Phase("poisson", SIGMA, sampling_rate=B / N, steps=STEPS), DELTA)
    assert check.mismatch and check.loader[0].sampling_rate > 1.9 * B / N


def test_kept_bins_are_accounted_as_jax_privacy_s_kept_bins_event():
    selection = pytest.importorskip("jax_privacy.batch_selection")
    strategy = selection.BallsInBinsSampling(iterations=3 * T, cycle_length=T)
    verdict = audit(strategy, dataset_size=N)
    # kept bins are fixed balls-and-bins (issue 44): recognised as that sampler, its epochs repeating the first
    assert verdict.sampler == "fixed_balls_and_bins" and verdict.matches and verdict.facts["epochs_repeat"]
    mine = loader_phase(verdict, Phase("poisson", SIGMA, sampling_rate=1 / T, steps=3 * T))
    assert mine == Phase("fixed_balls_and_bins", SIGMA, steps_per_epoch=T, epochs=3)
    event = KeptBinsDpEvent(dp_accounting.GaussianDpEvent(SIGMA), cycle_length=T, iterations=3 * T)
    (kept,) = ledger.run_phases(ledger.merge(ledger.parts(event, 1, ledger.ADD_OR_REMOVE_ONE)))
    reduction = Accountant(mine).epsilon_bounds([DELTA])  # its certified reduction is the kept-bins event's phase
    (reduced,) = reduction.attrs["certified_reduction"]
    assert (reduced["sampler"], reduced["steps_per_epoch"], reduced["epochs"]) == ("balls_and_bins", T, 1)
    assert reduced["sigma"] == pytest.approx(kept.sigma, rel=1e-15)
    assert reduction["epsilon_upper"].tolist() == pytest.approx(
        Accountant(kept).epsilon_bounds([DELTA])["epsilon_upper"].tolist(), rel=1e-9)


def test_a_jax_privacy_dp_params_is_read_with_its_steps():
    analysis = pytest.importorskip("jax_privacy.accounting.analysis")
    params = analysis.DpParams(noise_multipliers=SIGMA, num_samples=N, delta=DELTA, batch_size=B,
                               sampling_method=analysis.SamplingMethod.FIXED_BATCH_SIZE)
    assert assumed_phases(params, steps=STEPS) == (Phase("wor", SIGMA, dataset_size=N, batch_size=B, steps=STEPS),)
    with pytest.raises(ValueError, match="^steps must be given with a jax-privacy DpParams"):
        assumed_phases(params)


def test_no_guarantee_is_said_and_the_samplers_that_reach_the_claim_are_named():
    from stand_in_loaders import Weighted

    verdict = audit(Weighted(N, B, seed=2), dataset_size=N)
    check = check_accountant(verdict, Phase("poisson", SIGMA, sampling_rate=B / N, steps=STEPS), DELTA)
    assert check.loader is None and ": no guarantee from these batches; to claim eps" in check.sentence


def test_refusals_name_the_argument():
    verdict = audit(BatchSampler("shuffle", 100, 10, epochs=2))
    with pytest.raises(ValueError, match="^accountant must be a Phase"):
        check_accountant(verdict, object(), DELTA)
    with pytest.raises(ValueError, match="^accountant must describe one phase"):
        check_accountant(verdict, [(1.0, 0.1, 10), (2.0, 0.1, 10)], DELTA)
    with pytest.raises(ValueError, match="^accountant history entries must be"):
        check_accountant(verdict, [[1.0, 0.1]], DELTA)
    assert assumed_phases([[1.0, 0.1, 10]]) == (Phase("poisson", 1.0, sampling_rate=0.1, steps=10),)  # a state_dict's
    with pytest.raises(ValueError, match="^delta must be in"):
        check_accountant(verdict, [(1.0, 0.1, 10)], 2.0)


def test_an_opacus_engine_is_read_through_its_accountant_s_history(shuffled):
    """The attributes Opacus' PrivacyEngine has (engine.accountant.history), without torch; the
    real engine is in test_torch.py."""
    from types import SimpleNamespace

    engine = SimpleNamespace(accountant=SimpleNamespace(history=[(SIGMA, 1 / T, 2 * T), (SIGMA, 1 / T, 0)]))
    assert assumed_phases(engine) == (Phase("poisson", SIGMA, sampling_rate=1 / T, steps=2 * T),)
    check = check_accountant(shuffled, engine, DELTA)
    assert check.mismatch and check.loader == (Phase("shuffle", SIGMA, steps_per_epoch=T, epochs=2),)
    assert "your loader shuffles" in check.sentence and "; to claim eps" in check.sentence


def test_a_loader_whose_bracket_is_below_the_claim_is_told_the_claim_holds():
    """Balls-and-bins batches accounted as Poisson at 1 / T: balls-and-bins' certified upper bound
    is below Poisson's here (chua25), so the eps reported holds for the loader."""
    verdict = audit(BatchSampler("balls_and_bins", N, B, epochs=3, seed=1))
    assumed = Phase("poisson", SIGMA, sampling_rate=1 / T, steps=STEPS)
    mine = Phase("balls_and_bins", SIGMA, steps_per_epoch=T, epochs=4)
    assert _eps(mine) <= _eps(assumed)  # the premise, from the face
    check = check_accountant(verdict, assumed, DELTA)
    assert check.loader == (mine,) and check.sentence.endswith("holds for your loader too")
    assert set(check.frame["run"]) == {"assumed", "loader"}


@pytest.mark.parametrize("value, up, text", [(1.3201, True, "1.33"), (1.3299, False, "1.32"), (24.9225, True, "24.93"),
                                             (0.15012, True, "0.151"), (0.0123, False, "0.0123"), (2.0, True, "2.00")])
def test_bounds_are_rounded_outward(value, up, text):
    assert rounded(value, up) == text


class ReportingAccountant:
    """An Opacus-like accountant: a history, and its own get_epsilon (what it returns is what the
    user reads; issue 42.4)."""

    def __init__(self, answer):
        self.history = [(SIGMA, 1 / T, STEPS)]
        self.answer = answer

    def get_epsilon(self, delta):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_the_sentence_says_what_the_user_s_accountant_returns_and_labels_ours_issue_42(shuffled):
    check = check_accountant(shuffled, ReportingAccountant(1.1497), DELTA)
    ours = _eps(Phase("poisson", SIGMA, sampling_rate=1 / T, steps=STEPS))
    assert check.reported == 1.1497
    assert check.sentence.startswith("your accountant reports 1.1497 as poisson at q = ")
    assert f"(our certified eps for it: {rounded(ours, True)})" in check.sentence
    assert "our certified bracket is" in check.sentence and "to claim eps 1.1497 use" in check.sentence


@pytest.mark.parametrize("answer, message", [
    ("1.2", r"^accountant must return a number >= 0 from get_epsilon\(1e-05\); got str '1.2'$"),
    (float("nan"), r"^accountant must return a number >= 0 from get_epsilon\(1e-05\); got float nan$"),
    (RuntimeError("boom"), r"^accountant raised RuntimeError in its get_epsilon\(1e-05\): boom \(your accountant's code"),
])
def test_an_accountant_whose_answer_is_not_a_number_is_refused_in_one_line(shuffled, answer, message):
    with pytest.raises(ValueError, match=message):
        check_accountant(shuffled, ReportingAccountant(answer), DELTA)
