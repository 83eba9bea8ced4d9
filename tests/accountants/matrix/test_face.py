"""Correlated noise on the face (issue 44): ``Phase.coefficients`` through ``Accountant``.

DP-SGD coefficients change nothing (bit for bit); a certified reduction is the engine's answer on
the reduced phase; a run without one is refused by the certified method and answered, labelled as
Monte Carlo, by method "monte_carlo". The statistical test is seeded; its false-failure
probability is stated where it is made."""

from __future__ import annotations

import numpy as np
import pytest

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.frames import statement
from dpsampling.accountants.matrix import MatrixRun, delta_estimates
from dpsampling.accountants.run import Phase
from dpsampling.samplers import SAMPLER_NAMES, SAMPLERS

SMALL_RUNS = {
    "deterministic": {"steps_per_epoch": 10, "epochs": 3},
    "shuffle": {"steps_per_epoch": 10, "epochs": 3},
    "poisson": {"sampling_rate": 0.1, "steps": 30},
    "balls_and_bins": {"steps_per_epoch": 10, "epochs": 3},
    "wor": {"sampling_rate": 0.1, "steps": 30},
    "cyclic_poisson": {"sampling_rate": 0.1, "steps_per_epoch": 2, "epochs": 15},
    "b_min_sep": {"sampling_rate": 0.1, "steps": 30, "min_separation": 1},
    "fixed_balls_and_bins": {"steps_per_epoch": 10, "epochs": 3},
}
CORRELATED = tuple(name for name in SAMPLER_NAMES if SAMPLERS[name].correlated_noise is not None)


def _bounds(frame) -> np.ndarray:
    return frame[[c for c in frame.columns if c.endswith(("_lower", "_upper"))]].to_numpy()


@pytest.mark.parametrize("sampler", SAMPLER_NAMES)
def test_coefficients_one_is_todays_answer_bit_for_bit(sampler):
    assert set(SMALL_RUNS) == set(SAMPLER_NAMES)  # a new sampler needs its small run here
    today = Phase(sampler, 1.5, **SMALL_RUNS[sampler])
    given = Phase(sampler, 1.5, coefficients=[1], **SMALL_RUNS[sampler])
    assert given == today and given.as_dict() == today.as_dict() and given.describe() == today.describe()
    assert "coefficients" not in given.as_dict()
    ours, theirs = Accountant(given).epsilon_bounds([1e-5]), Accountant(today).epsilon_bounds([1e-5])
    assert ours.equals(theirs) and ours.attrs == theirs.attrs


@pytest.mark.parametrize("sampler", CORRELATED)
def test_a_certified_reduction_is_the_engines_answer_on_the_reduced_phase(sampler):
    """One coefficient c_0 scales the sensitivity: the engine's answer at sigma / c_0, certified."""
    run = SMALL_RUNS[sampler]
    scaled = Accountant(Phase(sampler, 3.0, coefficients=[2.0], **run)).delta_bounds([0.5, 1.0])
    reduced = Accountant(Phase(sampler, 1.5, **run)).delta_bounds([0.5, 1.0])
    assert np.array_equal(_bounds(scaled), _bounds(reduced))
    dp_sgd_sigma = reduced.attrs.get("certified_reduction", [{"sigma": 1.5}])[0]["sigma"]  # the papers' samplers: 1.5
    assert scaled.attrs["method"] == "certified" and scaled.attrs["certified_reduction"][0]["sigma"] == dp_sgd_sigma
    assert scaled.attrs["phases"][0]["coefficients"] == [2.0]


def test_a_reduced_phase_composes_with_other_phases():
    poisson = Phase("poisson", 1.0, sampling_rate=0.1, steps=30)
    correlated = Phase("balls_and_bins", 4.0, coefficients=[2.0], steps_per_epoch=10, epochs=3)
    plain = Phase("balls_and_bins", 2.0, steps_per_epoch=10, epochs=3)
    ours = Accountant([poisson, correlated]).delta_bounds([1.0])
    assert np.array_equal(_bounds(ours), _bounds(Accountant([poisson, plain]).delta_bounds([1.0])))


