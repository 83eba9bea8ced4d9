"""The chua25 Monte Carlo figure modules (fig2, fig3, fig4, epochs), each from its tiny-config block:
its sample sets, its curve settings, and its figure drawn from a summary made for real (a few
hundred samples per set, the cheap curves)."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from dpsampling.papers.chua25.privacy import (
    BOUND6_CURVE,
    CERTIFIED_CURVE,
    bounds_table,
    epsilon_grid,
    merge_delta,
    summary_table,
)
from dpsampling.papers.chua25.samples import sample_shard, write_shard
from dpsampling.papers.registry import EXPERIMENTS, load_experiment
from dpsampling.samplers import SAMPLERS

ROOT = Path(__file__).resolve().parents[3]
TINY = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
SETTINGS = {"pld": {"relative_accuracy": 0.01}}
FIGURES = ["chua25_fig2", "chua25_fig3", "chua25_fig4", "chua25_epochs"]
SERIES = {"chua25_fig2": {"order_statistics"}, "chua25_fig3": {"naive", "importance_e1.5"},
          "chua25_fig4": {"naive", "order_statistics"}, "chua25_epochs": {"naive_k2"}}


def _spec(experiment):
    return TINY["chua25"][experiment.removeprefix("chua25_")]


def test_the_monte_carlo_figures_are_registered_with_their_modules():
    figures = [e.id for e in EXPERIMENTS.values() if "chua25_privacy_figure" in e.families]
    assert figures == FIGURES
    assert [e.id for e in EXPERIMENTS.values() if "chua25_monte_carlo" in e.families] == FIGURES + ["chua25_props"]


@pytest.mark.parametrize("experiment", FIGURES)
def test_sample_sets_and_curve_settings_follow_the_config_block(experiment):
    module = load_experiment(experiment)
    spec = _spec(experiment)
    sets = module.sample_sets(spec)
    assert {s.experiment for s in sets} == {experiment}
    assert {s.series for s in sets} == SERIES[experiment]
    assert sorted(s.direction for s in sets) == ["add"] * (len(sets) // 2) + ["remove"] * (len(sets) // 2)
    panels = {s["panel"] for s in module.bounds_settings(spec)}
    assert {s.panel for s in sets} == panels
    assert set(module.CURVES) <= {*SAMPLERS, BOUND6_CURVE, CERTIFIED_CURVE}


@pytest.mark.parametrize("experiment", FIGURES)
def test_each_figure_is_drawn_from_a_summary_made_for_real(experiment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = load_experiment(experiment)
    spec = _spec(experiment)
    sets = module.sample_sets(spec)
    for sample_set in sets:
        for shard in range(sample_set.shards):
            parameters = sample_set.sampling_parameters(3, shard)
            parameters["samples"] = 100
            result, timing = sample_shard(parameters, "cpu")
            write_shard(result, parameters, timing, 1, sample_set.shard_path(shard))
    small = [type(s)(**dict(s.as_dict(), samples_per_shard=100)) for s in sets]
    delta = merge_delta(small, 3, epsilon_grid(spec), spec["error_prob"])
    curves = [c for c in module.CURVES if c != "certified"]  # the certified engine has its own tests
    bounds = bounds_table(curves, module.bounds_settings(spec), epsilon_grid(spec), SETTINGS)
    summary = summary_table(delta, bounds)
    assert np.isfinite(summary["delta"]).any()
    pdf, png = tmp_path / "f.pdf", tmp_path / "f.png"
    module.plot(summary, {"settings": SETTINGS, "certified": []}, pdf, png)
    assert pdf.stat().st_size > 1000 and png.stat().st_size > 1000
