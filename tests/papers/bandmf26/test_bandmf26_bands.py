"""bandmf26_bands: its coefficients, its setting, the Monte Carlo eps interval (against certified and
closed-form values), its claims' measures, its figure's legend and its cost model entry."""

import math

import numpy as np
import pandas as pd
import pytest

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.closed_form.gaussian import gaussian_epsilon_bounds
from dpsampling.accountants.matrix import certified_phases, delta_estimates
from dpsampling.papers.bandmf26 import bands
from dpsampling.pipeline.claims.base import Missing
from dpsampling.pipeline.estimate import Rates

SMALL = {"steps_per_epoch": 4, "epochs": 2, "sigma": 1.0, "bands": [1, 2, 4], "delta": 1e-2, "samples": 20_000,
         "beta": 1e-3, "epsilon_grid": {"start": 0.0, "stop": 8.0, "num": 161}, "accuracy": 1e-2}


def test_coefficients_are_the_normalised_square_root_of_the_prefix_sum():
    """c * c = (1, 1, 1, ...) before normalising: (1 - x)^(-1/2) squared is (1 - x)^(-1)."""
    column = bands.square_root_coefficients(6)
    assert math.isclose(np.sum(column**2), 1.0, rel_tol=1e-12)
    raw = column / column[0]
    np.testing.assert_allclose(raw[:4], [1.0, 0.5, 0.375, 0.3125], rtol=1e-12)
    np.testing.assert_allclose(np.convolve(raw, raw)[:6], np.ones(6), rtol=1e-12)
    assert list(bands.square_root_coefficients(1)) == [1.0]  # b = 1 is DP-SGD, bit for bit


@pytest.mark.parametrize("b", [1, 2, 3, 4])
def test_every_sampler_has_one_expected_participation_per_k_steps(b):
    k = SMALL["steps_per_epoch"]
    assert bands.matrix_run(SMALL, "balls_and_bins", b).cycle_length == k
    cyclic = bands.matrix_run(SMALL, "cyclic_poisson", b)
    assert cyclic.cycle_length == b and math.isclose(cyclic.sampling_rate / cyclic.cycle_length, 1 / k)
    min_sep = bands.matrix_run(SMALL, "b_min_sep", b)
    p = min_sep.sampling_rate
    assert min_sep.min_separation == b and math.isclose(1 / (b - 1 + 1 / p), 1 / k)  # stationary rate


def test_bands_above_the_cycle_are_refused():
    with pytest.raises(ValueError, match="bands must be in 1..steps_per_epoch=4"):
        bands.matrix_run(SMALL, "balls_and_bins", 5)


def _table(upper, lower, estimate, grid=(0.0, 1.0, 2.0, 3.0)):
    return pd.DataFrame({"epsilon": list(grid) * 2, "direction": ["remove"] * 4 + ["max"] * 4,
                         "upper": [9.0] * 4 + upper, "lower": [9.0] * 4 + lower, "estimate": [9.0] * 4 + estimate})


def test_monte_carlo_epsilons_read_the_max_rows():
    table = _table(upper=[0.5, 0.2, 0.05, 0.01], lower=[0.3, 0.08, 0.01, 0.001], estimate=[0.4, 0.1, 0.03, 0.005])
    assert bands.monte_carlo_epsilons(table, 0.06) == (1.0, 2.0, 2.0)
    assert bands.monte_carlo_epsilons(table, 0.005) == (2.0, 3.0, math.inf)  # U above delta on the whole grid
    assert bands.monte_carlo_epsilons(table, 0.9)[0] == 0.0  # no L above delta: only eps >= 0


def _mc_row(spec, sampler, b, seed):
    run = bands.matrix_run(spec, sampler, b)
    table = delta_estimates(run, bands.epsilon_grid(spec), samples=spec["samples"], beta=spec["beta"], seed=seed)
    return bands.monte_carlo_epsilons(table, spec["delta"])


@pytest.mark.parametrize("sampler", ["balls_and_bins", "b_min_sep"])
def test_monte_carlo_interval_holds_the_certified_eps_at_one_band(sampler):
    """Seeded; fails with probability <= 4 beta = 0.004 (each end 2 beta, module docstring)."""
    lower, estimate, upper = _mc_row(SMALL, sampler, 1, seed=7)
    bracket = Accountant(certified_phases(bands.matrix_run(SMALL, sampler, 1))).epsilon_bounds([SMALL["delta"]])
    row = bracket[bracket["direction"] == "max"].iloc[0]
    assert lower < row["epsilon_upper"] and row["epsilon_lower"] <= upper
    assert lower <= estimate <= upper and upper - lower < 1.0  # 20,000 samples resolve it


def test_monte_carlo_interval_holds_the_gaussian_eps_of_deterministic_b_min_sep():
    """b = k: p = 1, a participation every k steps, disjoint unit shifts: the Gaussian mechanism of
    sensitivity sqrt(E). Seeded; fails with probability <= 4 beta = 0.004."""
    lower, _, upper = _mc_row(SMALL, "b_min_sep", 4, seed=11)
    exact_lower, exact_upper = gaussian_epsilon_bounds(SMALL["delta"], SMALL["sigma"], math.sqrt(SMALL["epochs"]))
    assert lower < exact_upper and exact_lower <= upper
    wrong_lower, wrong_upper = gaussian_epsilon_bounds(SMALL["delta"], SMALL["sigma"], 1.0)  # one participation
    assert wrong_upper < lower  # the check would see a wrong sensitivity


