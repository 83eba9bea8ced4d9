"""What the lebeda24 experiment modules share: their eps grids, and how a claim's note lists grid values."""

from __future__ import annotations

import numpy as np


def grid(spec: dict) -> np.ndarray:
    """linspace(start, stop, num) of a config grid block."""
    return np.linspace(spec["start"], spec["stop"], spec["num"])


def format_values(values) -> str:
    """Sorted values as a short list, e.g. '[0, 0.5, 1]'."""
    return "[" + ", ".join(f"{float(v):g}" for v in sorted(values)) + "]"
