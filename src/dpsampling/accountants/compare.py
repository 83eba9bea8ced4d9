"""What each way of batching costs for one training run: eps bounds (or the sigma needed) per sampler.

A run is a dataset of n examples, expected batch size b and K epochs of T = ceil(n / b) steps
each, at noise multiplier sigma. Per sampler (its accountant, both adjacency directions):

- deterministic: T fixed batches; exact (chua24 Prop. 3.1: the Gaussian mechanism, sensitivity sqrt(K));
- shuffle: a fresh permutation per epoch cut into T batches; lower bound from the sets E_C
  (chua24 eq. (3)), upper bound delta_D (Thm 4.1): a bracket, not a tight pair;
- poisson: each example in each step with probability q = b / n; PLD optimistic / pessimistic;
- wor: batches of exactly b drawn without replacement, q = b / n; PLD of lebeda24 Thm 10.2;
- balls_and_bins: each example in one uniformly random step per epoch; certified PLD bounds.

``tight`` says whether the pair agrees to the relative accuracy (upper - lower <= accuracy * upper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpsampling import SAMPLERS, progress
from dpsampling.accountants import deterministic, shuffle
from dpsampling.accountants.calibration import calibrate_sigma
from dpsampling.accountants.gaussian import SigmaSearch
from dpsampling.accountants.relations import relation_direction
from dpsampling.accountants.tables import AccountingOptions, epsilon_table
from dpsampling.validation import check_int_at_least, check_open_unit, check_positive

COMPARE_RELATIONS = ("add", "remove", "add_or_remove")
METHODS = {
    "deterministic": ("exact: Gaussian mechanism (chua24 Prop. 3.1)", "exact: Gaussian mechanism (chua24 Prop. 3.1)"),
    "shuffle": ("E_C sets lower bound (chua24 eq. (3))", "eps_D: delta_S <= delta_D (chua24 Thm 4.1)"),
    "poisson": ("certified, Jensen lower law (accountants.certified)", "certified, convex-order upper law (accountants.certified)"),
    "wor": ("certified, Jensen lower law (lebeda24 Thm 10.2 pair)", "certified, convex-order upper law (lebeda24 Thm 10.2 pair)"),
    "balls_and_bins": ("certified, Jensen lower law (chua25 Thm 3.1 pair)", "certified, convex-order upper law (chua25 Thm 3.1 pair)"),
}
"""(lower-bound method, upper-bound method) of each sampler."""


@dataclass(frozen=True)
class Run:
    """One training run: dataset size n, expected batch size b, epochs K, target delta."""

    dataset_size: int
    batch_size: int
    epochs: int
    delta: float

    def __post_init__(self):
        check_int_at_least("dataset_size", self.dataset_size, 1)
        check_int_at_least("batch_size", self.batch_size, 1)
        if self.batch_size > self.dataset_size:
            raise ValueError(f"batch_size must be in [1, dataset_size={self.dataset_size}]; got {self.batch_size}")
        check_int_at_least("epochs", self.epochs, 1)
        check_open_unit("delta", self.delta)

    @property
    def steps(self) -> int:
        """T = ceil(n / b) steps per epoch."""
        return math.ceil(self.dataset_size / self.batch_size)

    @property
    def rate(self) -> float:
        """Poisson / WOR sampling rate q = b / n."""
        return self.batch_size / self.dataset_size

    def expected_batch_size(self, sampler: str) -> float:
        """b for Poisson and WOR; n / T (at most b) for the samplers that use every example once per epoch."""
        return float(self.batch_size) if sampler in ("poisson", "wor") else self.dataset_size / self.steps


def epsilon_bounds(sampler: str, run: Run, sigma: float, relation: str = "add_or_remove",
                   accuracy: float = 0.01) -> tuple[float, float]:
    """(eps lower, eps upper) of ``sampler`` on ``run`` at ``sigma`` for the relation."""
    sigma = check_positive("sigma", sigma)
    steps, epochs, delta = run.steps, run.epochs, run.delta
    if sampler == "deterministic":
        value = float(deterministic.deterministic_epsilon([delta], sigma, epochs)[0])
        return value, value
    if sampler == "shuffle":
        lower = shuffle.shuffle_epsilon_lower([delta], sigma, steps, epochs)
        value = lower["max"] if relation == "add_or_remove" else lower[relation]
        return float(np.asarray(value).reshape(-1)[0]), float(deterministic.deterministic_epsilon([delta], sigma, epochs)[0])
    if relation == "substitution":  # wor only: the Appendix D bounds
        options = AccountingOptions(sampling_rate=run.rate, pld_relative_accuracy=accuracy)
        frame = epsilon_table(sampler, sigma, steps, [delta], epochs, options, relation)
        return float(frame["epsilon_lower"].iloc[0]), float(frame["epsilon_upper"].iloc[0])
    from dpsampling.accountants.certified import Accountant, Phase

    rate = run.rate if sampler in ("poisson", "wor") else None
    direction = relation_direction(relation)
    frame = Accountant([Phase(sampler, sigma, steps, epochs, rate)], accuracy=accuracy,
                       directions=(direction,)).epsilon_bounds([delta])
    row = frame[frame["direction"] == direction].iloc[0]
    return float(row["epsilon_lower"]), float(row["epsilon_upper"])


def _is_tight(lower: float, upper: float, accuracy: float) -> bool:
    if not (math.isfinite(lower) and math.isfinite(upper)):
        return False
    return upper - lower <= accuracy * max(upper, 1e-12)


def compare_epsilons(run: Run, sigma: float, relation: str = "add_or_remove", accuracy: float = 0.01,
                     samplers=SAMPLERS) -> pd.DataFrame:
    """One row per sampler: steps, expected batch size, eps lower and upper, their methods, tight."""
    check_positive("sigma", sigma)
    _check_relation(relation)
    rows = []
    for sampler in progress.steps(samplers, "samplers"):
        lower, upper = epsilon_bounds(sampler, run, sigma, relation, accuracy)
        rows.append({"sampler": sampler, "steps": run.steps, "epochs": run.epochs,
                     "expected_batch_size": run.expected_batch_size(sampler),
                     "sampling_rate": run.rate if sampler in ("poisson", "wor") else None,
                     "epsilon_lower": lower, "epsilon_upper": upper,
                     "lower_method": METHODS[sampler][0], "upper_method": METHODS[sampler][1],
                     "tight": _is_tight(lower, upper, accuracy)})
    return pd.DataFrame(rows)


def compare_sigmas(run: Run, target_epsilon: float, relation: str = "add_or_remove", accuracy: float = 0.01,
                   rtol: float = 1e-2, samplers=SAMPLERS) -> pd.DataFrame:
    """One row per sampler: the sigma that suffices for (target_epsilon, delta) by its upper bound, and
    for shuffle also the sigma its lower bound shows to be necessary."""
    check_positive("target_epsilon", target_epsilon)
    _check_relation(relation)
    rows = []
    for sampler in progress.steps(samplers, "samplers"):
        rate = run.rate if sampler in ("poisson", "wor") else None
        result = calibrate_sigma(sampler, target_epsilon, run.delta, run.steps, run.epochs, rate, relation,
                                 SigmaSearch(rtol=rtol, accuracy=accuracy))
        rows.append({"sampler": sampler, "steps": run.steps, "epochs": run.epochs,
                     "expected_batch_size": run.expected_batch_size(sampler), "sampling_rate": rate,
                     "sigma_sufficient": result["sigma"], "sigma_insufficient": result["sigma_low"],
                     "sufficient_method": result["method"],
                     "sigma_necessary": result.get("sigma_necessary"),
                     "necessary_method": result.get("necessary_method")})
    return pd.DataFrame(rows)


def _check_relation(relation: str) -> None:
    if relation not in COMPARE_RELATIONS:
        raise ValueError(f"relation must be one of {', '.join(COMPARE_RELATIONS)} (every sampler supports them); "
                         f"got {relation!r}")
