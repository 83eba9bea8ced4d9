"""Balls-and-bins Monte Carlo accountant (Chua et al., "Balls-and-Bins Sampling for DP-SGD",
AISTATS 2025, Sections 3-4 and Appendix B).

Dominating pair (Thm 3.1): P_B = (1/T) sum_t N(e_t, sigma^2 I_T), Q_B = N(0, sigma^2 I_T);
delta_B(eps) = max(remove, add) with remove = D_{e^eps}(P_B||Q_B), add = D_{e^eps}(Q_B||P_B).

- ``sampling``: samples of the privacy loss (naive, importance, order statistics, both; k epochs);
- ``estimates``: mean, standard error and KL upper confidence bound at every eps, shard pooling;
- ``lower_bound``: the closed-form lower bound (6) (the Gaussian mechanism, T = 1: ``closed_form.gaussian``);
- ``importance``: the events E_eps with proofs (the paper's add-direction threshold is corrected);
- ``orders``: the order-list text form "1..500,510..1000/10";
- ``storage``: Parquet shards of loss samples or of their statistics on an eps grid;
- ``device``: the entry point choosing CPU or CUDA (``cuda``: the GPU kernels, optional).

Everything is importable from here, as ``ballsbins.sample_losses``, each module loaded on first
use (``device.sample_losses`` and ``device.loss_statistics`` as ``sample_losses_on`` and
``loss_statistics_on``): ``orders`` alone does not load Numba, ``lower_bound`` alone not the
kernels. Package code imports the modules themselves (tests/test_layout.py).
"""

from __future__ import annotations

from dpsampling.lazy import lazy_attributes

_PACKAGE = "dpsampling.accountants.ballsbins"
_NAMES = {
    "device": ("DEVICES", "device_problem", "resolve_device"),
    "estimates": ("DeltaEstimate", "bernoulli_kl", "combine_estimates", "estimate_delta", "estimate_from_frame",
                  "kl_upper_confidence_bound"),
    "importance": ("importance_threshold", "log_importance_probability"),
    "lower_bound": ("lower_bound_delta",),
    "orders": ("format_orders", "parse_orders", "validate_orders"),
    "sampling": ("DEFAULT_SAMPLES_PER_CHUNK", "METHODS", "LossLaw", "LossSamples", "as_seed_sequence",
                 "physical_memory_bytes", "sample_importance_losses", "sample_importance_order_statistics_losses",
                 "sample_losses", "sample_naive_losses", "sample_order_statistics_losses"),
    "storage": ("read_loss_samples", "read_loss_statistics", "write_loss_samples", "write_loss_statistics"),
}
_RENAMED = {"loss_statistics_on": ("device", "loss_statistics"), "sample_losses_on": ("device", "sample_losses")}
_SOURCE = {**{name: (module, name) for module, names in _NAMES.items() for name in names}, **_RENAMED}
"""name -> (module of this package, its name there)."""


__getattr__, __dir__ = lazy_attributes(_PACKAGE, {name: (f"{_PACKAGE}.{module}", attribute)
                                                for name, (module, attribute) in _SOURCE.items()})

__all__ = sorted(_SOURCE)
