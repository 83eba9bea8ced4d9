"""What the chua25 claims share: which panels are judged (those run at the paper's parameters) and
how a claim reads its rows out of a summary table. The claims themselves, with their criteria,
are in the experiment modules (fig1.py, fig2.py, fig3.py, fig4.py, props.py, b_vs_p.py, trunc.py).

Monte Carlo claims are judged with their confidence bounds (UCB at the configured beta), never
with point values alone; a qualitative statement gets a stated criterion, given in its module.
"""

from __future__ import annotations

import math

import numpy as np

from dpsampling.accountants.ballsbins.orders import parse_orders
from dpsampling.pipeline.claims.base import Missing, OffPaperSetting
from dpsampling.samplers import BALLS_AND_BINS


def require_paper_setting(frame, paper_panels: dict, panel: str):
    """Missing when the panel did not run; OffPaperSetting (verdict not_at_paper_setting, both
    settings in the note) unless it ran at the paper's parameters ``paper_panels[panel]`` (each
    module's PAPER_PANELS: panel -> the parameters the paper states), so a toy config is not judged."""
    rows = frame[frame["panel"] == panel]
    if rows.empty:
        raise Missing(f"panel {panel} is not in the results (not configured)")
    departures = {}
    for key, value in paper_panels[panel].items():
        if key == "orders":
            given = rows.loc[rows["orders"].fillna("") != "", "orders"]
            ours = given.iloc[0] if not given.empty else ""
            same = bool(ours) and parse_orders(ours).tolist() == parse_orders(value).tolist()
        else:
            ours = rows[key].iloc[0]
            same = bool(np.isclose(float(ours), float(value)))
        if not same:
            departures[f"{panel}.{key}"] = (ours, value)
    if departures:
        raise OffPaperSetting(departures)


def select_rows(frame, paper_panels, panel, sampler, method, bound, direction="max"):
    """The rows of one curve of a judged panel (max direction unless asked), indexed by eps."""
    require_paper_setting(frame, paper_panels, panel)
    rows = frame[(frame["panel"] == panel) & (frame["sampler"] == sampler) & (frame["method"] == method)
                 & (frame["bound"] == bound) & (frame["direction"] == direction)]
    if rows.empty:
        raise Missing(f"{panel}: {sampler} {method} {bound} is not in the results (panel not configured)")
    return rows.set_index("epsilon").sort_index()


def n_orders(paper_panels, panel):
    """A claim's measure: the number of orders of the panel's order-statistics sample set."""

    def measure(frame):
        rows = select_rows(frame, paper_panels, panel, BALLS_AND_BINS.name, "MC order statistics", "upper",
                           "remove")
        return float(rows["n_orders"].iloc[0]), f"orders {rows['orders'].iloc[0]}"
    return measure


def ucb_floor(rows) -> float:
    return math.log(1 / float(rows["error_prob"].iloc[0])) / float(rows["samples"].iloc[0])


def mc_row(frame, paper_panels, panel, method, epsilon=None):
    """The max-direction UCB row of one Monte Carlo method of a judged panel (at ``epsilon``)."""
    require_paper_setting(frame, paper_panels, panel)
    rows = frame[(frame["panel"] == panel) & (frame["method"] == method) & (frame["direction"] == "max")
                 & (frame["bound"] == "upper")]
    if epsilon is not None:
        rows = rows[np.isclose(rows["epsilon"], epsilon)]
    if rows.empty:
        raise Missing(f"{panel}: {method} at eps = {epsilon} is not in the results")
    return rows.iloc[0]
