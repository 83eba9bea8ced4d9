"""CertifiedAccountant (dp_accounting's PrivacyAccountant over the face): conventions against
dp_accounting's own PLDAccountant where both answer, every event, merging, bad input, calibration.

No randomness: every check is deterministic."""

import math

import dp_accounting as dpa
import numpy as np
import prv_accountant
import pytest

from dpsampling import Accountant, Phase
from dpsampling.accountants.certified.kept_bins import kept_bins_phases
from dpsampling.accountants.closed_form.gaussian import gaussian_epsilon
from dpsampling.integrations.dp_accounting import CertifiedAccountant
from dpsampling.integrations.events import KeptBinsDpEvent, RandomAllocationDpEvent, ShuffledDpEvent

REPLACE_ONE = dpa.NeighboringRelation.REPLACE_ONE
DELTA = 1e-5


def gaussian(z):
    return dpa.GaussianDpEvent(z)


def bracket(accountant, delta=DELTA):
    row = accountant.epsilon_bounds([delta]).query("direction == 'max'").iloc[0]
    return row["epsilon_lower"], row["epsilon_upper"]


# --- conventions against dp_accounting's PLDAccountant -----------------------------------------

def test_gaussian_is_the_exact_value_under_both_relations():
    """add/remove: N(0) vs N(C) composed 3 times; replace-one: N(-C) vs N(+C), i.e. distance 2."""
    ours = CertifiedAccountant().compose(gaussian(2.0), 3).get_epsilon(DELTA)
    assert ours == pytest.approx(gaussian_epsilon(DELTA, 2.0, math.sqrt(3)), rel=1e-12)
    pld = dpa.pld.PLDAccountant().compose(gaussian(2.0), 3).get_epsilon(DELTA)
    assert ours == pytest.approx(pld, rel=2e-3)
    ours = CertifiedAccountant(REPLACE_ONE).compose(gaussian(2.0)).get_epsilon(DELTA)
    assert ours == pytest.approx(gaussian_epsilon(DELTA, 2.0, 2.0), rel=1e-12)
    assert ours == pytest.approx(4.3772, abs=1e-4)  # mu = 1, as dp_accounting's PLD reads it
    assert ours == pytest.approx(dpa.pld.PLDAccountant(REPLACE_ONE).compose(gaussian(2.0)).get_epsilon(DELTA), rel=2e-3)


@pytest.mark.parametrize("sigma, rate, steps", [(1.0, 0.01, 500), (2.0, 0.05, 200)])
def test_poisson_pld_estimate_lies_in_our_certified_bracket(sigma, rate, steps):
    event = dpa.PoissonSampledDpEvent(rate, gaussian(sigma))
    ours = CertifiedAccountant().compose(event, steps)
    lower, upper = bracket(ours)
    assert upper == ours.get_epsilon(DELTA) or upper == pytest.approx(ours.get_epsilon(DELTA), rel=0.01)
    pld = dpa.pld.PLDAccountant().compose(event, steps).get_epsilon(DELTA)
    # dp_accounting's connect-the-dots estimate is not certified; it must agree with the bracket
    # to its own discretization (1e-4 in the privacy loss: relative 1e-3 here)
    assert lower * (1 - 1e-3) <= pld <= upper * (1 + 1e-3)
    delta_row = ours.delta_bounds([1.0]).query("direction == 'max'").iloc[0]
    pld_delta = dpa.pld.PLDAccountant().compose(event, steps).get_delta(1.0)
    assert delta_row["delta_lower"] * (1 - 1e-2) <= pld_delta <= delta_row["delta_upper"] * (1 + 1e-2)


def test_poisson_on_the_realistic_run_lies_inside_the_prv_bracket():
    """n 60,000, b 256, 20 epochs, sigma 1.1: our certified remove bracket inside PRV's [lower, upper]."""
    q, steps = 256 / 60_000, 4_700
    prv = prv_accountant.PRVAccountant(
        prvs=[prv_accountant.PoissonSubsampledGaussianMechanism(noise_multiplier=1.1, sampling_probability=q)],
        max_self_compositions=[steps], eps_error=0.01, delta_error=1e-8)
    prv_lower, _, prv_upper = prv.compute_epsilon(delta=DELTA, num_self_compositions=[steps])
    ours = CertifiedAccountant().compose(dpa.PoissonSampledDpEvent(q, gaussian(1.1)), steps)
    row = ours.epsilon_bounds([DELTA]).query("direction == 'remove'").iloc[0]
    assert prv_lower <= row["epsilon_lower"] <= row["epsilon_upper"] <= prv_upper
    assert prv_lower <= ours.get_epsilon(DELTA) <= prv_upper


