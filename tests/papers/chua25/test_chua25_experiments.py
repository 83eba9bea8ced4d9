"""The chua25 Monte Carlo figure modules (fig2, fig3, fig4, epochs), each from its tiny-config block:
its sample sets, its curve settings, and its figure drawn from a summary made for real (a few
hundred samples per set, the cheap curves); each figure is the one panel function
(``plots.plot_panels``) with its ``PanelFigure``, whose curves, labels, colours and data are checked
on a synthetic summary."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dpsampling.papers.chua25 import plots
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


def _synthetic_summary(panels, epochs=(1,)) -> pd.DataFrame:
    """Every curve of ``STYLE`` in every panel, k and direction: delta = panel index + 1, times a
    distinct factor per curve (so a curve drawn from the wrong rows shows), falling in eps."""
    eps = np.linspace(0.0, 4.0, 5)
    frames = []
    for index, panel in enumerate(panels):
        for k in epochs:
            for number, key in enumerate(plots.STYLE):
                for direction in ("remove", "add", "max"):
                    delta = (index + 1) * 10.0 ** -(number + 1) * np.exp(-eps) * (2 if direction == "max" else 1) / k
                    frames.append(pd.DataFrame({
                        "panel": panel, "sampler": key[0], "method": key[1], "bound": key[2], "direction": direction,
                        "epsilon": eps, "delta": delta, "sigma": 0.5, "steps": 100, "epochs": k, "samples": 1000,
                        "error_prob": 1e-3, "n_orders": 7, "orders": "1..7", "standard_error": delta / 10,
                        "sampling_cpu_seconds": 1.0,
                        "importance_epsilon": 1.5 if key[1] == "MC importance" else np.nan}))
    return pd.concat(frames, ignore_index=True)


def _drawn(module, summary, monkeypatch, tmp_path):
    """The figure ``module.plot`` writes, caught before it is saved, and its footer."""
    caught = {}

    def catch(fig, footer, path_pdf, path_png, rect=(0, 0.05, 1, 1)):
        caught.update(fig=fig, footer=footer)

    monkeypatch.setattr(plots, "save_figure", catch)
    module.plot(summary, {"settings": SETTINGS, "certified": []}, tmp_path / "f.pdf", tmp_path / "f.png")
    return caught["fig"], caught["footer"]


@pytest.mark.parametrize("experiment", FIGURES)
def test_every_privacy_figure_is_the_one_panel_function_with_its_parameters(experiment, monkeypatch, tmp_path):
    """plot is plot_panels(FIGURE, ...): patching the one function redraws every figure."""
    module = load_experiment(experiment)
    assert isinstance(module.FIGURE, plots.PanelFigure)
    calls = []
    monkeypatch.setattr(module, "plot_panels", lambda *args: calls.append(args))
    module.plot("summary", "parameters", "f.pdf", "f.png")
    assert calls == [(module.FIGURE, "summary", "parameters", "f.pdf", "f.png")]


@pytest.mark.parametrize("experiment, curves", [
    ("chua25_fig2", [plots.B_CERTIFIED_UPPER, plots.B_CERTIFIED_LOWER, plots.P_UPPER, plots.P_LOWER, plots.S_LOWER,
                     plots.B_BOUND6, plots.B_ORDER_MEAN, plots.B_ORDER_UCB]),
    ("chua25_fig3", [plots.B_BOUND6, plots.B_NAIVE_UCB, plots.B_IMPORTANCE_UCB, *plots.CERTIFIED]),
    ("chua25_fig4", [plots.B_BOUND6, plots.B_NAIVE_UCB, plots.B_ORDER_UCB, *plots.CERTIFIED])])
def test_a_panel_figure_draws_its_curves_from_their_rows(experiment, curves, monkeypatch, tmp_path):
    """Each panel: its curves in order, labelled and coloured by STYLE, each the 'max' rows of its
    own key in that panel; the titles name the panel; fig2 adds the Monte Carlo floor and a heading."""
    summary = _synthetic_summary(["left", "right"])
    fig, footer = _drawn(load_experiment(experiment), summary, monkeypatch, tmp_path)
    assert footer.startswith(f"{experiment}. ")
    for index, (ax, panel) in enumerate(zip(fig.axes, ["left", "right"])):
        lines = ax.get_lines()
        assert [line.get_label() for line in lines[:len(curves)]] == [plots.STYLE[key][0] for key in curves]
        assert [line.get_color() for line in lines[:len(curves)]] == [plots.STYLE[key][1] for key in curves]
        for line, key in zip(lines, curves):
            number = list(plots.STYLE).index(key)
            np.testing.assert_allclose(line.get_ydata(), 2 * (index + 1) * 10.0 ** -(number + 1) * np.exp(-line.get_xdata()))
        assert ax.get_title() == f"{panel}: sigma = 0.5, T = 100" and ax.get_yscale() == "log"
        extra = [line.get_label() for line in lines[len(curves):]]
        assert extra == (["MC floor log(1/beta)/m at 1,000 samples (UCB cannot go below)"]
                         if experiment == "chua25_fig2" else [])
    assert (fig._suptitle is not None) == (experiment == "chua25_fig2")


def test_the_epochs_figure_draws_every_curve_once_per_k(monkeypatch, tmp_path):
    summary = _synthetic_summary(["sigma0.5"], epochs=(1, 2, 4))
    fig, _ = _drawn(load_experiment("chua25_epochs"), summary, monkeypatch, tmp_path)
    (ax,) = fig.axes
    lines = ax.get_lines()
    texts = ["B: upper conf. bound (MC naive)", "B: estimate (MC mean)", "P: certified upper bound (PLD)",
             "B: certified upper bound (PLD)", "B: certified lower bound (PLD)"]
    assert [line.get_label() for line in lines] == [f"{text}, k = {k}" for k in (1, 2, 4) for text in texts]
    assert len({tuple(line.get_color()) for line in lines}) == 3  # one colour per k
    assert [line.get_linestyle() for line in lines[:4]] == ["--", "-", ":", "-."]  # the fifth a dash-dot-dot
    np.testing.assert_allclose(lines[-1].get_ydata(), 2 * 10.0 ** -(list(plots.STYLE).index(plots.B_CERTIFIED_LOWER) + 1)
                               * np.exp(-lines[-1].get_xdata()) / 4)
    assert ax.get_title() == "sigma = 0.5, T = 100 per epoch, k epochs"
