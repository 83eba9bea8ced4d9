"""Every accountant, one module each (docs/EXPERIMENTS.md maps them to experiments).

Nothing is imported here: a Monte Carlo job imports ``ballsbins`` without paying for
dp-accounting and scipy.signal (about 2 s per job process)."""
