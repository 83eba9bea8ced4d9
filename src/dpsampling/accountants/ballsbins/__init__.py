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
"""

from dpsampling.accountants.ballsbins.device import DEVICES, device_problem, resolve_device
from dpsampling.accountants.ballsbins.device import loss_statistics as loss_statistics_on
from dpsampling.accountants.ballsbins.device import sample_losses as sample_losses_on
from dpsampling.accountants.ballsbins.estimates import (
    DeltaEstimate,
    bernoulli_kl,
    combine_estimates,
    estimate_delta,
    estimate_from_frame,
    kl_upper_confidence_bound,
)
from dpsampling.accountants.ballsbins.importance import importance_threshold, log_importance_probability
from dpsampling.accountants.ballsbins.lower_bound import lower_bound_delta
from dpsampling.accountants.ballsbins.orders import format_orders, parse_orders, validate_orders
from dpsampling.accountants.ballsbins.sampling import (
    DEFAULT_SAMPLES_PER_CHUNK,
    METHODS,
    LossLaw,
    LossSamples,
    as_seed_sequence,
    physical_memory_bytes,
    sample_importance_losses,
    sample_importance_order_statistics_losses,
    sample_losses,
    sample_naive_losses,
    sample_order_statistics_losses,
)
from dpsampling.accountants.ballsbins.storage import (
    read_loss_samples,
    read_loss_statistics,
    write_loss_samples,
    write_loss_statistics,
)

__all__ = [
    "DEFAULT_SAMPLES_PER_CHUNK", "DEVICES", "METHODS", "DeltaEstimate", "LossLaw", "LossSamples", "as_seed_sequence",
    "bernoulli_kl", "combine_estimates", "device_problem", "estimate_delta", "estimate_from_frame",
    "format_orders", "importance_threshold",
    "kl_upper_confidence_bound", "log_importance_probability", "loss_statistics_on", "lower_bound_delta",
    "parse_orders", "physical_memory_bytes", "read_loss_samples", "read_loss_statistics", "resolve_device",
    "sample_importance_losses", "sample_importance_order_statistics_losses", "sample_losses",
    "sample_losses_on", "sample_naive_losses", "sample_order_statistics_losses", "validate_orders",
    "write_loss_samples", "write_loss_statistics",
]