def test_a_run_without_certified_reduction_is_refused_naming_monte_carlo():
    phase = Phase("balls_and_bins", 1.0, coefficients=[1.0, 0.5], steps_per_epoch=10, epochs=2)
    with pytest.raises(ValueError, match="no certified bound for this run.*method='monte_carlo'"):
        Accountant(phase)
    with pytest.raises(ValueError, match="no certified bound"):
        Accountant([phase, Phase("poisson", 1.0, sampling_rate=0.1, steps=10)])


def test_the_monte_carlo_answer_is_the_matrix_estimate_labelled_not_certified():
    coefficients = [1.0, 0.5]
    phase = Phase("balls_and_bins", 1.0, coefficients=coefficients, steps_per_epoch=10, epochs=2)
    frame = Accountant(phase, method="monte_carlo", samples=3_000, error_prob=1e-3, seed=5).delta_bounds([1.0, 2.0])
    table = delta_estimates(MatrixRun(coefficients, "balls_and_bins", 1.0, 20, cycle_length=10), [1.0, 2.0],
                            samples=3_000, beta=1e-3, seed=5)
    expected = table.set_index(["epsilon", "direction"]).loc[list(zip(frame["epsilon"], frame["direction"]))]
    assert np.array_equal(frame["delta_upper"].to_numpy(), expected["upper"].to_numpy())
    assert np.array_equal(frame["delta_lower"].to_numpy(), expected["lower"].to_numpy())
    assert frame.attrs["method"] == "monte_carlo"
    assert "not certified" in frame.attrs["method_label"] and "1 - 0.002" in frame.attrs["method_label"]
    assert frame.attrs["computation"]["samples"] == 3_000
    sentence = statement(frame)
    assert "Monte Carlo upper confidence bound" in sentence and "certified upper bound" not in sentence


def test_the_monte_carlo_eps_answer_inverts_its_delta_bounds():
    """eps_upper(delta) is the smallest eps whose delta upper bound is <= delta (to the bisection's width)."""
    phase = Phase("balls_and_bins", 1.0, coefficients=[1.0, 0.5], steps_per_epoch=5, epochs=2)
    accountant = Accountant(phase, method="monte_carlo", samples=2_000, seed=2)
    eps = accountant.epsilon_bounds([0.05]).set_index("direction")
    at_upper = accountant.delta_bounds([eps.loc["max", "epsilon_upper"]]).set_index("direction")
    below = accountant.delta_bounds([0.999 * eps.loc["max", "epsilon_upper"]]).set_index("direction")
    assert at_upper.loc["max", "delta_upper"] <= 0.05 < below.loc["max", "delta_upper"]
    assert eps.loc["max", "epsilon_lower"] < eps.loc["max", "epsilon_upper"]


@pytest.mark.parametrize(("sampler", "sigma", "seed"), [("balls_and_bins", 0.8, 11), ("fixed_balls_and_bins", 1.1, 12)])
def test_the_monte_carlo_bracket_meets_the_certified_one(sampler, sigma, seed):
    """c = (1, 0) is DP-SGD with two bands: the Monte Carlo of the matrix pair and the certified
    engine (for fixed bins its reduction, one epoch of balls-and-bins at sigma / sqrt(E)) bound the
    same delta. Seeded; each of the 2 x 2 x 2 confidence bounds fails with probability <= 1e-6, so
    each case fails falsely with probability <= 8e-6."""
    run = {"steps_per_epoch": 4, "epochs": 2}
    epsilons = [0.5, 1.0]
    mc = Accountant(Phase(sampler, sigma, coefficients=[1.0, 0.0], **run), method="monte_carlo",
                    samples=4_000, error_prob=1e-6, seed=seed).delta_bounds(epsilons)
    certified = Accountant(Phase(sampler, sigma, **run), accuracy=1e-3).delta_bounds(epsilons)
    for row, exact in zip(mc.itertuples(), certified.itertuples()):
        assert row.delta_lower <= exact.delta_upper and exact.delta_lower <= row.delta_upper, (row, exact)


