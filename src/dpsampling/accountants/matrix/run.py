"""``MatrixRun``: one DP-MF run (banded Toeplitz C, first column ``coefficients``) under one sampler.

Validated once at construction (ValueError naming the argument). See docs/MATRIX.md for the
mechanism and the dominating pairs. Samplers:

- ``balls_and_bins``: ``cycle_length`` k (steps per epoch); a fresh bin every epoch (chua25; the
  project's sampler), so ``steps`` must be a whole number of epochs;
- ``fixed_balls_and_bins``: ``cycle_length`` k; one bin kept for every cycle (jax-privacy 2.0's
  ``BallsInBinsSampling``, Choquette-Choo et al. 2024); any ``steps``;
- ``cyclic_poisson``: ``cycle_length`` k and ``sampling_rate`` q;
- ``b_min_sep``: ``min_separation`` b_sep, ``sampling_rate`` p, ``warm_start`` (bool);
  needs len(coefficients) <= min_separation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpsampling.samplers import B_MIN_SEP, BALLS_AND_BINS, CYCLIC_POISSON, FIXED_BALLS_AND_BINS
from dpsampling.validation import check_choice, check_int_at_least, check_positive, check_rate

MATRIX_SAMPLERS = (BALLS_AND_BINS.name, FIXED_BALLS_AND_BINS.name, CYCLIC_POISSON.name, B_MIN_SEP.name)
EPOCH_BINS, FIXED_BINS, CYCLIC, MIN_SEP = "epoch bins", "fixed bins", "cyclic", "min sep"
KINDS = dict(zip(MATRIX_SAMPLERS, (EPOCH_BINS, FIXED_BINS, CYCLIC, MIN_SEP)))
"""Each sampler's participation law (code selects by kind, never by comparing sampler names)."""
_FIELDS = dict(zip(MATRIX_SAMPLERS, (("cycle_length",), ("cycle_length",), ("cycle_length", "sampling_rate"),
                                     ("min_separation", "sampling_rate", "warm_start"))))


def law_fields(sampler: str) -> tuple[str, ...]:
    """The fields a run of ``sampler`` (one of MATRIX_SAMPLERS) takes besides coefficients, sigma, steps."""
    return _FIELDS[check_choice("sampler", sampler, MATRIX_SAMPLERS)]


def check_coefficients(values) -> tuple[float, ...]:
    """The first column of C as a tuple of floats: non-empty, finite, non-negative, c_0 > 0."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"coefficients must be a non-empty list of non-negative numbers; got {values!r}") from None
    if array.ndim != 1 or array.size == 0 or not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"coefficients must be a non-empty 1-d list of finite non-negative numbers; got {values!r}")
    if not array[0] > 0:
        raise ValueError(f"coefficients[0] must be > 0 (C must be invertible); got {values!r}")
    return tuple(float(v) for v in array)


@dataclass(frozen=True)
class MatrixRun:
    """DP-MF y = C g + sigma Z over ``steps`` steps, C[t, s] = coefficients[t - s] (0 <= t - s < bands).

    ``sigma``: noise multiplier on the clip norm, not divided by ||coefficients|| (jax-privacy's
    convention); ``coefficients=[1]`` is DP-SGD."""

    coefficients: tuple[float, ...]
    sampler: str
    sigma: float
    steps: int
    cycle_length: int | None = None
    sampling_rate: float | None = None
    min_separation: int | None = None
    warm_start: bool = False

    def __post_init__(self):
        sampler = check_choice("sampler", self.sampler, MATRIX_SAMPLERS)
        kind = KINDS[sampler]
        set_ = object.__setattr__
        set_(self, "coefficients", check_coefficients(self.coefficients))
        set_(self, "sigma", check_positive("sigma", self.sigma))
        set_(self, "steps", check_int_at_least("steps", self.steps, 1))
        given = {"cycle_length": self.cycle_length, "sampling_rate": self.sampling_rate,
                 "min_separation": self.min_separation, "warm_start": self.warm_start or None}
        for name, value in given.items():
            if value is not None and name not in _FIELDS[sampler]:
                raise ValueError(f"{name} does not apply to sampler {sampler} (its fields: "
                                 f"{', '.join(_FIELDS[sampler])}); got {value!r}")
        for name in _FIELDS[sampler]:
            if name != "warm_start" and given[name] is None:
                raise ValueError(f"{name} is required for sampler {sampler}")
        if self.cycle_length is not None:
            set_(self, "cycle_length", check_int_at_least("cycle_length", self.cycle_length, 1))
        if self.min_separation is not None:
            set_(self, "min_separation", check_int_at_least("min_separation", self.min_separation, 1))
        if self.sampling_rate is not None:
            set_(self, "sampling_rate", check_rate("sampling_rate", self.sampling_rate))
        if not isinstance(self.warm_start, bool | np.bool_):
            raise ValueError(f"warm_start must be True or False; got {self.warm_start!r}")
        set_(self, "warm_start", bool(self.warm_start))
        if kind == EPOCH_BINS and self.steps % self.cycle_length:
            raise ValueError(f"steps must be a whole number of epochs of cycle_length={self.cycle_length} steps for "
                             f"sampler balls_and_bins; got {self.steps}")
        if kind == MIN_SEP and self.bands > self.min_separation:
            raise ValueError(f"coefficients must have at most min_separation={self.min_separation} entries for "
                             f"b_min_sep (the dominating pair of docs/MATRIX.md needs it); got {self.bands}")

    @property
    def kind(self) -> str:
        """The participation law: EPOCH_BINS, FIXED_BINS, CYCLIC or MIN_SEP."""
        return KINDS[self.sampler]

    @property
    def bands(self) -> int:
        return len(self.coefficients)

    @property
    def epochs(self) -> int | None:
        """ceil(steps / cycle_length) for the cycle-based samplers, None for b_min_sep."""
        return None if self.cycle_length is None else -(-self.steps // self.cycle_length)

    @property
    def column_norm(self) -> float:
        """||c||, the sensitivity of one participation (before truncation at the last step)."""
        return math.sqrt(math.fsum(c * c for c in self.coefficients))

    def column(self) -> np.ndarray:
        """The first column's non-zeros, cut to ``steps`` rows."""
        return np.asarray(self.coefficients[: self.steps], dtype=np.float64)


def banded_times(column: np.ndarray, x: np.ndarray) -> np.ndarray:
    """C x for the lower-triangular banded Toeplitz C with first-column non-zeros ``column``;
    ``x`` of shape (..., T), C acting on the last axis (plain loop over bands; reference speed)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    steps = x.shape[-1]
    for lag, value in enumerate(column[:steps]):
        out[..., lag:] += value * x[..., : steps - lag]
    return out