def test_wor_under_add_or_remove_is_poisson_at_half_the_noise():
    """jax-privacy 2.0's FIXED_BATCH_SIZE event (Poisson at z / 2) and its experimental WOR event agree."""
    n, b, z, steps = 1000, 10, 1.0, 300
    wor = CertifiedAccountant().compose(dpa.SampledWithoutReplacementDpEvent(n, b, gaussian(z)), steps)
    poisson = CertifiedAccountant().compose(dpa.PoissonSampledDpEvent(b / n, gaussian(z / 2)), steps)
    assert wor.get_epsilon(DELTA) == pytest.approx(poisson.get_epsilon(DELTA), rel=1e-12)
    assert bracket(wor) == pytest.approx(bracket(poisson), rel=1e-12)


def test_wor_under_replace_one_is_the_substitution_bracket_below_rdp():
    """REPLACE_ONE WOR: lebeda24's substitution; dp_accounting's RDP for it (read at z / 2, its
    replace-one sensitivity convention) is a valid but larger upper bound."""
    n, b, z, steps = 1000, 10, 1.0, 300
    event = dpa.SampledWithoutReplacementDpEvent(n, b, gaussian(z))
    ours = CertifiedAccountant(REPLACE_ONE).compose(event, steps)
    assert ours.relation == "substitution"
    lower, upper = bracket(ours)
    face = Accountant(Phase("wor", z, dataset_size=n, batch_size=b, steps=steps), relation="substitution")
    assert upper == pytest.approx(face.epsilon_bounds([DELTA]).query("direction == 'max'")["epsilon_upper"].iloc[0])
    rdp = dpa.rdp.RdpAccountant(neighboring_relation=REPLACE_ONE).compose(
        dpa.SampledWithoutReplacementDpEvent(n, b, gaussian(z / 2)), steps).get_epsilon(DELTA)
    assert lower <= upper <= rdp
    assert not dpa.pld.PLDAccountant(REPLACE_ONE).supports(event)  # what we add


# --- our events ----------------------------------------------------------------------------------

def test_random_allocation_epochs_are_balls_and_bins_and_merge():
    z, T, K = 0.8, 20, 3
    alloc = RandomAllocationDpEvent(event=gaussian(z), num_selected=1, num_steps=T)
    face = Accountant(Phase("balls_and_bins", z, steps_per_epoch=T, epochs=K)).get_epsilon(DELTA)
    one_by_one = CertifiedAccountant()
    for _ in range(K):
        one_by_one.compose(alloc)
    assert one_by_one.phases() == (Phase("balls_and_bins", z, steps_per_epoch=T, epochs=K),)
    assert one_by_one.get_epsilon(DELTA) == face
    assert CertifiedAccountant().compose(dpa.SelfComposedDpEvent(alloc, K)).get_epsilon(DELTA) == face
    assert CertifiedAccountant().compose(alloc, K).get_epsilon(DELTA) == face


def test_kept_bins_is_one_epoch_at_sigma_over_sqrt_k_and_brackets_a_partial_epoch():
    z, T = 1.5, 20
    kept = CertifiedAccountant().compose(KeptBinsDpEvent(gaussian(z), cycle_length=T, iterations=4 * T))
    assert kept.get_epsilon(DELTA) == Accountant(kept_bins_phases(z, T, 4 * T)[1]).get_epsilon(DELTA)
    assert kept.phases() == (Phase("balls_and_bins", z / 2, steps_per_epoch=T, epochs=1),)
    partial = CertifiedAccountant().compose(KeptBinsDpEvent(gaussian(z), cycle_length=T, iterations=3 * T + 5))
    lower, upper = bracket(partial)
    dominated, dominating = kept_bins_phases(z, T, 3 * T + 5)
    assert upper == Accountant(dominating).epsilon_bounds([DELTA]).query("direction == 'max'")["epsilon_upper"].iloc[0]
    assert lower == Accountant(dominated).epsilon_bounds([DELTA]).query("direction == 'max'")["epsilon_lower"].iloc[0]
    assert lower < upper


