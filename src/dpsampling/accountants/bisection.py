"""The one bisection in log scale of every calibration (``calibrate``: sigma, and the largest c
shown insufficient; ``knobs``: the sampling rate; ``matrix.bisection``: Monte Carlo sigma).

Given low < high with ``upper_side(high)`` true and ``upper_side(low)`` false (a monotone test: true
from some point upwards), it halves [low, high] in log scale at the geometric mean sqrt(low high)
until high / low - 1 <= rtol, keeping both properties. It imports nothing, so every calibration
may import it.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def log_bisection(upper_side: Callable[[float], bool], low: float, high: float, rtol: float) -> tuple[float, float]:
    """(low, high) with high / low - 1 <= rtol: each step tests mid = sqrt(low high) and keeps
    [low, mid] where ``upper_side(mid)``, else [mid, high]."""
    while high / low - 1.0 > rtol:
        mid = math.sqrt(low * high)
        low, high = (low, mid) if upper_side(mid) else (mid, high)
    return low, high


__all__ = ["log_bisection"]
