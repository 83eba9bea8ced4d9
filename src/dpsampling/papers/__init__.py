"""Everything each paper adds: experiments, plots, claims, cost model, rule inputs (see registry)."""
