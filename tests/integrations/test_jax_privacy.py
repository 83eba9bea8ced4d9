"""jax-privacy 2.0 (a ``test`` extra): its DpsgdTrainingAccountant with our accountant inside,
its two fixed-batch events agreeing, and its balls-in-bins sampler's structure as our
KeptBinsDpEvent reads it. Deterministic (the sampler check is structural, on a seeded draw)."""

import dp_accounting as dpa
import numpy as np
import pytest

jax_privacy = pytest.importorskip("jax_privacy")

from jax_privacy import batch_selection  # noqa: E402
from jax_privacy.accounting import analysis  # noqa: E402
from jax_privacy.experimental import accounting as experimental  # noqa: E402

from dpsampling import Accountant  # noqa: E402
from dpsampling.accountants.certified.kept_bins import kept_bins_phases  # noqa: E402
from dpsampling.integrations.dp_accounting import CertifiedAccountant  # noqa: E402
from dpsampling.integrations.jax_privacy import CertifiedAccountantConfig, kept_bins_event  # noqa: E402

N, B, Z, STEPS, DELTA = 2_000, 20, 1.0, 300, 1e-5


def params(method):
    return analysis.DpParams(noise_multipliers=Z, num_samples=N, batch_size=B, delta=DELTA, sampling_method=method)


def test_training_accountant_uses_ours_for_poisson():
    training = analysis.DpsgdTrainingAccountant(dp_accountant_config=CertifiedAccountantConfig())
    eps = training.compute_epsilon(STEPS, params(analysis.SamplingMethod.POISSON))
    ours = CertifiedAccountant().compose(dpa.PoissonSampledDpEvent(B / N, dpa.GaussianDpEvent(Z)), STEPS)
    assert eps == ours.get_epsilon(DELTA)
    assert isinstance(CertifiedAccountantConfig().create_accountant(), dpa.PrivacyAccountant)


def test_fixed_batch_poisson_at_half_noise_and_the_wor_event_agree():
    training = analysis.DpsgdTrainingAccountant(dp_accountant_config=CertifiedAccountantConfig())
    fixed = training.compute_epsilon(STEPS, params(analysis.SamplingMethod.FIXED_BATCH_SIZE))
    wor_event = experimental.fixed_dpsgd_event(Z, STEPS, dataset_size=N, batch_size=B)
    assert isinstance(wor_event.event, dpa.SampledWithoutReplacementDpEvent)
    wor = CertifiedAccountant().compose(wor_event).get_epsilon(DELTA)
    assert fixed == pytest.approx(wor, rel=1e-12)
    # under REPLACE_ONE only the WOR event has a meaning here: lebeda24's substitution
    replace = CertifiedAccountant(dpa.NeighboringRelation.REPLACE_ONE).compose(wor_event)
    assert replace.relation == "substitution" and replace.get_epsilon(DELTA) > wor


def test_balls_in_bins_sampler_is_what_kept_bins_event_accounts():
    """Every example is in exactly the steps i = its bin (mod cycle_length), and nowhere else."""
    strategy = batch_selection.BallsInBinsSampling(iterations=25, cycle_length=10)
    batches = list(strategy.batch_iterator(200, rng=7))
    assert len(batches) == 25
    for example in range(200):
        steps = [i for i, batch in enumerate(batches) if example in set(np.asarray(batch).tolist())]
        assert steps and all(i % 10 == steps[0] % 10 for i in steps) and steps == list(range(steps[0], 25, 10))
    event = kept_bins_event(strategy, 2.0)
    accountant = CertifiedAccountant().compose(event)
    dominated, dominating = kept_bins_phases(2.0, 10, 25)
    assert accountant.get_epsilon(DELTA) == Accountant(dominating).get_epsilon(DELTA)
    row = accountant.epsilon_bounds([DELTA]).query("direction == 'max'").iloc[0]
    assert row["epsilon_lower"] == Accountant(dominated).epsilon_bounds([DELTA]).query(
        "direction == 'max'")["epsilon_lower"].iloc[0]
