"""Every number the papers state, with how to read ours. One list; later papers append theirs."""

from __future__ import annotations

from .base import Claim, Missing
from .chua24 import CHUA24_CLAIMS

CLAIMS: list[Claim] = [*CHUA24_CLAIMS]

__all__ = ["CLAIMS", "Claim", "Missing"]
