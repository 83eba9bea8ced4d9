"""chua25 Fig. 2: delta vs eps per panel (pCTR and search, b = 1024 and 8192): delta_P (PLD),
delta_S lower bound (E_C), delta_B lower bound (6), certified delta_B bounds, and the Monte Carlo
mean and UCB of delta_B by order statistics (config ``chua25.fig2``).

Sampled: one order-statistics sample set per panel and direction (``sample_sets``), evaluated at
every eps of the grid. Curves: ``CURVES`` at each panel's (sigma, T). Plot: ``plot``. Claims, with
their criteria:

- Fig. 2 "UCB on delta_B below delta_P except where delta_P < 1e-7": per panel, the number of
  grid eps with delta_P >= 1e-7 at which UCB_B >= delta_P (max direction); the paper's statement
  means 0. delta_P is the PLD upper bound, which moves by < 0.1% when the interval shrinks 20x,
  while the PLD lower bound converges to it slowly over tens of thousands of compositions; the
  count against the lower bound is in the note.
- Fig. 2, the same statement judged with the certified upper bound on delta_B (PLD of the
  random-allocation pair) in place of the UCB: the number of grid eps with delta_P >= 1e-7 at
  which the certified upper bound on delta_B >= delta_P (PLD upper); 0 means the statement holds
  with certainty at every such eps. It has no Monte Carlo floor log(1/beta)/m, so the quick
  config can answer it. The note counts the eps where even the certified *lower* bound on delta_B
  is >= delta_P's PLD upper bound, i.e. where delta_B > delta_P is certain.
- Fig. 2 "delta_S lower bound far above both": per panel, the smallest ratio of the E_C lower
  bound on delta_S to max(PLD upper bound of delta_P, MC mean of delta_B) over the grid eps where
  that maximum is <= 0.01, i.e. wherever an order of magnitude fits below delta_S <= 1; "far
  above" read as >= 10. (Revised after a first run: the first criterion, >= 10 at every eps,
  cannot hold at eps = 0, where delta_P is 0.1-0.3 and delta_S at most 1.)
- Fig. 2 "B lower bound close to the MC mean": per panel, the largest ratio MC mean / bound (6)
  over the grid eps where the mean's relative standard error is <= 0.1; "close" read as <= 2
  (the mean is from order statistics, itself pessimistic).
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd

from dpsampling.papers.chua25.claims import n_orders, select_rows, ucb_floor
from dpsampling.papers.chua25.plots import (
    B_BOUND6,
    B_CERTIFIED_LOWER,
    B_CERTIFIED_UPPER,
    B_ORDER_MEAN,
    B_ORDER_UCB,
    CERTIFIED,
    P_LOWER,
    P_UPPER,
    S_LOWER,
    Curve,
    PanelFigure,
    certified_text,
    mc_info,
    plot_panels,
    settings_text,
    ucb_floor_line,
)
from dpsampling.papers.chua25.privacy import BOUND6_CURVE, CERTIFIED_CURVE, panel_settings
from dpsampling.papers.chua25.samples import SampleSet, series_sets
from dpsampling.papers.chua25.workflow import chua25_tests, monte_carlo_experiment
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.samplers import POISSON, SHUFFLE

EXPERIMENT_ID = "chua25_fig2"

# --- what is sampled ------------------------------------------------------------------------


def sample_sets(spec: dict) -> list[SampleSet]:
    """One order-statistics sample set per panel and direction (config chua25.fig2)."""
    sets: list[SampleSet] = []
    for setting in spec["panels"]:
        sets += series_sets(EXPERIMENT_ID, setting["name"], setting, "order_statistics", "order_statistics",
                            spec["order_statistics"])
    return sets


# --- the deterministic curves beside them ---------------------------------------------------

CURVES = (POISSON.name, SHUFFLE.name, BOUND6_CURVE, CERTIFIED_CURVE)
bounds_settings = panel_settings


# --- the figure ----------------------------------------------------------------------------


def _floor_line(ax, summary, panel) -> None:
    info = mc_info(summary, panel, "MC order statistics")
    ucb_floor_line(ax, math.log(1 / float(info["error_prob"])) / float(info["samples"]), int(info["samples"]))


def _heading(summary) -> str:
    sigmas = sorted({float(s) for s in summary["sigma"].dropna()})
    return (f"sigma = {', '.join(f'{s:g}' for s in sigmas)} in {'every panel' if len(sigmas) == 1 else 'the panels'}"
            " (not stated in the paper; chosen by us from Fig. 1's set)")


def _footer(summary, parameters) -> str:
    infos = {panel: mc_info(summary, panel, "MC order statistics") for panel in dict.fromkeys(summary["panel"])}
    orders_text = [f"{panel}: {int(info['n_orders'])} orders ({info['orders']})" for panel, info in infos.items()]
    info = next(iter(infos.values()))
    return (f"chua25_fig2. DEPARTS from the paper: sigma not stated there (ours, config chua25.fig2.panels.*.sigma); "
            f"{int(info['samples']):,} Monte Carlo samples per direction (the paper: 5e8; the UCB floor "
            f"log(1/beta)/m is {math.log(1 / float(info['error_prob'])) / float(info['samples']):.2g} here, 1.4e-8 "
            "there), so above the floor only the certified B bounds (not in the paper) show where B is below P. "
            f"B Monte Carlo: order statistics sampling (Alg. 6), one sample set evaluated at every eps; UCB at beta = "
            f"{info['error_prob']:g} (pointwise in eps). Orders: {'; '.join(orders_text)}. " + settings_text(parameters)
            + certified_text(parameters))


FIGURE = PanelFigure(tuple(Curve(key) for key in (*CERTIFIED, P_UPPER, P_LOWER, S_LOWER, B_BOUND6, B_ORDER_MEAN,
                                                  B_ORDER_UCB)),
                     _footer, bottom=0.2, shared_legend=True, decorate=_floor_line, heading=_heading)
"""The paper's question (is B below P?) first: the certified B and P bounds; then S's lower bound,
bound (6), and the paper's Monte Carlo (mean and UCB, order statistics) with its floor
log(1/beta)/m. One legend below the panels (every panel draws the same series)."""


def plot(summary: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
    """delta vs eps per panel: ``FIGURE``."""
    plot_panels(FIGURE, summary, parameters, path_pdf, path_png)


# --- the claims ----------------------------------------------------------------------------

FIG2_ORDERS = {"pctr_b1024": "739", "pctr_b8192": "589", "search_b1024": "609", "search_b8192": "589"}
PAPER_PANELS = {  # panel -> the paper's parameters; claims are judged only on these
    "pctr_b1024": {"steps": 36133, "orders": "1..500,510..1000/10,1100..19900/100"},
    "pctr_b8192": {"steps": 4517, "orders": "1..500,510..1000/10,1050..2950/50"},
    "search_b1024": {"steps": 12497, "orders": "1..500,510..1000/10,1100..6900/100"},
    "search_b8192": {"steps": 1563, "orders": "1..500,510..990/10"},
}


def _ucb_below_p(panel):
    def measure(frame):
        ucb = select_rows(frame, PAPER_PANELS, panel, *B_ORDER_UCB)
        mean = select_rows(frame, PAPER_PANELS, panel, *B_ORDER_MEAN)["delta"].reindex(ucb.index)
        p_lower = select_rows(frame, PAPER_PANELS, panel, *P_LOWER)["delta"].reindex(ucb.index)
        p_upper = select_rows(frame, PAPER_PANELS, panel, *P_UPPER)["delta"].reindex(ucb.index)
        relevant = p_upper >= 1e-7
        above = relevant & (ucb["delta"] >= p_upper)
        floor = ucb_floor(ucb)
        resolvable = relevant & (p_upper >= 10 * floor)
        mean_above = relevant & (mean >= p_upper)
        where = ", ".join(f"{e:g}" for e in mean_above[mean_above].index) or "none"
        note = (f"{int(above.sum())} of {int(relevant.sum())} eps with delta_P >= 1e-7 have UCB_B >= delta_P "
                f"(PLD upper; vs PLD lower: {int(((p_lower >= 1e-7) & (ucb['delta'] >= p_lower)).sum())}); "
                f"{int((above & resolvable).sum())} of {int(resolvable.sum())} where delta_P >= 10 x the UCB floor "
                f"log(1/beta)/m = {floor:.2g} ({int(ucb['samples'].iloc[0]):,} samples per direction); even the MC mean "
                f"is >= delta_P at eps = {where} (B and P are incomparable, chua25 Thm D.1)")
        return float(above.sum()), note
    return measure


def _certified_below_p(panel):
    def measure(frame):
        upper = select_rows(frame, PAPER_PANELS, panel, *B_CERTIFIED_UPPER)["delta"]
        lower = select_rows(frame, PAPER_PANELS, panel, *B_CERTIFIED_LOWER)["delta"].reindex(upper.index)
        p_lower = select_rows(frame, PAPER_PANELS, panel, *P_LOWER)["delta"].reindex(upper.index)
        p_upper = select_rows(frame, PAPER_PANELS, panel, *P_UPPER)["delta"].reindex(upper.index)
        relevant = p_upper >= 1e-7
        above = relevant & (upper >= p_upper)
        certain = relevant & (lower > p_upper)
        where = ", ".join(f"{e:g}" for e in above[above].index) or "none"
        note = (f"{int(above.sum())} of {int(relevant.sum())} eps with delta_P >= 1e-7 have certified upper delta_B >= "
                f"delta_P (PLD upper), at eps = {where}; vs PLD lower: "
                f"{int(((p_lower >= 1e-7) & (upper >= p_lower)).sum())}; certified lower delta_B > delta_P (PLD upper), "
                f"i.e. delta_B > delta_P for certain, at {int(certain.sum())} of them")
        return float(above.sum()), note
    return measure


def _shuffle_far_above(panel):
    def measure(frame):
        s_lower = select_rows(frame, PAPER_PANELS, panel, *S_LOWER)["delta"]
        p_upper = select_rows(frame, PAPER_PANELS, panel, *P_UPPER)["delta"].reindex(s_lower.index)
        b_mean = select_rows(frame, PAPER_PANELS, panel, *B_ORDER_MEAN)["delta"].reindex(s_lower.index)
        others = np.fmax(p_upper, b_mean.fillna(0.0))
        keep = others <= 0.01
        if not keep.any():
            raise Missing(f"{panel}: no eps with delta_P and delta_B <= 0.01 in the grid")
        ratio = (s_lower / others)[keep]
        eps = ratio.idxmin()
        return float(ratio.min()), (f"smallest ratio at eps = {eps:g} (delta_S >= {s_lower[eps]:.3g}, delta_P <= "
                                    f"{p_upper[eps]:.3g}, B mean {b_mean[eps]:.3g}) over the {int(keep.sum())} eps where "
                                    f"both are <= 0.01; at eps = {s_lower.index[0]:g} the ratio is "
                                    f"{s_lower.iloc[0] / others.iloc[0]:.3g}")
    return measure


def _lower_close_to_mean(panel):
    def measure(frame):
        mean = select_rows(frame, PAPER_PANELS, panel, *B_ORDER_MEAN)
        lower = select_rows(frame, PAPER_PANELS, panel, *B_BOUND6)["delta"].reindex(mean.index)
        resolved = (mean["delta"] > 0) & (mean["standard_error"] <= 0.1 * mean["delta"])
        if not resolved.any():
            raise Missing(f"{panel}: no eps with an MC mean resolved to 10%")
        ratio = (mean["delta"] / lower)[resolved]
        below = (lower > mean["delta"] + 4.5 * mean["standard_error"])[resolved]
        return float(ratio.max()), (f"largest mean / bound (6) at eps = {ratio.idxmax():g} over {int(resolved.sum())} "
                                    f"eps with relative standard error <= 0.1; bound (6) above mean + 4.5 se at "
                                    f"{int(below.sum())} of them")
    return measure


UCB_FLOOR_WHY = ("two reasons, both checked: (1) not a sample-size effect at the smallest eps (0 to ~1.5), where even the "
                 "certified lower bound on delta_B is above delta_P's PLD upper bound (sibling claim "
                 "chua25_fig2_certified_below_P_*; an independent naive Monte Carlo of search_b8192 at eps = 0 gives "
                 "delta_B = 0.315 against delta_P = 0.265): delta_B > delta_P there at sigma = 0.3 for any sample "
                 "count; (2) elsewhere the UCB cannot fall below log(1/beta)/m (see note), which hides B below P "
                 "wherever delta_P is below it; the paper's 5e8 samples per direction (config/paper.yaml, floor "
                 "1.4e-8) would decide (2), not (1)")

CLAIMS = [
    *[Claim(f"chua25_fig2_orders_{panel}", EXPERIMENT_ID, f"number of orders, {panel} (App. C)", "~", count, n_orders(PAPER_PANELS, panel),
            result_file="summary.parquet", tolerance=0.0,
            why=("the list (1..500, 510..990/10) has 500 + 49 = 549 orders; 549/1563 = 35% matches the paper's "
                 "'about 35% of the steps', 589 does not (37.7%): the stated count is off") if panel == "search_b8192" else "")
      for panel, count in FIG2_ORDERS.items()],
    *[Claim(f"chua25_fig2_ucb_below_P_{panel}", EXPERIMENT_ID, f"eps with delta_P >= 1e-7 where UCB_B >= delta_P (PLD upper), {panel}",
            "~", "0", _ucb_below_p(panel), result_file="summary.parquet", tolerance=0.0, why=UCB_FLOOR_WHY)
      for panel in FIG2_ORDERS],
    *[Claim(f"chua25_fig2_certified_below_P_{panel}", EXPERIMENT_ID, f"eps with delta_P >= 1e-7 where the certified upper bound "
            f"on delta_B >= delta_P (PLD upper), {panel}", "~", "0", _certified_below_p(panel),
            result_file="summary.parquet", tolerance=0.0,
            why="the certified upper bound on delta_B is not below delta_P at every eps with delta_P >= 1e-7: where it "
                "is not, the note says whether even the certified lower bound is above delta_P (delta_B > delta_P for "
                "certain; at the quick config this happens at the smallest eps, 0 to 1.5, in every panel, as chua25 "
                "App. D allows): 'except where delta_P < 1e-7' does not describe those exceptions")
      for panel in FIG2_ORDERS],
    *[Claim(f"chua25_fig2_S_far_above_{panel}", EXPERIMENT_ID, f"min over eps of delta_S lower / max(delta_P upper, B mean), {panel}",
            ">=", "1e1", _shuffle_far_above(panel), result_file="summary.parquet", tolerance=0.0,
            why="the E_C lower bound on delta_S is not an order of magnitude above delta_P and delta_B at every eps")
      for panel in FIG2_ORDERS],
    *[Claim(f"chua25_fig2_lower_close_{panel}", EXPERIMENT_ID, f"max over resolved eps of B MC mean / bound (6), {panel}",
            "<=", "2", _lower_close_to_mean(panel), result_file="summary.parquet", tolerance=0.0,
            why="the MC mean (order statistics) is more than twice bound (6) somewhere")
      for panel in FIG2_ORDERS],
]

EXPERIMENT = monte_carlo_experiment(sys.modules[__name__], CLAIMS, chua25_tests(
    "test_chua25_experiments.py", "test_chua25_certified.py", "test_chua25_privacy.py", "test_chua25_workflow.py"))
