"""jax-privacy 2.0's DP-BandMF configuration read as a ``MatrixRun`` (skipped without jax-privacy).

1. Deterministic: on the same outputs y, jax-privacy's ``compute_privacy_loss`` on its strategy equals
   our kernel's loss on the adapted run (to 1e-9): this pins the noise convention (sigma not divided
   by ||c||) and the copied fields (warm_start defaults to True in jax-privacy, False in MatrixRun).
   b-min-sep with <= 2 coefficients only (jax-privacy 2.0 orders the truncated norms of the last
   steps differently from 3 coefficients on; docs/MATRIX.md).
2. Statistical: jax-privacy's own samples (its ``get_privacy_loss_sample``, both directions) and ours
   on the adapted run give Bernoulli-KL intervals at beta = 1e-6 that overlap. For a fresh seed each
   comparison fails with probability <= 4e-6 (each interval misses delta w.p. <= 2e-6); 12
   comparisons here: <= 5e-5 in all.
3. ``BandMFExecutionPlanConfig``: the plan's own noise, multiplied back by C, has standard deviation
   noise_multiplier * ||strategy|| (within 1 %; 240 000 draws, relative s.d. 0.15 %, so a fresh
   seed fails w.p. < 1e-10), and the certified reduction of the adapted run is jax-privacy's
   ``amplified_bandmf_event``.
"""

import dp_accounting as dpa
import numpy as np
import pytest

from dpsampling.accountants.ballsbins.estimates import estimate_delta
from dpsampling.accountants.matrix import MatrixRun, certified_phases, sample_losses
from dpsampling.accountants.matrix.montecarlo import _lower_confidence_bound, kernel_losses
from dpsampling.accountants.matrix.reference import draw_outputs
from dpsampling.integrations.jax_privacy import (
    jax_privacy_strategy,
    matrix_run_from_bandmf_config,
    matrix_run_from_monte_carlo,
)

batch_selection = pytest.importorskip("jax_privacy.batch_selection")
sample_generation = pytest.importorskip("jax_privacy.experimental.monte_carlo.sample_generation")
execution_plan = pytest.importorskip("jax_privacy.experimental.execution_plan")
experimental_accounting = pytest.importorskip("jax_privacy.experimental.accounting")

C3, C2 = np.array([1.0, 0.6, 0.3]), np.array([1.0, 0.6])
MONTE_CARLO_CONFIGS = [  # (strategy, noise_multiplier, c_col), as jax-privacy's Monte Carlo takes them
    (batch_selection.BallsInBinsSampling(iterations=30, cycle_length=6), 1.5, C3),
    (batch_selection.BMinSepSampling(sampling_prob=0.2, iterations=30, min_sep=3, warm_start=False), 1.0, C2),
    (batch_selection.BMinSepSampling(sampling_prob=0.2, iterations=30, min_sep=4), 1.0, C2),  # warm by default
]
IDS = ["balls_in_bins", "bminsep_cold", "bminsep_warm"]


@pytest.mark.parametrize("config", MONTE_CARLO_CONFIGS, ids=IDS)
def test_adapted_run_has_jax_privacys_loss(config):
    strategy, noise_multiplier, c_col = config
    run = matrix_run_from_monte_carlo(strategy, noise_multiplier, c_col)
    y = draw_outputs(run, 40, np.random.default_rng(11), "remove")
    theirs = sample_generation.compute_privacy_loss(strategy, y.T.copy(), noise_multiplier, c_col)
    np.testing.assert_allclose(kernel_losses(run, y), theirs, rtol=1e-9, atol=1e-9)


def _interval(losses, epsilons, beta):
    estimate = estimate_delta(losses, epsilons)
    return _lower_confidence_bound(estimate.mean(), estimate.count, beta), estimate.upper_confidence_bound(beta)


@pytest.mark.parametrize("config", MONTE_CARLO_CONFIGS, ids=IDS)
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_estimates_agree_with_jax_privacys_monte_carlo(config, direction):
    strategy, noise_multiplier, c_col = config
    run = matrix_run_from_monte_carlo(strategy, noise_multiplier, c_col)
    theirs, _ = sample_generation.get_privacy_loss_sample(strategy, noise_multiplier, c_col, seed=21,
                                                          positive_sample=direction == "remove", num_samples=3000)
    epsilons, beta = [0.5, 1.5], 1e-6
    their_low, their_high = _interval(np.asarray(theirs), epsilons, beta)
    our_low, our_high = _interval(sample_losses(run, 3000, direction=direction, seed=22), epsilons, beta)
    assert np.all(our_low <= their_high) and np.all(their_low <= our_high), (our_low, our_high, their_low, their_high)


@pytest.mark.parametrize("run", [
    MatrixRun(C3, "fixed_balls_and_bins", 1.5, 30, cycle_length=6),
    MatrixRun(C2, "b_min_sep", 1.0, 30, min_separation=3, sampling_rate=0.2, warm_start=True),
    MatrixRun(C3, "cyclic_poisson", 2.0, 30, cycle_length=3, sampling_rate=0.1),
], ids=lambda r: r.sampler)
def test_round_trip(run):
    assert matrix_run_from_monte_carlo(jax_privacy_strategy(run), run.sigma, run.coefficients) == run


def test_per_epoch_bins_have_no_jax_privacy_strategy():
    with pytest.raises(ValueError, match="no strategy for sampler balls_and_bins"):
        jax_privacy_strategy(MatrixRun(C2, "balls_and_bins", 1.0, 12, cycle_length=6))


