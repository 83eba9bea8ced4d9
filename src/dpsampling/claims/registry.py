"""Every number the papers state, with how to read ours. One list; later papers append theirs."""

from __future__ import annotations

from .base import Claim, Missing
from .chua24 import CHUA24_CLAIMS
from .chua25_fig1 import CHUA25_FIG1_CLAIMS
from .chua25_privacy import CHUA25_PRIVACY_CLAIMS
from .lebeda24 import LEBEDA24_CLAIMS

CLAIMS: list[Claim] = [*CHUA24_CLAIMS, *CHUA25_FIG1_CLAIMS, *CHUA25_PRIVACY_CLAIMS, *LEBEDA24_CLAIMS]

__all__ = ["CLAIMS", "Claim", "Missing"]
