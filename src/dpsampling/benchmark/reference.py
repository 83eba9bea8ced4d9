"""Adapter to the Balls-and-Bins authors' Monte Carlo accountant, when it is installed.

The reference is ``BnBAccountant`` of the PyPI package ``random-allocation`` (module
``random_allocation.external_sources.Monte_Carlo_external``, a copy of google-research's
``dpsgd_batch_sampler_accounting``). It is an optional benchmark dependency, never imported by
the library itself; install it without its numpy<2.2 pin with

    pip install --no-deps random-allocation==1.0.5

(its other requirements, dp-accounting, scipy, matplotlib and numba, are ours too).

Timed calls are its public estimators for one eps, exactly as a user calls them:
``estimate_order_stats_deltas`` (order statistics) and ``estimate_deltas`` (naive, and
importance sampling with its event for that eps). They draw with numpy's global generator,
which we seed first. For the agreement check, ``losses`` draws loss samples through its own
samplers (``sample_order_stats_privacy_loss``, ``sample_privacy_loss``), in batches of at
most 1e8 floats like its estimators.
"""

from __future__ import annotations

from importlib import metadata

import numpy as np

from dpsampling.accountants.ballsbins.orders import parse_orders
from dpsampling.benchmark.cases import Case

PACKAGE = "random-allocation"
INSTALL_COMMAND = "pip install --no-deps random-allocation==1.0.5"
_MEMORY_LIMIT_FLOATS = int(1e8)  # BnBAccountant's default max_memory_limit


def load_reference():
    """(Reference, None) when random-allocation imports, else (None, one-line reason)."""
    try:
        from random_allocation.external_sources import Monte_Carlo_external as module
    except ImportError as error:
        return None, (f"{PACKAGE} is not installed ({error}); timing ours only "
                      f"(install it with: {INSTALL_COMMAND})")
    return Reference(module), None


class Reference:
    """Calls into BnBAccountant; one instance per benchmark run."""

    name = PACKAGE

    def __init__(self, module):
        self._module = module
        self.version = metadata.version(PACKAGE)

    def _adjacency(self, case: Case):
        adjacency = self._module.AdjacencyType
        return adjacency.REMOVE if case.direction == "remove" else adjacency.ADD

    def _orders(self, case: Case):
        return parse_orders(case.orders)

    def estimate(self, case: Case, seed: int) -> tuple[float, float]:
        """(mean, standard error) of delta(case.epsilon) from its public estimator."""
        np.random.seed(seed)
        accountant = self._module.BnBAccountant()
        adjacency = self._adjacency(case)
        if case.method == "order_statistics":
            estimate = accountant.estimate_order_stats_deltas(
                case.sigma, [case.epsilon], case.steps, case.samples,
                order_stats_seq=self._orders(case), adjacency_type=adjacency)[0]
        elif case.method in ("importance", "naive"):
            estimate = accountant.estimate_deltas(
                case.sigma, [case.epsilon], case.steps, case.samples, adjacency_type=adjacency,
                use_importance_sampling=case.method == "importance")[0]
        else:
            raise ValueError(f"method must be naive, importance or order_statistics; got {case.method!r}")
        return float(estimate.mean), float(estimate.std)

    def losses(self, case: Case, samples: int, seed: int) -> np.ndarray:
        """``samples`` privacy-loss samples of the case (given E_eps for importance sampling)."""
        np.random.seed(seed)
        accountant = self._module.BnBAccountant()
        adjacency = self._adjacency(case)
        if case.method == "order_statistics":
            orders = self._orders(case)
            batch = _MEMORY_LIMIT_FLOATS // (orders.size + 1)

            def draw(size):
                return accountant.sample_order_stats_privacy_loss(
                    size, case.sigma, case.steps, orders, 1, adjacency)
        else:
            threshold = None
            if case.method == "importance":
                threshold = accountant.get_importance_threshold_value(
                    case.sigma, case.epsilon, case.steps, adjacency)
            batch = _MEMORY_LIMIT_FLOATS // case.steps

            def draw(size):
                return accountant.sample_privacy_loss(size, case.sigma, case.steps, 1,
                                                      threshold, adjacency)
        parts = [np.asarray(draw(min(batch, samples - start)), dtype=np.float64).ravel()
                 for start in range(0, samples, batch)]
        return np.concatenate(parts)