MATRIX_ONLY = tuple(name for name in SAMPLER_NAMES if SAMPLERS[name].matrix_only)


@pytest.mark.parametrize("sampler", MATRIX_ONLY)
def test_a_correlated_noise_sampler_is_its_matrix_run_on_the_face(sampler):
    """A phase of a correlated-noise sampler is accounted as its MatrixRun, coefficients [1] too:
    the registry's law, its fields; where certified_phases reduces it, the engine's answer on them."""
    from dpsampling.accountants.matrix import certified_phases

    separation = {"min_separation": 2} if "min_separation" in SMALL_RUNS[sampler] else {}  # room for two bands
    phase = Phase(sampler, 1.5, coefficients=[1.0, 0.5], **{**SMALL_RUNS[sampler], **separation})
    run = phase.matrix_run()
    assert run.sampler == SAMPLERS[sampler].correlated_noise and run.steps == 30 and run.coefficients == (1.0, 0.5)
    assert run.cycle_length == phase.steps_per_epoch and run.sampling_rate == phase.sampling_rate
    assert run.min_separation == phase.min_separation
    dp_sgd = Phase(sampler, 1.5, **SMALL_RUNS[sampler])
    reduction = certified_phases(dp_sgd.matrix_run())
    assert reduction is not None  # every small run with coefficients [1] has its certified reduction
    ours = Accountant(dp_sgd).delta_bounds([1.0])
    assert np.array_equal(_bounds(ours), _bounds(Accountant(reduction).delta_bounds([1.0])))
    assert ours.attrs["certified_reduction"] == [p.as_dict() for p in reduction]


def test_cyclic_poisson_is_certified_with_bands_up_to_its_cycle_length():
    """Bands <= k: ceil(T / k) Poisson steps at sigma / ||c|| (docs/MATRIX.md); bands > k: refused
    by the certified method (and without a Monte Carlo here)."""
    run = {"sampling_rate": 0.1, "steps_per_epoch": 2, "epochs": 15}
    banded = Accountant(Phase("cyclic_poisson", 2.0, coefficients=[1.0, 0.5], **run)).epsilon_bounds([1e-5])
    poisson = Phase("poisson", 2.0 / np.sqrt(1.25), sampling_rate=0.1, steps=15)
    assert np.array_equal(_bounds(banded), _bounds(Accountant(poisson).epsilon_bounds([1e-5])))
    too_long = Phase("cyclic_poisson", 2.0, coefficients=[1.0, 0.5, 0.25], **run)
    with pytest.raises(ValueError, match="there is no certified bound for this run: cyclic_poisson"):
        Accountant(too_long)
    with pytest.raises(ValueError, match="has no Monte Carlo here"):
        Accountant(too_long, method="monte_carlo")


def test_b_min_sep_without_a_reduction_is_refused_by_certified_and_answered_by_monte_carlo():
    phase = Phase("b_min_sep", 1.2, sampling_rate=0.2, steps=20, min_separation=2, warm_start=True)
    with pytest.raises(ValueError, match="there is no certified bound for this run: b_min_sep, sigma 1.2: 20 steps at "
                                         "sampling rate 0.2, minimum separation 2, warm start"):
        Accountant(phase)
    frame = Accountant(phase, method="monte_carlo", samples=2_000, seed=3).delta_bounds([1.0])
    assert frame.attrs["method"] == "monte_carlo" and "not certified" in frame.attrs["method_label"]
    assert frame.attrs["phases"][0]["min_separation"] == 2 and frame.attrs["phases"][0]["warm_start"] is True
    assert (frame["delta_lower"] <= frame["delta_upper"]).all()