def test_shuffle_is_answered_by_its_bracket_and_is_not_composed():
    z, T, K = 2.0, 10, 2
    shuffled = CertifiedAccountant().compose(ShuffledDpEvent(gaussian(z), num_steps=T), K)
    lower, upper = bracket(shuffled)
    assert upper == pytest.approx(gaussian_epsilon(DELTA, z, math.sqrt(K)), rel=1e-12)  # delta_S <= delta_D
    assert 0 < lower < upper
    assert "no certified bound of its own" in shuffled.statement(DELTA)
    poisson = dpa.PoissonSampledDpEvent(0.1, gaussian(z))
    assert not shuffled.supports(poisson)
    with pytest.raises(dpa.UnsupportedEventError, match="cannot be composed") as error:
        shuffled.compose(poisson)
    assert str(error.value).endswith(f"caused by subevent {poisson}.")
    assert bracket(shuffled) == (lower, upper)  # a refused event changes nothing


def test_our_events_round_trip_through_named_tuples():
    for event in (RandomAllocationDpEvent(gaussian(1.0), 1, 10), KeptBinsDpEvent(gaussian(1.0), 10, 30),
                  ShuffledDpEvent(gaussian(1.0), 10)):
        assert dpa.DpEvent.from_named_tuple(event.to_named_tuple()) == event


def test_composed_events_and_noop():
    assert CertifiedAccountant().get_epsilon(DELTA) == 0.0
    assert CertifiedAccountant().compose(dpa.NoOpDpEvent(), 5).get_delta(1.0) == 0.0
    p = dpa.PoissonSampledDpEvent(0.02, gaussian(1.0))
    g = gaussian(10.0)
    composed = CertifiedAccountant().compose(dpa.ComposedDpEvent([p, g, dpa.NoOpDpEvent()]), 50)
    assert composed.phases() == (Phase("poisson", 1.0, sampling_rate=0.02, steps=50),
                                 Phase("deterministic", 10.0, steps_per_epoch=1, epochs=50))
    assert composed.ledger == dpa.SelfComposedDpEvent(dpa.ComposedDpEvent([p, g, dpa.NoOpDpEvent()]), 50)


# --- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("relation, event, count, reason", [
    (None, dpa.SampledWithoutReplacementDpEvent(100, 10, dpa.LaplaceDpEvent(1.0)), 1,
     "must be a GaussianDpEvent .* got LaplaceDpEvent"),
    (None, dpa.PoissonSampledDpEvent(0.1, dpa.PoissonSampledDpEvent(0.5, gaussian(1.0))), 1, "nested sampling"),
    (None, gaussian(1.0), -1, "count must be a non-negative integer; got -1"),
    (None, dpa.SelfComposedDpEvent(gaussian(1.0), -2), 1, "SelfComposedDpEvent.count must be a non-negative"),
    (None, RandomAllocationDpEvent(gaussian(1.0), 2, 10), 1, "num_selected = 2"),
    (None, dpa.LaplaceDpEvent(1.0), 1, "LaplaceDpEvent: the project.s certified pairs are for Gaussian noise"),
    (REPLACE_ONE, dpa.PoissonSampledDpEvent(0.1, gaussian(1.0)), 1, "PoissonSampledDpEvent under REPLACE_ONE"),
    (REPLACE_ONE, dpa.ComposedDpEvent([dpa.SampledWithoutReplacementDpEvent(100, 10, gaussian(1.0)),
                                       dpa.SampledWithoutReplacementDpEvent(100, 20, gaussian(1.0))]), 1,
     "cannot be accounted as composed"),
])
def test_unsupported_events(relation, event, count, reason):
    accountant = CertifiedAccountant() if relation is None else CertifiedAccountant(relation)
    assert not accountant.supports(event) or count < 0
    with pytest.raises(dpa.UnsupportedEventError, match=reason) as error:
        accountant.compose(event, count)
    assert "Unsupported event" in str(error.value)
    assert accountant.ledger == dpa.NoOpDpEvent() and accountant.phases() == ()


