"""chua24 Fig. 6: delta(eps) of D, P and S at sigma = 0.8, T = 1000, with the PLD and RDP
upper bounds of P (config ``chua24.fig6``).

Computed by ``curves.delta_vs_epsilon``; drawn by ``plots.plot_delta_vs_epsilon``; its claims below.
"""

from __future__ import annotations

from functools import partial

from dpsampling.papers.chua24.claims import P, S, delta_claim
from dpsampling.papers.chua24.curves import delta_vs_epsilon
from dpsampling.papers.chua24.plots import plot_delta_vs_epsilon
from dpsampling.papers.chua24.workflow import chua24_experiment
from dpsampling.pipeline.claims.base import Claim, Undecided
from dpsampling.pipeline.claims.selectors import delta_at

KIND = "delta_vs_epsilon"
compute = delta_vs_epsilon
PAPER = {"sigma": 0.8, "steps": 1000}  # the paper's setting: claims judged only there, departures in the footer
plot = partial(plot_delta_vs_epsilon, paper=PAPER)


def _pld_above_rdp(frame):
    """PLD / RDP at eps = 4 from our certified PLD bracket: its upper bound below RDP settles 'not
    above', its lower bound above RDP settles 'above'; a bracket around RDP (at eps = 4 delta_P is
    below the engine's charged tails and rounding) decides nothing."""
    lower, pld, rdp = (delta_at(frame, 4.0, P, "pld", "lower"), delta_at(frame, 4.0, P, "pld", "upper"),
                       delta_at(frame, 4.0, P, "rdp", "upper"))
    note = f"PLD certified [{lower:.3g}, {pld:.3g}], RDP upper {rdp:.3g}"
    if lower <= rdp < pld:
        raise Undecided(pld / rdp, note + ": the PLD bracket contains the RDP bound")
    return (pld if pld <= rdp else lower) / rdp, note


CLAIMS = [
    Claim("chua24_fig6_pld_eps1", "chua24_fig6", "delta_P upper (PLD) at eps=1, sigma=0.8, T=1000", "<=", "9.873e-9",
          delta_claim(1.0, P, "pld", "upper")),
    Claim("chua24_fig6_rdp_eps1", "chua24_fig6", "delta_P upper (RDP) at eps=1", "<=", "3.346e-5",
          delta_claim(1.0, P, "rdp", "upper")),
    Claim("chua24_fig6_shuffle_eps1", "chua24_fig6", "delta_S lower (E_C) at eps=1", ">=", "0.018",
          delta_claim(1.0, S, "E_C sets", "lower")),
    Claim("chua24_fig6_shuffle_eps4", "chua24_fig6", "delta_S lower (E_C) at eps=4", ">=", "1.6e-4",
          delta_claim(4.0, S, "E_C sets", "lower")),
    Claim("chua24_fig6_pld_above_rdp_eps4", "chua24_fig6", "delta_P PLD upper / RDP upper at eps=4", ">", "1",
          _pld_above_rdp, tolerance=0.0),
]

EXPERIMENT = chua24_experiment(__name__, KIND, compute, CLAIMS, paper=PAPER)
