"""dpsampling: privacy accounting of DP-SGD batch samplers, with certified bounds.

    from dpsampling import Accountant, Phase
    run = Phase("poisson", 1.1, sampling_rate=256 / 60_000, epochs=20)
    Accountant(run).get_epsilon(1e-5)        # the certified upper bound on eps
    Accountant(run).epsilon_bounds([1e-5])   # lower and upper bounds, every direction

Samplers (what a data loader does, ``dpsampling.batches``) live apart from accountants (what it
costs, ``dpsampling.accountants``); every accountant reports both adjacency directions --
``remove`` = D(P||Q) and ``add`` = D(Q||P) -- and their maximum. The face is imported on first
use, so ``import dpsampling`` stays light.
"""

from dpsampling.lazy import lazy_attributes

__version__ = "0.1.0"

DIRECTIONS = ("remove", "add")
"""Adjacency directions: remove = D_{e^eps}(P||Q), add = D_{e^eps}(Q||P)."""

RELATIONS = ("add", "remove", "add_or_remove", "substitution")
"""Adjacency relations (``accountants.relations``: what each means and which row it reads)."""
ADD_OR_REMOVE = ("add", "remove", "add_or_remove")
"""The relations of the remove/add dominating pairs (every sampler has them)."""

_FACE = {
    # SAMPLERS: the samplers' names shared by the code, the CLI and the config schema, in registry
    # order (``dpsampling.samplers.SAMPLER_NAMES``; the registry itself is ``dpsampling.samplers.SAMPLERS``)
    "SAMPLERS": "dpsampling.samplers",
    "Phase": "dpsampling.accountants.run",
    "Accountant": "dpsampling.accountants.accountant",
    "AccountingError": "dpsampling.accountants.frames",
    "Calibration": "dpsampling.accountants.calibrate",
    "calibrate_sigma": "dpsampling.accountants.calibrate",
    "calibrate_knob": "dpsampling.accountants.knobs",
    "budget_left": "dpsampling.accountants.knobs",
    "compare_epsilons": "dpsampling.accountants.compare",
    "compare_sigmas": "dpsampling.accountants.compare",
    "load_schedule": "dpsampling.accountants.schedule",
    "wide": "dpsampling.accountants.frames",
    "statement": "dpsampling.accountants.frames",
    "audit": "dpsampling.auditing",
}


__getattr__, __dir__ = lazy_attributes(__name__, {
    name: (module, "SAMPLER_NAMES" if name == "SAMPLERS" else name) for name, module in _FACE.items()})

__all__ = ["ADD_OR_REMOVE", "DIRECTIONS", "RELATIONS", "__version__", *_FACE]
