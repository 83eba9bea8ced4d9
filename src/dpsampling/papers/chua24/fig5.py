"""chua24 Fig. 5: eps(delta = 1e-5) of D, P and S against sigma at T = 1000 (config ``chua24.fig5``).

Computed by ``curves.epsilon_vs_sigma``; drawn by ``plots.plot_epsilon_vs_sigma``; its claims below.
"""

from __future__ import annotations

from dpsampling.papers.chua24.claims import D, P, S, eps_claim
from dpsampling.papers.chua24.curves import epsilon_vs_sigma
from dpsampling.papers.chua24.plots import plot_epsilon_vs_sigma
from dpsampling.papers.chua24.workflow import chua24_experiment
from dpsampling.pipeline.claims.base import Claim

KIND = "epsilon_vs_sigma"
compute = epsilon_vs_sigma
plot = plot_epsilon_vs_sigma

RDP_WHY = ("dp-accounting's RdpAccountant (default orders) gives this value; a dense order grid (1.01..20 step "
           "~0.01) lowers it only by ~0.002, so the paper's RDP number likely comes from another RDP-to-DP conversion "
           "or library version")

CLAIMS = [
    Claim("chua24_fig5_pld_sigma0.7", "chua24_fig5", "eps_P upper (PLD), sigma=0.7, T=1000, delta=1e-5", "<=", "0.61",
          eps_claim(0.7, P, "pld", "upper")),
    Claim("chua24_fig5_rdp_sigma0.7", "chua24_fig5", "eps_P upper (RDP), sigma=0.7, T=1000", "<=", "1.64",
          eps_claim(0.7, P, "rdp", "upper"), why=RDP_WHY),
    Claim("chua24_fig5_shuffle_sigma0.7", "chua24_fig5", "eps_S lower (E_C), sigma=0.7", ">=", "6.528",
          eps_claim(0.7, S, "E_C sets", "lower")),
    Claim("chua24_fig5_det_sigma0.7", "chua24_fig5", "eps_D exact, sigma=0.7", "~", "6.652",
          eps_claim(0.7, D, "exact", "exact")),
    Claim("chua24_fig5_pld_sigma1.3", "chua24_fig5", "eps_P upper (PLD), sigma=1.3, T=1000", "<", "0.092",
          eps_claim(1.3, P, "pld", "upper")),
    Claim("chua24_fig5_shuffle_sigma1.3", "chua24_fig5", "eps_S lower (E_C), sigma=1.3", ">", "0.83",
          eps_claim(1.3, S, "E_C sets", "lower")),
]

EXPERIMENT = chua24_experiment(__name__, KIND, compute, CLAIMS)
