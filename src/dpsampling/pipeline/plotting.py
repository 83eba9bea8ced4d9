"""Plotting style shared by every paper's figures: one letter and one colour per sampler, the
non-interactive backend. Figures are drawn from result tables only (never recomputed)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

SAMPLER_LETTER = {"deterministic": "D", "poisson": "P", "shuffle": "S", "balls_and_bins": "B", "wor": "W"}
SAMPLER_COLOR = {"deterministic": "black", "poisson": "tab:blue", "shuffle": "tab:red", "balls_and_bins": "tab:green",
                 "wor": "tab:purple"}

__all__ = ["SAMPLER_COLOR", "SAMPLER_LETTER", "plt"]
