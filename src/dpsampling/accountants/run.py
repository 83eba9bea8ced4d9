"""The run description: one phase of training (a sampler, its noise and how long it runs), checked
once, here. Everything below takes a ``Phase`` and checks nothing again.

A phase is given in the vocabulary of the libraries users come from, resolved by one rule:

- ``steps``: the phase's total number of steps (Opacus' steps, dp_accounting's count);
- ``epochs`` with ``steps_per_epoch`` (or with ``dataset_size`` and ``batch_size``, T = ceil(n / b);
  for poisson and wor also with the rate alone, T = ceil(1 / q)): K epochs of T steps;
- ``steps`` and ``epochs`` together are refused: ``--steps`` has meant steps per epoch in this
  tool's past and means total steps in Opacus; asking for one of them removes the doubt;
- poisson and wor (rate-based) need their sampling rate q: ``sampling_rate``, or ``dataset_size``
  and ``batch_size`` (q = b / n); there is no default rate. Only q and the total steps enter their
  accounting;
- deterministic, shuffle and balls_and_bins (epoch-based) are described by T steps per epoch and K
  epochs (each example in exactly one batch per epoch). ``steps`` (total) needs T: with
  ``steps_per_epoch`` or with ``dataset_size`` and ``batch_size``, K = steps / T, which must be a
  whole number. ``steps`` alone is refused: 4,700 steps as one epoch of 4,700 costs 26 times less
  than 20 epochs of 235 (balls_and_bins, sigma 1.1), and only the user knows which ran.

Correlated noise (docs/MATRIX.md): ``coefficients`` (c_0, ..., c_{b-1}) is the first column of
the lower-triangular banded Toeplitz C of DP matrix factorization (y = C g + sigma Z); the
default (1.0,) is DP-SGD, and such a phase is exactly today's. Other coefficients apply to the
samplers whose registry entry names a ``correlated_noise`` law (balls_and_bins; poisson, as cyclic
Poisson of cycle length 1; the correlated-noise samplers); ``matrix_run()`` is the phase as an
``accountants.matrix.MatrixRun``.

The correlated-noise samplers (registry ``matrix_only``; accounted through ``accountants.matrix``
whatever the coefficients): cyclic_poisson needs ``sampling_rate`` q and ``steps_per_epoch``, its
cycle length k (steps a whole number of cycles); b_min_sep needs ``sampling_rate`` p and
``min_separation`` (``warm_start``: False unless given); fixed_balls_and_bins is described like
balls_and_bins, its cycle length being the steps per epoch. ``dataset_size`` and ``batch_size`` do
not describe a cyclic_poisson or b_min_sep run (q is a group's rate, p a renewal rate, not b / n);
``min_separation`` and ``warm_start`` apply to b_min_sep alone.

Bad input raises one ``ValueError`` naming the argument, the value and what is allowed (a keyword
that is no field of ``Phase`` is Python's ``TypeError``, as for any call).
"""

from __future__ import annotations

import copy
import math
from dataclasses import KW_ONLY, dataclass

from dpsampling.samplers import RATE_BASED, SAMPLER_NAMES, sampler_entry
from dpsampling.validation import check_int_at_least, check_positive, check_rate

STEPS_ALONE = "steps alone does not describe"
"""How the refusal of ``steps`` alone for an epoch-based sampler begins (the CLI words it in flags)."""
MAX_SIGMA = 1e4
"""The largest noise multiplier a phase may have (calibrate's search goes up to the same, its
MAX_SIGMA): above, the engine's grids pass the range of floating point (sigma 1e300 overflowed,
issue 42)."""
MIN_SIGMA = 1e-3
"""The smallest noise multiplier of any phase (calibrate's SMALLEST_SIGMA; samplers with a grid
have a larger ``min_sigma``): sigma 1e-300 divided by zero (issue 42)."""
MIN_SAMPLING_RATE = 1e-100
"""The smallest sampling rate a phase may have: below, the subsampled pair's terms underflow
(rate 1e-300 divided by zero, issue 42); at 1e-100 the eps of ten steps is already 0."""
MAX_STEPS = 10**15
"""The most steps a phase may have in all (calibrate's knob search goes to 10**12 steps or epochs):
far more, and the engine worked for minutes before refusing, or ran out of memory (issue 42)."""
DP_SGD_COEFFICIENTS = (1.0,)
"""The default first column of C: the identity, DP-SGD."""
RUN_FIELDS = ("steps", "epochs", "steps_per_epoch", "sampling_rate", "dataset_size", "batch_size")
"""The keywords that describe how long a phase runs and how it samples (``Phase``)."""
SEPARATION_FIELDS = ("min_separation", "warm_start")
"""The keywords of b-min-sep sampling alone (``Phase``; the CLI's --min-separation, --warm-start)."""


