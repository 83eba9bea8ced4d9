"""chua24 Fig. 3: delta(eps) of D, P and S at sigma = 0.4, T = 1e4 (config ``chua24.fig3``).

Computed by ``curves.delta_vs_epsilon``; drawn by ``plots.plot_delta_vs_epsilon``; its claims below.
"""

from __future__ import annotations

from functools import partial

from dpsampling.papers.chua24.claims import D, P, S, delta_claim
from dpsampling.papers.chua24.curves import delta_vs_epsilon
from dpsampling.papers.chua24.plots import plot_delta_vs_epsilon
from dpsampling.papers.chua24.workflow import chua24_experiment
from dpsampling.pipeline.claims.base import Claim

KIND = "delta_vs_epsilon"
compute = delta_vs_epsilon
PAPER = {"sigma": 0.4, "steps": 10000}  # the paper's setting: claims judged only there, departures in the footer
plot = partial(plot_delta_vs_epsilon, paper=PAPER)

CLAIMS = [
    Claim("chua24_fig3_pld_eps4", "chua24_fig3", "delta_P upper (PLD) at eps=4, sigma=0.4, T=1e4", "<", "1.18e-5",
          delta_claim(4.0, P, "pld", "upper")),
    Claim("chua24_fig3_shuffle_eps4", "chua24_fig3", "delta_S lower (E_C) at eps=4", ">=", "0.226",
          delta_claim(4.0, S, "E_C sets", "lower")),
    Claim("chua24_fig3_det_eps4", "chua24_fig3", "delta_D exact at eps=4", "~", "0.244", delta_claim(4.0, D, "exact", "exact")),
    Claim("chua24_fig3_shuffle_eps12", "chua24_fig3", "delta_S lower (E_C) at eps=12", ">=", "7.5e-5",
          delta_claim(12.0, S, "E_C sets", "lower")),
]

EXPERIMENT = chua24_experiment(__name__, KIND, compute, CLAIMS, paper=PAPER)
