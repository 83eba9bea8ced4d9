"""dpsampling: privacy accounting of DP-SGD batch samplers.

Samplers (what a data loader does) live apart from accountants (what it costs):
``dpsampling.accountants`` holds the deterministic (D), Poisson (P) and shuffle (S)
accountants of Chua et al. (ICML 2024); every accountant reports both adjacency
directions -- ``remove`` = D(P||Q) and ``add`` = D(Q||P) -- and their maximum.
"""

__version__ = "0.1.0"

SAMPLERS = ("deterministic", "shuffle", "poisson", "balls_and_bins", "wor")
"""Batch sampler names shared by the code, the CLI and the config schema."""

DIRECTIONS = ("remove", "add")
"""Adjacency directions: remove = D_{e^eps}(P||Q), add = D_{e^eps}(Q||P)."""