def test_point_seeds_differ_and_the_parameters_name_the_version():
    seeds = {bands.point_seed(1, s, b) for s in bands.COMPARED_SAMPLERS for b in range(1, 5)}
    assert len(seeds) == 12 and bands.point_seed(2, "b_min_sep", 1) != bands.point_seed(1, "b_min_sep", 1)
    parameters = bands.monte_carlo_parameters(SMALL, 1, "b_min_sep")
    assert parameters["algorithm_version"] >= 1 and parameters["samples"] == SMALL["samples"]
    with pytest.raises(ValueError, match="sampler must be one of balls_and_bins, b_min_sep"):
        bands.monte_carlo_parameters(SMALL, 1, "cyclic_poisson")


def _claim(suffix):
    return next(c for c in bands.CLAIMS if c.claim_id == f"{bands.EXPERIMENT_ID}_{suffix}")


def test_the_claims_measure_the_gap_between_intervals_and_can_fail():
    spec = dict(SMALL, samples=4_000)
    points = [bands.monte_carlo_points(bands.monte_carlo_parameters(spec, 3, s), progress=lambda m: None)
              for s in bands.MONTE_CARLO_SAMPLERS]
    table = bands.eps_table(spec, points, progress=lambda m: None)
    for suffix in ("ballsbins_b1", "bminsep_b1", "bminsep_bk", "cyclic_bk", "cyclic_b1"):
        assert _claim(suffix).measure(table)[0] == 0.0, suffix  # seeded; each fails w.p. <= 4 beta
    shifted = table.copy()
    mc = (shifted["sampler"] == "balls_and_bins") & (shifted["method"] == bands.MONTE_CARLO)
    shifted.loc[mc, ["epsilon_lower", "epsilon_upper"]] += 5.0
    gap = _claim("ballsbins_b1").measure(shifted)[0]
    certified = table[(table["sampler"] == "balls_and_bins") & (table["method"] == bands.CERTIFIED)].iloc[0]
    assert gap == pytest.approx(table.loc[mc].iloc[0]["epsilon_lower"] + 5.0 - certified["epsilon_upper"])
    with pytest.raises(Missing):
        _claim("bminsep_bk").measure(table[table["sampler"] != bands.GAUSSIAN_REFERENCE])


def test_the_legend_says_certified_or_monte_carlo_per_sampler(monkeypatch):
    frame = pd.DataFrame([
        {"sampler": "balls_and_bins", "bands": 1, "method": bands.CERTIFIED, "epsilon_lower": 1.0, "epsilon_upper": 1.1},
        {"sampler": "balls_and_bins", "bands": 2, "method": bands.MONTE_CARLO, "epsilon_lower": 1.2,
         "epsilon_upper": 1.5},
        {"sampler": "cyclic_poisson", "bands": 1, "method": bands.CERTIFIED, "epsilon_lower": 1.3, "epsilon_upper": 1.4}])
    captured = {}
    monkeypatch.setattr(bands, "save_figure", lambda fig, footer, *paths, **kw: captured.update(fig=fig))
    bands.plot(frame, SMALL, "unused.pdf", "unused.png")
    labels = [t.get_text() for t in captured["fig"].axes[0].get_legend().get_texts()]
    assert sorted(labels) == sorted([f"{bands.LABELS['balls_and_bins']}: certified (engine via a reduction)",
                                     f"{bands.LABELS['balls_and_bins']}: Monte Carlo, upper at 1 - 0.002 (bar: interval)",
                                     f"{bands.LABELS['cyclic_poisson']}: certified (engine via a reduction)"])


class _KeysOnly(Rates):
    """Records what would be calibrated, times nothing."""

    def __init__(self):
        super().__init__(use_benchmarks=False)
        self.keys = []

    def calibrate(self, key, timing):
        self.keys.append(key)
        return 1e-9, "fixed"


def test_the_cost_model_counts_samples_directions_steps_and_bands():
    config = {"bandmf26": {"bands": dict(SMALL, samples=20_000)}}
    work = bands.bands_work(bands.EXPERIMENT_ID, config, Rates(use_benchmarks=False))
    assert work.units == 2 * 20_000 * 2 * 8 * (1 + 2 + 4)
    assert 0 < work.seconds_per_unit < 1e-3 and work.source.startswith("calibration")
    rates = _KeysOnly()
    bands.bands_work(bands.EXPERIMENT_ID, config, rates)  # T b = 32: every sample timed (20,000 < 2e7 / 32)
    bands.bands_work(bands.EXPERIMENT_ID, {"bandmf26": {"bands": dict(SMALL, steps_per_epoch=100_000,
                                                                      bands=[100_000])}}, rates)
    assert rates.keys == [f"{bands.EXPERIMENT_ID} (20,000 samples per direction, b = 4)",
                                    f"{bands.EXPERIMENT_ID} (200 samples per direction, b = 100000)"]