def _steps_per_epoch_of_rate(rate: float) -> int:
    """T = ceil(1 / q), with 1 / q first rounded to 12 digits (1 / (1/3) is 3, not 4)."""
    return max(1, math.ceil(round(1.0 / rate, 12)))


@dataclass(frozen=True, slots=True, repr=False)
class Phase:
    """``sampler`` at noise multiplier ``sigma`` (noise std / clip norm) for a number of steps.

    Keywords (module docstring): ``steps`` (total) or ``epochs`` (with ``steps_per_epoch``, or
    ``dataset_size`` and ``batch_size``); ``sampling_rate`` (poisson, wor). Resolved attributes:
    sampler, sigma, steps (total), steps_per_epoch, epochs, sampling_rate (None for epoch-based
    samplers), dataset_size, batch_size (None when not given), coefficients (the first column of
    the banded Toeplitz C, a tuple of floats; (1.0,) is DP-SGD), min_separation and warm_start
    (b_min_sep; None for the other samplers). Immutable; equal (and hashed alike) where every
    resolved attribute is."""

    sampler: str
    sigma: float
    _: KW_ONLY
    steps: int | None = None
    epochs: int | None = None
    steps_per_epoch: int | None = None
    sampling_rate: float | None = None
    dataset_size: int | None = None
    batch_size: int | None = None
    coefficients: tuple[float, ...] = DP_SGD_COEFFICIENTS
    min_separation: int | None = None
    warm_start: bool | None = None

    def __post_init__(self):
        """The checks of the module docstring, once; the fields given become the resolved ones."""
        sampler, steps, epochs, steps_per_epoch = self.sampler, self.steps, self.epochs, self.steps_per_epoch
        sampling_rate, dataset_size, batch_size = self.sampling_rate, self.dataset_size, self.batch_size
        spec = sampler_entry(sampler)
        sigma = _check_sigma(spec, self.sigma)
        coefficients = _check_coefficients(spec, self.coefficients)
        min_separation, warm_start = _check_separation(spec, self.min_separation, self.warm_start)
        n, b = _dataset(dataset_size, batch_size)
        _check_matrix_run_fields(spec, steps_per_epoch, n)
        _check_steps_per_epoch(steps_per_epoch, n, b)
        if spec.rate_based:
            rate = _rate(sampler, sampling_rate, n, b)
            per_epoch = steps_per_epoch
            if per_epoch is None and epochs is not None:
                per_epoch = -(-n // b) if n is not None else _steps_per_epoch_of_rate(rate)
            total, per_epoch, count = _length(sampler, steps, epochs, per_epoch, epoch_based=False)
        else:
            if sampling_rate is not None:
                raise ValueError(f"sampling_rate applies to samplers {', '.join(RATE_BASED)} only ({sampler} is "
                                 f"described by its steps per epoch and epochs); got {sampling_rate!r}")
            rate = None
            per_epoch = steps_per_epoch
            if per_epoch is None and n is not None:
                per_epoch = -(-n // b)
            total, per_epoch, count = _length(sampler, steps, epochs, per_epoch, epoch_based=True)
        if total > MAX_STEPS:
            name = "steps" if steps is not None else "epochs" if (count or 1) >= (per_epoch or 1) else \
                "steps_per_epoch" if steps_per_epoch is not None else "dataset_size"
            raise ValueError(f"{name} must make at most {MAX_STEPS:.0e} steps in "
                             f"all (far more and the engine works for minutes, or runs out of memory); got "
                             f"{dataset_size_text(total)} steps")
        for name, value in (("sigma", sigma), ("steps", total), ("epochs", count), ("steps_per_epoch", per_epoch),
                            ("sampling_rate", rate), ("dataset_size", n), ("batch_size", b),
                            ("coefficients", coefficients), ("min_separation", min_separation),
                            ("warm_start", warm_start)):
            object.__setattr__(self, name, value)
        if spec.matrix_only:
            self.matrix_run()  # the run's own checks (e.g. bands <= min_separation), once, here

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items() if k not in ("sampler", "sigma")
                           and v is not None)
        return f"Phase({self.sampler!r}, sigma={self.sigma!r}, {fields})"

    @property
    def spec(self):
        """The sampler's registry entry (``samplers.Sampler``)."""
        return sampler_entry(self.sampler)

    @property
    def expected_batch_size(self) -> float | None:
        """q n (rate-based) or n / T (epoch-based), None without a dataset size."""
        if self.dataset_size is None:
            return None
        if self.sampling_rate is not None:
            return self.sampling_rate * self.dataset_size
        return self.dataset_size / self.steps_per_epoch

    @property
    def correlated(self) -> bool:
        """Whether the noise is correlated (coefficients other than DP-SGD's (1.0,))."""
        return self.coefficients != DP_SGD_COEFFICIENTS

    @property
    def matrix_accounted(self) -> bool:
        """Whether the phase is accounted through ``accountants.matrix``: correlated noise, or a
        correlated-noise sampler (registry ``matrix_only``) whatever its coefficients."""
        return self.correlated or self.spec.matrix_only

    def matrix_run(self):
        """The phase as a ``MatrixRun`` (docs/MATRIX.md): the registry's ``correlated_noise``
        sampler with the fields its law takes; cycle length the steps per epoch (poisson: 1,
        cyclic Poisson of cycle 1 is Poisson)."""
        from dpsampling.accountants.matrix.run import MatrixRun, law_fields

        fields = law_fields(self.spec.correlated_noise)
        cycle = self.steps_per_epoch if self.spec.matrix_only or not self.spec.rate_based else 1
        given = {"cycle_length": cycle, "sampling_rate": self.sampling_rate, "min_separation": self.min_separation,
                 "warm_start": self.warm_start}
        return MatrixRun(self.coefficients, self.spec.correlated_noise, self.sigma, self.steps,
                         **{name: given[name] for name in fields})

    def with_sigma(self, sigma: float) -> Phase:
        """The same phase at another noise multiplier."""
        phase = copy.copy(self)  # its fields resolved already: no second resolution (steps with epochs)
        object.__setattr__(phase, "sigma", _check_sigma(self.spec, sigma))
        return phase

    def as_dict(self) -> dict:
        """Every resolved attribute (what a result records of its run); ``coefficients`` only where
        the noise is correlated (a DP-SGD phase's record is unchanged)."""
        record = {"sampler": self.sampler, "sigma": self.sigma, "steps": self.steps,
                  "steps_per_epoch": self.steps_per_epoch, "epochs": self.epochs, "sampling_rate": self.sampling_rate,
                  "dataset_size": self.dataset_size, "batch_size": self.batch_size,
                  "expected_batch_size": self.expected_batch_size}
        if self.correlated:
            record["coefficients"] = list(self.coefficients)
        if self.min_separation is not None:
            record["min_separation"], record["warm_start"] = self.min_separation, self.warm_start
        return record

    def describe(self) -> str:
        """One line: the run accounted for, in full."""
        noise = "" if not self.correlated else \
            f", correlated noise with coefficients ({', '.join(f'{c:g}' for c in self.coefficients)})"
        return self._describe_run() + noise

    def _describe_run(self) -> str:
        size = "" if self.expected_batch_size is None else f", expected batch size {self.expected_batch_size:.6g}"
        data = "" if self.dataset_size is None else f" of {self.dataset_size:,} examples"
        if self.min_separation is not None:
            start = "warm" if self.warm_start else "cold"
            return (f"{self.sampler}, sigma {self.sigma:g}: {self.steps:,} steps at sampling rate "
                    f"{self.sampling_rate:.6g}, minimum separation {self.min_separation:,}, {start} start")
        if self.sampling_rate is not None and self.spec.matrix_only:
            return (f"{self.sampler}, sigma {self.sigma:g}: {self.epochs:,} cycle(s) of {self.steps_per_epoch:,} "
                    f"steps ({self.steps:,} steps) at sampling rate {self.sampling_rate:.6g}")
        if self.sampling_rate is not None:
            passes = self.steps * self.sampling_rate
            epochs = "" if self.epochs is None else f" ({self.epochs:,} epoch(s) of {self.steps_per_epoch:,} steps)"
            return (f"{self.sampler}, sigma {self.sigma:g}: {self.steps:,} steps{epochs} at sampling rate "
                    f"{self.sampling_rate:.6g}{size}{data} ({passes:.4g} expected passes over the data)")
        return (f"{self.sampler}, sigma {self.sigma:g}: {self.epochs:,} epoch(s) of {self.steps_per_epoch:,} steps "
                f"({self.steps:,} steps){size}{data}")


def _check_sigma(spec, sigma) -> float:
    """A noise multiplier in [the sampler's min_sigma and MIN_SIGMA, MAX_SIGMA]."""
    sigma = check_positive("sigma", sigma)
    spec.check_sigma(sigma)
    if sigma < MIN_SIGMA * (1 - 1e-9):  # calibrate's search ends land within rounding of both
        raise ValueError(f"sigma must be at least {MIN_SIGMA:g} (calibrate's smallest; below, the closed forms pass "
                         f"the range of floating point); got {sigma!r}")
    if sigma > MAX_SIGMA * (1 + 1e-9):
        raise ValueError(f"sigma must be at most {MAX_SIGMA:g} (the end of calibrate's search; above, the certified "
                         f"grids pass the range of floating point); got {sigma!r}")
    return sigma


def _check_coefficients(spec, coefficients) -> tuple[float, ...]:
    """The first column of C as floats (non-empty, finite, >= 0, c_0 > 0); other than (1.0,) only
    for a sampler with a ``correlated_noise`` law."""
    from dpsampling.accountants.matrix.run import check_coefficients

    values = check_coefficients(coefficients)
    if values != DP_SGD_COEFFICIENTS and spec.correlated_noise is None:
        allowed = [name for name in SAMPLER_NAMES if sampler_entry(name).correlated_noise is not None]
        raise ValueError(f"coefficients must be [1] (DP-SGD) for sampler {spec.name}: correlated noise is accounted "
                         f"for samplers {', '.join(allowed)} (docs/MATRIX.md); got {list(values)!r}")
    return values


def _check_separation(spec, min_separation, warm_start) -> tuple[int | None, bool | None]:
    """(min_separation, warm_start): given and checked for b_min_sep (warm_start False unless
    given), refused for every other sampler."""
    from dpsampling.accountants.matrix.run import law_fields

    fields = law_fields(spec.correlated_noise) if spec.matrix_only else ()
    for name, value in (("min_separation", min_separation), ("warm_start", warm_start)):
        if value is not None and name not in fields:
            takers = [s for s in SAMPLER_NAMES if sampler_entry(s).matrix_only
                      and name in law_fields(sampler_entry(s).correlated_noise)]
            raise ValueError(f"{name} applies to sampler {', '.join(takers)} only; got {value!r} for sampler "
                             f"{spec.name}")
    if "min_separation" not in fields:
        return None, None
    if min_separation is None:
        raise ValueError(f"min_separation must be given for sampler {spec.name} (the fewest steps between two "
                         "participations of an example); got none")
    separation = check_int_at_least("min_separation", min_separation, 1)
    if warm_start is None:
        return separation, False
    if not isinstance(warm_start, bool):
        raise ValueError(f"warm_start must be True or False; got {warm_start!r}")
    return separation, warm_start


def _check_matrix_run_fields(spec, steps_per_epoch, dataset_size) -> None:
    """A rate-based correlated-noise sampler: no dataset_size (its rate is not b / n); a cycle
    length (steps_per_epoch) where its law has one."""
    from dpsampling.accountants.matrix.run import law_fields

    if not (spec.matrix_only and spec.rate_based):
        return
    if dataset_size is not None:
        raise ValueError(f"dataset_size must not be given for sampler {spec.name} (its sampling_rate is not "
                         "batch_size / dataset_size); give sampling_rate; got dataset_size and batch_size")
    if "cycle_length" in law_fields(spec.correlated_noise) and steps_per_epoch is None:
        raise ValueError(f"steps_per_epoch must be given for sampler {spec.name} (its cycle length k: the number of "
                         "public groups, each sampled every k steps); got none")


def _dataset(dataset_size, batch_size) -> tuple[int | None, int | None]:
    if (dataset_size is None) != (batch_size is None):
        given, missing = ("dataset_size", "batch_size") if batch_size is None else ("batch_size", "dataset_size")
        raise ValueError(f"{missing} must be given with {given} (they describe the run together); got "
                         f"{given} alone")
    if dataset_size is None:
        return None, None
    n = check_int_at_least("dataset_size", dataset_size, 1)
    b = check_int_at_least("batch_size", batch_size, 1)
    if b > n:
        raise ValueError(f"batch_size must be in [1, dataset_size = {n}]; got {batch_size!r}")
    return n, b


def _check_steps_per_epoch(steps_per_epoch, n, b) -> None:
    """An over-determined run must agree: steps_per_epoch with dataset_size and batch_size is
    ceil(n / b), or it is refused (it never silently overrides them)."""
    if steps_per_epoch is None or n is None:
        return
    per_epoch = check_int_at_least("steps_per_epoch", steps_per_epoch, 1)
    if per_epoch != -(-n // b):
        raise ValueError(f"steps_per_epoch must equal ceil(dataset_size / batch_size) = {-(-n // b):,} when "
                         f"both are given (dataset_size {n:,}, batch_size {b:,}); got {steps_per_epoch!r}")


def dataset_size_text(n: int) -> str:
    """A count in a message: in full, or its order of magnitude when it is huge."""
    return f"{n:,}" if n < 10**30 else f"about 1e{int(math.log10(n))}"


def _rate(sampler: str, sampling_rate, n, b) -> float:
    if sampling_rate is None and n is None:
        raise ValueError(f"sampling_rate must be given for sampler {sampler} (or dataset_size and batch_size, "
                         "q = batch_size / dataset_size); got neither (there is no default rate)")
    if sampling_rate is None:
        rate = b / n
        if rate < MIN_SAMPLING_RATE:
            raise ValueError(f"dataset_size must be at most {1 / MIN_SAMPLING_RATE:g} times batch_size (the rate b / n must "
                             f"be at least {MIN_SAMPLING_RATE:g}, below which the subsampled terms pass the range of "
                             f"floating point); got {dataset_size_text(n)} with batch_size {b}")
        return rate
    rate = check_rate("sampling_rate", sampling_rate)
    if rate < MIN_SAMPLING_RATE:
        raise ValueError(f"sampling_rate must be at least {MIN_SAMPLING_RATE:g} (below, the subsampled terms pass the "
                         f"range of floating point; at {MIN_SAMPLING_RATE:g} eps is already 0); got {sampling_rate!r}")
    if n is not None and not math.isclose(rate, b / n, rel_tol=1e-9):
        raise ValueError(f"sampling_rate must equal batch_size / dataset_size = {b / n:.10g} when both are given; "
                         f"got {sampling_rate!r}")
    return rate


def _length(sampler: str, steps, epochs, per_epoch, epoch_based: bool) -> tuple[int, int | None, int | None]:
    """(total steps, steps per epoch, epochs) from the keywords given (module docstring); a
    rate-based phase given by its total steps alone has no epochs (None, None)."""
    if steps is not None and epochs is not None:
        raise ValueError(f"steps must not be given with epochs: steps is the total number of steps; give "
                         f"epochs with steps_per_epoch (or dataset_size and batch_size) instead; got steps={steps!r} "
                         f"and epochs={epochs!r}")
    if per_epoch is not None:
        per_epoch = check_int_at_least("steps_per_epoch", per_epoch, 1)
    if steps is not None:
        total = check_int_at_least("steps", steps, 1)
        if per_epoch is None and epoch_based:
            raise ValueError(f"{STEPS_ALONE} a run of sampler {sampler} (its cost depends on how the "
                             f"steps are cut into epochs): give steps_per_epoch with epochs (or with steps), or "
                             f"dataset_size and batch_size (T = ceil(n / b)); got steps={steps!r} alone")
        if per_epoch is None:
            return total, None, None
        if total % per_epoch:
            raise ValueError(f"steps must be a whole number of epochs of {per_epoch:,} steps for sampler {sampler}; "
                             f"got {steps!r}")
        return total, per_epoch, total // per_epoch
    if epochs is None:
        if per_epoch is not None:
            return per_epoch, per_epoch, 1
        raise ValueError(f"steps or epochs must be given for sampler {sampler} (steps: the total; epochs: with "
                         "steps_per_epoch, or dataset_size and batch_size); got neither")
    count = check_int_at_least("epochs", epochs, 1)
    if per_epoch is None:
        raise ValueError(f"steps_per_epoch (or dataset_size and batch_size) must be given with epochs for sampler "
                         f"{sampler}; got epochs={epochs!r} alone")
    return per_epoch * count, per_epoch, count


def as_phases(phases) -> tuple[Phase, ...]:
    """A Phase, or a non-empty sequence of them, as a tuple."""
    if isinstance(phases, Phase):
        return (phases,)
    phases = tuple(phases) if not isinstance(phases, (str, bytes)) else ()
    if not phases or not all(isinstance(p, Phase) for p in phases):
        raise ValueError(f"phases must be a Phase or a non-empty sequence of Phase; got {phases!r}")
    return phases


__all__ = ["DP_SGD_COEFFICIENTS", "MAX_SIGMA", "MAX_STEPS", "MIN_SAMPLING_RATE", "MIN_SIGMA", "RUN_FIELDS", "SAMPLER_NAMES",
           "SEPARATION_FIELDS", "STEPS_ALONE", "Phase", "as_phases"]