@pytest.mark.parametrize(("sampler", "options", "message"), [
    ("poisson", {"sampling_rate": 0.1, "steps": 3, "min_separation": 2}, "min_separation applies to sampler b_min_sep only"),
    ("b_min_sep", {"sampling_rate": 0.1, "steps": 3}, "min_separation must be given for sampler b_min_sep"),
    ("b_min_sep", {"sampling_rate": 0.1, "steps": 3, "min_separation": 2, "warm_start": 1}, "warm_start must be True"),
    ("b_min_sep", {"sampling_rate": 0.1, "steps": 3, "min_separation": 1, "coefficients": [1, 1]},
     "coefficients must have at most min_separation=1 entries"),
    ("cyclic_poisson", {"sampling_rate": 0.1, "steps": 4}, "steps_per_epoch must be given for sampler cyclic_poisson"),
    ("cyclic_poisson", {"dataset_size": 10, "batch_size": 2, "steps_per_epoch": 5, "epochs": 1},
     "dataset_size must not be given for sampler cyclic_poisson"),
    ("fixed_balls_and_bins", {"sampling_rate": 0.1, "steps_per_epoch": 5, "epochs": 1}, "sampling_rate applies to"),
])
def test_the_correlated_noise_samplers_fields_are_checked_once(sampler, options, message):
    with pytest.raises(ValueError, match=message):
        Phase(sampler, 1.0, **options)


@pytest.mark.parametrize(("phase", "options", "message"), [
    (("shuffle", 1.0), {"coefficients": [1, 0.5], "steps_per_epoch": 10, "epochs": 1}, "coefficients must be \\[1\\]"),
    (("balls_and_bins", 1.0), {"coefficients": [1, -0.5], "steps_per_epoch": 10, "epochs": 1}, "non-negative"),
    (("balls_and_bins", 1.0), {"coefficients": [0, 1], "steps_per_epoch": 10, "epochs": 1}, "coefficients\\[0\\]"),
    (("balls_and_bins", 1.0), {"coefficients": [], "steps_per_epoch": 10, "epochs": 1}, "non-empty"),
])
def test_bad_coefficients_are_refused_in_one_line(phase, options, message):
    with pytest.raises(ValueError, match=message):
        Phase(*phase, **options)


def test_monte_carlo_options_are_refused_where_they_do_not_apply():
    dp_sgd = Phase("balls_and_bins", 1.0, steps_per_epoch=10, epochs=1)
    with pytest.raises(ValueError, match="method monte_carlo applies to one phase with correlated noise"):
        Accountant(dp_sgd, method="monte_carlo")
    with pytest.raises(ValueError, match="samples applies to method monte_carlo only"):
        Accountant(dp_sgd, samples=100)
    banded_poisson = Phase("poisson", 1.0, coefficients=[1, 0.5], sampling_rate=0.1, steps=10)
    with pytest.raises(ValueError, match="no certified bound"):
        Accountant(banded_poisson)
    with pytest.raises(ValueError, match="cyclic_poisson has no Monte Carlo"):
        Accountant(banded_poisson, method="monte_carlo")
    correlated = Phase("balls_and_bins", 1.0, coefficients=[1, 0.5], steps_per_epoch=10, epochs=1)
    with pytest.raises(ValueError, match="error_prob must be"):
        Accountant(correlated, method="monte_carlo", error_prob=2.0)


def test_calibrating_a_certified_reduction_scales_sigma_by_the_column_norm():
    """coefficients (2,) double the sensitivity: the bisection (in log sigma, from 1) finds twice the sigma."""
    from dpsampling.accountants.calibrate import calibrate_sigma

    run = {"sampling_rate": 0.01, "steps": 100}
    correlated = calibrate_sigma(Phase("poisson", 1.0, coefficients=[2.0], **run), 1.0, 1e-5)
    plain = calibrate_sigma(Phase("poisson", 1.0, **run), 1.0, 1e-5)
    assert correlated.method == "certified" and correlated.sigma == 2 * plain.sigma
    assert correlated.phases[0].coefficients == (2.0,)


