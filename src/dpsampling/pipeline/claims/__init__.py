"""Claims (numbers a paper states) and their check against our results; the claims themselves are
registered per paper (``dpsampling.papers.registry.CLAIMS``)."""

from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.pipeline.claims.check import CLAIM_COLUMNS, check_claims, claims_markdown

__all__ = ["CLAIM_COLUMNS", "Claim", "Missing", "check_claims", "claims_markdown"]
