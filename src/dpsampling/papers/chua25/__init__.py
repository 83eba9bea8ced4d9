"""chua25: Chua et al., Balls-and-Bins Sampling for DP-SGD (AISTATS 2025)."""