def test_a_monte_carlo_calibration_meets_its_target_by_its_own_bound_and_says_so():
    from dpsampling.accountants.calibrate import calibrate_sigma

    phase = Phase("balls_and_bins", 1.0, coefficients=[1, 0.5], steps_per_epoch=5, epochs=2)
    with pytest.raises(ValueError, match="no certified bound"):
        calibrate_sigma(phase, 2.0, 1e-2)
    options = {"method": "monte_carlo", "samples": 2_000, "seed": 3}
    answer = calibrate_sigma(phase, 2.0, 1e-2, rtol=0.01, **options)
    assert answer.method == "monte_carlo" and answer.sigma_shown_insufficient is None
    assert answer.error_probability == 2 * 1e-3 * answer.evaluations
    assert "not certified" in answer.attrs()["method_label"]
    at_sigma = Accountant(phase.with_sigma(answer.sigma), **options).delta_bounds([2.0]).set_index("direction")
    below = Accountant(phase.with_sigma(answer.sigma_not_shown_sufficient), **options).delta_bounds([2.0])
    assert at_sigma.loc["max", "delta_upper"] <= 1e-2 < below.set_index("direction").loc["max", "delta_upper"]
    assert answer.epsilon_upper <= 2.0


def test_knobs_and_schedules_keep_the_coefficients(tmp_path):
    from dpsampling.accountants.knobs import calibrate_knob
    from dpsampling.accountants.schedule import ScheduleError, load_schedule

    correlated = Phase("balls_and_bins", 2.0, coefficients=[2.0], steps_per_epoch=5, epochs=2)
    answer = calibrate_knob(correlated, "epochs", 3.0, 1e-5)
    assert all(phase.coefficients == (2.0,) for phase in answer.phases)
    plain = calibrate_knob(Phase("balls_and_bins", 1.0, steps_per_epoch=5, epochs=2), "epochs", 3.0, 1e-5)
    assert answer.value == plain.value
    path = tmp_path / "run.yaml"
    path.write_text("phases:\n  - {sampler: balls_and_bins, sigma: 2.0, steps_per_epoch: 5, epochs: 2, "
                    "coefficients: [1, 5e-1]}\n")
    assert load_schedule(path)[0].coefficients == (1.0, 0.5)
    path.write_text("phases:\n  - {sampler: balls_and_bins, sigma: 2.0, steps_per_epoch: 5, epochs: 2, "
                    "coefficients: '1,2'}\n")
    with pytest.raises(ScheduleError, match="field 'coefficients' is '1,2'; allowed: a list of numbers"):
        load_schedule(path)


@pytest.mark.parametrize("method", ["dp_accounting", "rdp"])
def test_a_reference_method_refuses_correlated_noise(method):
    phase = Phase("poisson", 2.0, coefficients=[2.0], sampling_rate=0.01, steps=10)
    with pytest.raises(ValueError, match=f"method {method} does not account correlated noise"):
        Accountant(phase, method=method)


@pytest.mark.parametrize("run", [
    MatrixRun([1, 0.5], "balls_and_bins", 1.0, 20, cycle_length=10),
    MatrixRun([1, 0.5], "fixed_balls_and_bins", 1.0, 30, cycle_length=10),
    MatrixRun([1, 0.5], "cyclic_poisson", 1.0, 21, cycle_length=3, sampling_rate=0.1),
    MatrixRun([1, 0.5], "b_min_sep", 1.0, 20, min_separation=2, sampling_rate=0.1, warm_start=True),
])
def test_phase_of_a_matrix_run_is_its_inverse(run):
    from dpsampling.accountants.matrix.face import phase_of

    phase = phase_of(run)
    assert phase.matrix_run() == run and phase.spec.matrix_only == (run.sampler != "balls_and_bins")