@pytest.mark.parametrize("event, message", [
    (gaussian(-1.0), "GaussianDpEvent.noise_multiplier must be a finite number >= 0; got -1.0"),
    (gaussian(math.nan), "GaussianDpEvent.noise_multiplier must be a finite number >= 0; got nan"),
    (dpa.PoissonSampledDpEvent(1.5, gaussian(1.0)), r"sampling_probability must be a number in \[0, 1\]; got 1.5"),
    (dpa.SampledWithoutReplacementDpEvent(10, 20, gaussian(1.0)), r"sample_size must be an integer in \[1, 10\]; got 20"),
    (dpa.SampledWithoutReplacementDpEvent(10.5, 2, gaussian(1.0)), "source_dataset_size must be an integer >= 1"),
    (KeptBinsDpEvent(gaussian(1.0), 10, 5), "KeptBinsDpEvent.iterations must be an integer >= 10; got 5"),
])
def test_bad_values_raise_one_value_error(event, message):
    with pytest.raises(ValueError, match=message):
        CertifiedAccountant().compose(event)


def test_bad_relation_and_queries():
    with pytest.raises(ValueError, match="neighboring_relation must be one of ADD_OR_REMOVE_ONE, REPLACE_ONE"):
        CertifiedAccountant(dpa.NeighboringRelation.REPLACE_SPECIAL)
    with pytest.raises(ValueError, match="target_delta must be in the open interval"):
        CertifiedAccountant().get_epsilon(0.0)


def test_no_noise_gives_the_trivial_bound():
    accountant = CertifiedAccountant().compose(dpa.PoissonSampledDpEvent(0.1, gaussian(0.0)), 10)
    assert accountant.get_epsilon(DELTA) == math.inf and accountant.get_delta(1.0) == 1.0
    assert accountant.epsilon_bounds([DELTA])["upper_method"].str.startswith("trivial").all()
    below_grid = CertifiedAccountant().compose(dpa.PoissonSampledDpEvent(0.1, gaussian(0.01)), 10)
    assert below_grid.get_epsilon(DELTA) == math.inf


# --- calibration ---------------------------------------------------------------------------------

def test_calibrate_dp_mechanism_finds_a_certified_noise():
    target = 2.0
    z = dpa.calibrate_dp_mechanism(CertifiedAccountant, lambda s: dpa.SelfComposedDpEvent(
        dpa.PoissonSampledDpEvent(0.02, gaussian(s)), 200), target, DELTA, tol=1e-3)
    eps = CertifiedAccountant().compose(dpa.PoissonSampledDpEvent(0.02, gaussian(z)), 200).get_epsilon(DELTA)
    assert eps <= target
    higher = CertifiedAccountant().compose(dpa.PoissonSampledDpEvent(0.02, gaussian(z - 2e-3)), 200)
    assert higher.get_epsilon(DELTA) > target * (1 - 0.02)  # within the accuracy (1%) of the optimum
    assert np.isfinite(eps)


def test_no_finite_bound_reads_as_inf_in_dp_accountings_protocol():
    """Where the engine's proven floor reaches delta no finite eps is certified: the face refuses
    in one line, the dp_accounting adapter answers inf (a true upper bound, as dp_accounting's
    accountants answer an unbounded eps), so calibrate_dp_mechanism reads that noise as too little."""
    import math

    import dp_accounting

    from dpsampling.accountants.accountant import Accountant
    from dpsampling.accountants.frames import NoFiniteBound
    from dpsampling.accountants.run import Phase
    from dpsampling.integrations.dp_accounting import CertifiedAccountant

    with pytest.raises(NoFiniteBound, match="proven floor"):
        Accountant(Phase("poisson", 1.0, sampling_rate=0.01, steps=100)).get_epsilon(1e-300)
    event = dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0))
    assert CertifiedAccountant().compose(event, 100).get_epsilon(1e-300) == math.inf
