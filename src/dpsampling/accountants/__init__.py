"""Deterministic accountants (no sampling): D closed form, Poisson via dp-accounting, shuffle lower bound."""

from dpsampling.accountants.deterministic import deterministic_delta, deterministic_epsilon, gaussian_delta
from dpsampling.accountants.poisson import (
    PoissonAccounting,
    pld_delta,
    pld_epsilon,
    poisson_pld,
    poisson_rdp_delta,
    poisson_rdp_epsilon,
)
from dpsampling.accountants.shuffle import shuffle_delta_lower, shuffle_epsilon_lower

__all__ = [
    "PoissonAccounting",
    "deterministic_delta",
    "deterministic_epsilon",
    "gaussian_delta",
    "pld_delta",
    "pld_epsilon",
    "poisson_pld",
    "poisson_rdp_delta",
    "poisson_rdp_epsilon",
    "shuffle_delta_lower",
    "shuffle_epsilon_lower",
]
