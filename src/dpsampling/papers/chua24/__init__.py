"""chua24: Chua et al., How Private are DP-SGD Implementations? (ICML 2024)."""
