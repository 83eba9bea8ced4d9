"""Closed forms: the Gaussian mechanism (deterministic batches, exact), the shuffle lower bound
from the sets E_C (chua24), and the delta that truncating batches costs (chua25 App. C)."""
