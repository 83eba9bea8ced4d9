"""Plain numpy reference: draws from the dominating pair and the privacy loss by its definition.

The draws (``draw_outputs``) are shared with the Numba kernels (``_kernels``), so the two loss
computations can be compared sample by sample. The losses here follow docs/MATRIX.md literally:

- fixed balls-and-bins: L(y) = log (1/k) sum_s exp((<y, C x_s> - ||C x_s||^2 / 2) / sigma^2), with
  the k shifts C x_s built as explicit T-vectors (O(k T) per sample);
- balls-and-bins (a fresh bin per epoch): the same over all k^E bin sequences (enumerated;
  k^E <= 4096 only);
- b-min-sep: L(y) = log sum_x pi(x) exp((<y, Cx> - ||Cx||^2 / 2) / sigma^2) over *every* pattern x
  with its probability pi(x) (enumerated; T <= 16 only), independent of the recursion the kernel
  uses.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from dpsampling.accountants.matrix.run import EPOCH_BINS, FIXED_BINS, MIN_SEP, MatrixRun, banded_times

MAX_ENUMERATION_STEPS = 16
MAX_BIN_SEQUENCES = 4096


def fixed_bins_shifts(run: MatrixRun) -> np.ndarray:
    """(k, T): row s is C x_s, x_s the indicator of the steps t = s mod k."""
    t = np.arange(run.steps)
    patterns = (t[None, :] % run.cycle_length == np.arange(run.cycle_length)[:, None]).astype(np.float64)
    return banded_times(run.column(), patterns)


def bminsep_patterns(run: MatrixRun, count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, T) participation patterns of b-min-sep (next = last + b_sep - 1 + Geometric(p))."""
    b, p, steps = run.min_separation, run.sampling_rate, run.steps
    if run.warm_start:
        weights = np.full(b, p)
        weights[0] = 1.0
        last = rng.choice(b, p=weights / weights.sum(), size=count) - b
    else:
        last = np.full(count, -b)
    patterns = np.zeros((count, steps), dtype=np.float64)
    rows = np.arange(count)
    while True:
        last = last + b - 1 + rng.geometric(p, size=count)
        inside = last < steps
        if not inside.any():
            return patterns
        patterns[rows[inside], last[inside]] = 1.0


def draw_outputs(run: MatrixRun, count: int, rng: np.random.Generator, direction: str) -> np.ndarray:
    """(count, T) outputs y: from P (``remove``: shift of a random pattern plus noise) or Q (``add``)."""
    noise = run.sigma * rng.standard_normal((count, run.steps))
    if direction == "add":
        return noise
    if run.kind == FIXED_BINS:
        bins = rng.integers(0, run.cycle_length, size=count)
        return noise + fixed_bins_shifts(run)[bins]
    if run.kind == EPOCH_BINS:
        k = run.cycle_length
        steps = rng.integers(0, k, size=(count, run.epochs)) + k * np.arange(run.epochs)
        patterns = np.zeros((count, run.steps))
        patterns[np.arange(count)[:, None], steps] = 1.0
        return noise + banded_times(run.column(), patterns)
    if run.kind == MIN_SEP:
        return noise + banded_times(run.column(), bminsep_patterns(run, count, rng))
    raise ValueError(f"sampler must not be {run.sampler} for the Monte Carlo (docs/MATRIX.md)")


def _enumerate(run: MatrixRun):
    """Every b-min-sep pattern with its probability: (patterns (n, T), probabilities (n,))."""
    if run.steps > MAX_ENUMERATION_STEPS:
        raise ValueError(f"steps must be <= {MAX_ENUMERATION_STEPS} for the enumerating reference; got {run.steps}")
    b, p, steps = run.min_separation, run.sampling_rate, run.steps
    found: dict[tuple, float] = {}

    def walk(t, pattern, probability):
        if probability == 0.0:
            return
        if t >= steps:
            key = tuple(pattern)
            found[key] = found.get(key, 0.0) + probability
            return
        walk(t + 1, pattern, probability * (1 - p))  # eligible at t, not sampled
        taken = pattern.copy()
        taken[t] = 1
        walk(t + b, taken, probability * p)

    starts = [(0, 1.0)]
    if run.warm_start:
        norm = 1.0 + (b - 1) * p
        starts = [(0, 1.0 / norm)] + [(j, p / norm) for j in range(1, b)]
    for start, weight in starts:
        walk(start, [0] * steps, weight)
    keys = list(found)
    return np.asarray(keys, dtype=np.float64), np.asarray([found[k] for k in keys])


def reference_losses(run: MatrixRun, outputs: np.ndarray) -> np.ndarray:
    """L(y) = log P(y) / Q(y) for each row of ``outputs``, by the definition (see module docstring)."""
    outputs = np.asarray(outputs, dtype=np.float64)
    if run.kind == FIXED_BINS:
        shifts = fixed_bins_shifts(run)
        logs = (outputs @ shifts.T - 0.5 * (shifts**2).sum(axis=1)) / run.sigma**2
        return special.logsumexp(logs, axis=1) - np.log(run.cycle_length)
    if run.kind == EPOCH_BINS:
        k, epochs = run.cycle_length, run.epochs
        if k**epochs > MAX_BIN_SEQUENCES:
            raise ValueError(f"cycle_length ** epochs must be <= {MAX_BIN_SEQUENCES} for the enumerating reference; "
                             f"got {k}**{epochs}")
        bins = np.indices((k,) * epochs).reshape(epochs, -1).T  # every bin sequence
        patterns = np.zeros((bins.shape[0], run.steps))
        patterns[np.arange(bins.shape[0])[:, None], bins + k * np.arange(epochs)] = 1.0
        shifts = banded_times(run.column(), patterns)
        logs = (outputs @ shifts.T - 0.5 * (shifts**2).sum(axis=1)) / run.sigma**2
        return special.logsumexp(logs, axis=1) - epochs * np.log(k)
    if run.kind == MIN_SEP:
        patterns, probabilities = _enumerate(run)
        shifts = banded_times(run.column(), patterns)
        logs = (outputs @ shifts.T - 0.5 * (shifts**2).sum(axis=1)) / run.sigma**2
        return special.logsumexp(logs, axis=1, b=probabilities[None, :])
    raise ValueError(f"sampler must not be {run.sampler} for the Monte Carlo (docs/MATRIX.md)")
