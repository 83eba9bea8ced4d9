"""The accountants: what a batch sampler costs in privacy, with certified lower and upper bounds.

The face (also importable from ``dpsampling``):

- ``run.Phase``: describe a run (a sampler, its noise, how long and at what rate), checked once;
- ``accountant.Accountant``: delta bounds for eps, eps bounds for delta, ``get_epsilon`` /
  ``get_delta`` (the certified upper bound the relation reads), as one long frame (``frames``);
  ``method="dp_accounting" | "rdp"``: a reference method's answer, in the same frame, labelled so;
- ``calibrate.calibrate_sigma``: the sigma shown sufficient for a target eps;
- ``compare.compare_epsilons`` / ``compare_sigmas``: every sampler on the same run;
- ``schedule.load_schedule``: phases from a YAML file.

Below the face: ``loader`` (a data loader's run and its truncation delta), ``certified`` (the
engine, to which each sampler's class in the registry, ``dpsampling.samplers``, gives its pair),
``closed_form`` (the Gaussian mechanism, shuffle's bounds, truncation), ``reference``
(dp-accounting's PLD and RDP: the face's reference methods, and what the tests and benchmarks
compare with) and ``ballsbins`` (chua25's Monte Carlo estimators).

Nothing is imported here: a Monte Carlo job imports ``ballsbins`` without paying for the engine.
"""
