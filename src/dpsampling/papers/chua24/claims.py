"""How a chua24 claim reads its number from a bounds table (shared by the chua24 experiment
modules, which hold the claims themselves)."""

from __future__ import annotations

from dpsampling.papers.chua24.curves import D, P, S, sign_changes  # noqa: F401  (D, P, S: read by the figures)
from dpsampling.pipeline.claims.base import Undecided
from dpsampling.pipeline.claims.selectors import curve, delta_at, epsilon_at


def eps_claim(sigma, sampler, method, bound, steps=None):
    return lambda frame: (epsilon_at(frame, sigma, sampler, method, bound, steps), "")


def delta_claim(eps, sampler, method, bound):
    return lambda frame: (delta_at(frame, eps, sampler, method, bound), "")


def bracket_at_most(eps, sampler, method, stated: float):
    """A stated upper bound on delta at eps judged by our certified bracket [lower, upper]: our upper
    bound when it meets the statement, our lower bound when that already breaks it, and undecided
    when the statement lies inside the bracket (e.g. within the engine's charged tails and
    rounding, ``certified.rounding``)."""
    def measure(frame):
        lower, upper = delta_at(frame, eps, sampler, method, "lower"), delta_at(frame, eps, sampler, method, "upper")
        if upper <= stated or lower > stated:
            return (upper if upper <= stated else lower), f"certified bracket [{lower:.4g}, {upper:.4g}]"
        raise Undecided(upper, f"the stated value lies inside our certified bracket [{lower:.4g}, {upper:.4g}] "
                               "(its width: the grid's discretization and the engine's charged tails and rounding)")
    return measure


def crossings(bound):
    def measure(frame):
        pld, exact = curve(frame, P, "pld", bound), curve(frame, D, "exact", "exact")
        merged = pld.merge(exact, on="epsilon", suffixes=("_p", "_d"))
        difference = merged["delta_p"].to_numpy() - merged["delta_d"].to_numpy()
        found = sign_changes(merged["epsilon"].to_numpy(), difference)
        order = "delta_P < delta_D first" if difference[0] < 0 else "delta_P >= delta_D first"
        where = ", ".join(f"eps ~ {c:.2f}" for c in found) or "none"
        return float(len(found)), f"crossings at {where}; {order}; eps grid 0..{merged['epsilon'].max():g}"
    return measure
