"""lebeda24 figures from result tables only (never recomputes). Each legend entry names the sampler,
the method and whether the curve is exact, an upper bound, a lower bound or a Monte Carlo estimate;
a footer states sample counts, beta and discretizations.

What the lebeda24 figures share; each experiment module's ``plot(tables, pdf, png)`` draws its
figure, ``tables`` mapping the plot rule's input names to (frame, metadata) pairs from
``dpsampling.io.read_table``.
"""

from __future__ import annotations

from dpsampling.samplers import PAPER_RATE_BASED, legend_name

SAMPLER_NAME = {name: legend_name(name) for name in PAPER_RATE_BASED}
"""The legend names of the samplers lebeda24 compares (the rate-based ones): 'Poisson (P)', 'WOR (W)'."""
DIRECTION_COLOR = {"remove": "tab:blue", "add": "tab:orange"}
