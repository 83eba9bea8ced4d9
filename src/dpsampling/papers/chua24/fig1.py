"""chua24 Fig. 1: eps(delta = 1e-6) of deterministic (D), Poisson (P) and shuffle (S) batches
against sigma at T = 1e4 (config ``chua24.fig1``).

Computed by ``curves.epsilon_vs_sigma`` (D exact, P by PLD and RDP, S lower bound by the sets
E_C); drawn by ``plots.plot_epsilon_vs_sigma``; its claims below.
"""

from __future__ import annotations

from functools import partial

from dpsampling.papers.chua24.claims import D, P, S, eps_claim
from dpsampling.papers.chua24.curves import epsilon_vs_sigma
from dpsampling.papers.chua24.plots import plot_epsilon_vs_sigma
from dpsampling.papers.chua24.workflow import chua24_experiment
from dpsampling.pipeline.claims.base import Claim

KIND = "epsilon_vs_sigma"
compute = epsilon_vs_sigma
PAPER = {"delta": 1e-6, "steps": 10000}  # the paper's setting: claims judged only there, departures in the footer
plot = partial(plot_epsilon_vs_sigma, paper=PAPER)

CLAIMS = [
    Claim("chua24_fig1_pld_sigma0.5", "chua24_fig1", "eps_P upper (PLD), sigma=0.5, T=1e4, delta=1e-6", "<", "1.96",
          eps_claim(0.5, P, "pld", "upper")),
    Claim("chua24_fig1_rdp_sigma0.5", "chua24_fig1", "eps_P upper (RDP), sigma=0.5", "<", "3.43",
          eps_claim(0.5, P, "rdp", "upper")),
    Claim("chua24_fig1_shuffle_sigma0.5", "chua24_fig1", "eps_S lower (E_C), sigma=0.5", ">", "10.994",
          eps_claim(0.5, S, "E_C sets", "lower")),
    Claim("chua24_fig1_det_sigma0.5", "chua24_fig1", "eps_D exact, sigma=0.5", "~", "10.997",
          eps_claim(0.5, D, "exact", "exact")),
    Claim("chua24_fig1_pld_sigma1.3", "chua24_fig1", "eps_P upper (PLD), sigma=1.3", "<", "0.031",
          eps_claim(1.3, P, "pld", "upper")),
    Claim("chua24_fig1_shuffle_sigma1.3", "chua24_fig1", "eps_S lower (E_C), sigma=1.3", ">", "0.26",
          eps_claim(1.3, S, "E_C sets", "lower")),
]

EXPERIMENT = chua24_experiment(__name__, KIND, compute, CLAIMS, paper=PAPER)
