"""chua24 Fig. 2: delta(eps) of D and P at sigma = 0.3, T = 10, where delta_P and delta_D cross
(config ``chua24.fig2``).

Computed by ``curves.delta_vs_epsilon``; drawn by ``plots.plot_delta_vs_epsilon``; its claims
count the sign changes of delta_P - delta_D.
"""

from __future__ import annotations

from functools import partial

from dpsampling.papers.chua24.claims import crossings
from dpsampling.papers.chua24.curves import delta_vs_epsilon
from dpsampling.papers.chua24.plots import plot_delta_vs_epsilon
from dpsampling.papers.chua24.workflow import chua24_experiment
from dpsampling.pipeline.claims.base import Claim

KIND = "delta_vs_epsilon"
compute = delta_vs_epsilon
PAPER = {"sigma": 0.3, "steps": 10}  # the paper's setting: claims judged only there, departures in the footer
plot = partial(plot_delta_vs_epsilon, paper=PAPER)

CLAIMS = [
    Claim("chua24_fig2_crossings_upper", "chua24_fig2", "sign changes of delta_P(PLD upper) - delta_D, sigma=0.3, T=10", "~",
          "1", crossings("upper"), tolerance=0.0),
    Claim("chua24_fig2_crossings_lower", "chua24_fig2", "sign changes of delta_P(PLD lower) - delta_D, sigma=0.3, T=10", "~",
          "1", crossings("lower"), tolerance=0.0),
]

EXPERIMENT = chua24_experiment(__name__, KIND, compute, CLAIMS, paper=PAPER)