def bandmf_config(**changes):
    fields = dict(strategy=C3, iterations=7, epsilon=None, delta=None, noise_multiplier=1.5, sampling_prob=0.3,
                  noise_seed=3)
    fields.update(changes)
    return execution_plan.BandMFExecutionPlanConfig(**fields)


def test_bandmf_config_noise_is_sigma_on_the_clip_norm():
    config = bandmf_config(iterations=6)
    run = matrix_run_from_bandmf_config(config)
    transform = config.plan.noise_addition_transform
    zeros = np.zeros(40_000, dtype=np.float32)
    state = transform.init(zeros)
    released = []
    for _ in range(run.steps):
        out, state = transform.update(zeros, state)
        released.append(np.asarray(out, dtype=np.float64))
    toeplitz = sum(np.diag(np.full(run.steps - lag, value), -lag) for lag, value in enumerate(run.coefficients))
    noise = toeplitz @ np.array(released)  # the plan releases g + C^{-1} (stddev Z)
    assert abs(noise.std() / run.sigma - 1) < 0.01
    assert run.sigma == pytest.approx(1.5 * np.linalg.norm(C3), rel=1e-12)


def test_bandmf_config_certified_phase_is_jax_privacys_event():
    """7 steps in cycles of 3: jax-privacy's event counts ceil(7 / 3) = 3 full blocks (an upper bound);
    ours is exact: 2 full blocks at the same noise multiplier and the last block, 1 of its 3 rows
    inside the run, at a larger one (docs/MATRIX.md), so jax-privacy's event dominates ours."""
    config = bandmf_config()
    full, last = certified_phases(matrix_run_from_bandmf_config(config))
    event = experimental_accounting.amplified_bandmf_event(1.5, 7, num_bands=3, sampling_prob=0.3)
    assert (full.sampler, full.steps + last.steps, full.sampling_rate) == ("poisson", event.count,
                                                                           event.event.sampling_probability)
    assert full.sigma == pytest.approx(event.event.event.noise_multiplier, rel=1e-12)
    assert last.sampler == "poisson" and last.steps == 1 and last.sigma > full.sigma


@pytest.mark.parametrize(("strategy", "noise_multiplier", "message"), [
    (batch_selection.BMinSepSampling(0.2, 30, 3, truncated_batch_size=5), 1.0, "truncated_batch_size=5"),
    (batch_selection.CyclicPoissonSampling(0.2, 30, truncated_batch_size=5, cycle_length=3), 1.0,
     "truncated_batch_size=5"),
    (batch_selection.FixedBatchSampling(batch_size=5, iterations=30), 1.0, "got FixedBatchSampling"),
    (batch_selection.UserSelectionStrategy(batch_selection.BallsInBinsSampling(30, 6)), 1.0,
     "got UserSelectionStrategy"),
    (batch_selection.BallsInBinsSampling(30, 6), 0.0, "noise_multiplier must be finite and > 0"),
])
def test_monte_carlo_refusals(strategy, noise_multiplier, message):
    with pytest.raises(ValueError, match=message):
        matrix_run_from_monte_carlo(strategy, noise_multiplier, C2)


@pytest.mark.parametrize(("changes", "message"), [
    (dict(noise_multiplier=None, epsilon=2.0, delta=1e-5), "noise_multiplier is None"),
    (dict(column_normalize=True), "column_normalize"),
    (dict(truncated_batch_size=4, num_examples=100), "truncated_batch_size=4"),
    (dict(accountant=dpa.pld.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)), "REPLACE_ONE"),
])
def test_bandmf_config_refusals(changes, message):
    with pytest.raises(ValueError, match=message):
        matrix_run_from_bandmf_config(bandmf_config(**changes))


def test_bandmf_config_add_remove_with_independent_groups_is_accepted():
    config = bandmf_config(accountant=dpa.pld.PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE),
                           partition_type=batch_selection.PartitionType.INDEPENDENT)
    assert matrix_run_from_bandmf_config(config) == matrix_run_from_bandmf_config(bandmf_config())


@pytest.mark.parametrize("config", MONTE_CARLO_CONFIGS, ids=IDS)
def test_the_face_accounts_jax_privacys_configuration(config):
    """The adapter's Phase is the same run as its MatrixRun (its law, fields and coefficients), and
    the face answers it: b-min-sep and fixed bins with 3 bands have no certified bound (refused by
    method certified, named), and method monte_carlo answers with the MatrixRun's own samples."""
    from dpsampling import Accountant
    from dpsampling.accountants.matrix.face import monte_carlo_bounds
    from dpsampling.integrations.jax_privacy import phase_from_monte_carlo

    strategy, noise_multiplier, c_col = config
    phase = phase_from_monte_carlo(strategy, noise_multiplier, c_col)
    run = matrix_run_from_monte_carlo(strategy, noise_multiplier, c_col)
    assert phase.matrix_run() == run
    with pytest.raises(ValueError, match="no certified bound"):
        Accountant(phase)
    rows = Accountant(phase, method="monte_carlo", samples=2_000, seed=3).delta_bounds([1.0])
    bounds, _, _ = monte_carlo_bounds(run, "delta", np.array([1.0]), samples=2_000, beta=1e-3, seed=3)
    assert rows["delta_upper"].tolist() == bounds[0, :, 1].tolist()


def test_a_bandmf_plan_ending_inside_a_cycle_is_refused_by_the_face_and_accounted_by_its_run():
    from dpsampling.integrations.jax_privacy import phase_from_bandmf_config

    with pytest.raises(ValueError, match="whole number"):
        phase_from_bandmf_config(bandmf_config())  # 7 steps, cycles of 3
    assert certified_phases(matrix_run_from_bandmf_config(bandmf_config())) is not None
