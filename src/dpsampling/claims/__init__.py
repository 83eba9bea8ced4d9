"""The papers' stated numbers (one registry) and their check against our results."""

from .check import CLAIM_COLUMNS, check_claims, claims_markdown
from .registry import CLAIMS, Claim

__all__ = ["CLAIMS", "CLAIM_COLUMNS", "Claim", "check_claims", "claims_markdown"]
