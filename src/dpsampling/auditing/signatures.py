"""The exact signatures of the correlated-noise samplers' batches (docs/AUDIT.md), and the
statistics the verdict tests them with.

- fixed balls-and-bins: every epoch repeats the first epoch's partition (``verdict._epochs_repeat``);
- cyclic Poisson (cycle length T, the steps of an epoch): every example at most once per epoch and,
  whenever drawn, at the same step of the epoch (one residue class mod T) while epochs differ
  (``fixed_positions``);
- b-min-sep: any two participations of an example at least b >= 2 steps apart, over the whole draw
  with its epochs one after the other (``participation_gaps``), where independent inclusion would
  have put some example in two consecutive steps (``consecutive_miss_probability``).

Each signature is a property of the batches seen (no false alarm for the sampler that has it); the
guards below bound the chance that a loader without it shows it by coincidence. They choose the
verdict's family of tests (cyclic, min_separation); the sampler named is the one whose class's
``audit_signature`` matches (``verdict.matching_sampler``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpsampling.auditing.sources import Draw


def presence(draw: Draw) -> np.ndarray:
    """(epochs, n) array: the step of the epoch at which each example was drawn, -1 where it was not
    (its last one where it was drawn several times)."""
    positions = np.full((draw.epochs, draw.dataset_size), -1, dtype=np.int64)
    for epoch in range(draw.epochs):
        positions[epoch, draw.indices[epoch]] = draw.batch_ids(epoch)
    return positions


def fixed_positions(positions: np.ndarray) -> tuple[int, bool]:
    """(examples drawn in two or more epochs, whether each of them sits at one step of the epoch in all)."""
    drawn = positions >= 0
    seen_twice = drawn.sum(axis=0) >= 2
    highest = positions.max(axis=0)
    lowest = np.where(drawn, positions, np.iinfo(np.int64).max).min(axis=0)
    return int(seen_twice.sum()), bool(np.all(highest[seen_twice] == lowest[seen_twice]))


def positions_needed(steps_per_epoch: int, alpha: float) -> int:
    """m such that m examples each drawn twice at the same step by chance, the step uniform over T
    afresh each epoch, has probability T^-m <= alpha / 100: the cyclic Poisson signature needs m."""
    if steps_per_epoch < 2:
        return math.inf
    return math.ceil(math.log(100.0 / alpha) / math.log(steps_per_epoch))


def participation_gaps(draw: Draw) -> np.ndarray:
    """The gaps between consecutive participations of each example, over all the draw's steps (epoch
    e's step t is step e T_0 + ... + t: the epochs one after the other)."""
    examples, steps, start = [], [], 0
    for epoch in range(draw.epochs):
        examples.append(draw.indices[epoch])
        steps.append(draw.batch_ids(epoch) + start)
        start += len(draw.offsets[epoch]) - 1
    example, step = np.concatenate(examples), np.concatenate(steps)
    order = np.lexsort((step, example))
    example, step = example[order], step[order]
    same = example[1:] == example[:-1]
    return (step[1:] - step[:-1])[same]


def consecutive_miss_probability(n: int, steps: int, rate: float) -> float:
    """(1 - q^2)^(n (S - 1)): the chance that independent inclusion at rate q puts no example in two
    consecutive steps of S (q: the observed rate, plugged in)."""
    if steps < 2 or rate <= 0:
        return 1.0
    return float(math.exp(n * (steps - 1) * math.log1p(-min(rate, 1.0) ** 2)))


def geometric_gaps(gaps: np.ndarray, separation: int) -> tuple[float, float]:
    """(p estimated, p-value) of G = gap - separation + 1 against Geometric(p) on {1, 2, ...}, p = 1 /
    mean G: Pearson chi-square over the cells 1, 2, ... (merged where fewer than 5 are expected,
    the tail as one cell), one degree of freedom less for p (approx.)."""
    waits = gaps - separation + 1
    rate = 1.0 / float(waits.mean())
    if waits.size < 2 or rate >= 1.0:
        return min(rate, 1.0), 1.0
    largest = int(waits.max())
    cells = np.arange(1, largest + 1)
    expected = waits.size * rate * (1 - rate) ** (cells - 1)
    expected[-1] = waits.size * (1 - rate) ** (largest - 1)  # the tail {largest, largest + 1, ...}
    observed = np.bincount(waits, minlength=largest + 1)[1:].astype(float)
    merged_observed, merged_expected, observed_run, expected_run = [], [], 0.0, 0.0
    for o, e in zip(observed, expected, strict=True):
        observed_run, expected_run = observed_run + o, expected_run + e
        if expected_run >= 5:
            merged_observed.append(observed_run)
            merged_expected.append(expected_run)
            observed_run, expected_run = 0.0, 0.0
    if merged_expected and expected_run:
        merged_observed[-1] += observed_run
        merged_expected[-1] += expected_run
    if len(merged_expected) < 3:
        return rate, 1.0
    statistic = float(((np.array(merged_observed) - merged_expected) ** 2 / np.array(merged_expected)).sum())
    return rate, float(stats.chi2.sf(statistic, len(merged_expected) - 2))


__all__ = ["consecutive_miss_probability", "fixed_positions", "geometric_gaps", "participation_gaps",
           "positions_needed", "presence"]
