"""Lebeda, Regehr, Kamath, Steinke (2024): pitfalls of accounting for subsampled mechanisms.

Modules:

* ``relations``: adjacency relations, samplers, which accountant supports which relation.
* ``pairs``: closed-form single-step dominating pairs (Gaussian, Laplace) and their curves.
* ``gaussian``: Poisson and WOR subsampled Gaussian via dp_accounting PLDs (Theorem 10,
  Prop. 9, Table 1, Fig. 2 sigma calibration, Conjecture 12 grid search).
* ``laplace``: subsampled Laplace under add and remove, exact (k <= 2) and Monte Carlo
  (Appendix B.2, Fig. 1, ICLR Fig. 2).
* ``randomized_response``: Appendix B.1 in exact fractions.
* ``substitution``: Section 7 Laplace example and Appendix D Gaussian bounds.
* ``shards``: Monte Carlo shards on disk and their merge (Appendix B.2 at scale).
"""

from importlib import import_module

_EXPORTS = {
    "gaussian": ("bisect_sigma", "calibrate_sigma", "conjecture12_search", "delta_at", "delta_for_epsilon",
                 "epsilon_for_delta", "gaussian_pld"),
    "laplace": ("crossings", "delta_from_loss_samples", "empirical_pld_cdf", "exact_curves", "exact_delta",
                "exact_pld_cdf", "hoeffding_alpha", "loss_samples_frame", "monte_carlo_sample_size", "pld_atoms",
                "sample_privacy_loss"),
    "pairs": ("SubsampledPair",),
    "randomized_response": ("hockey_stick_discrete", "randomized_response_divergences"),
    "relations": ("ACCOUNTANT_RELATIONS", "RELATIONS", "SAMPLERS", "check_relation", "sampler_distance",
                  "supported_relations"),
    "shards": ("merge_curves", "read_curve", "sample_shard", "shard_seed", "shard_sizes"),
    "substitution": ("gaussian_single_step_curves", "laplace_substitution_curves", "largest_intervals",
                     "pld_from_curve", "rdp_pair_delta", "rdp_wor_substitution_delta", "wor_gaussian_substitution"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name):
    """Import submodules on first use (a Monte Carlo shard job then does not load dp-accounting)."""
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_WHERE[name]}", __name__), name)
