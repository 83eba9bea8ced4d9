"""Calibrate the noise: the smallest sigma whose eps upper bound meets a target.

One bisection for every sampler, relation, method and run. One phase: the bisection runs on its
sigma itself and always starts at sigma = 1 (START_SIGMA), whatever sigma the phase was given, so
that every door (Python, ``dpsampling calibrate``, ``compare --target-epsilon``, the adapters)
answers the same sigma, bit for bit. Several phases: every phase's sigma is scaled by one factor
c, starting at c = 1 (the sigmas given). The factor is bracketed by doubling or halving, then
bisected in log scale (``bisection.log_bisection``, the one every calibration uses) until the smallest c shown sufficient (eps_upper(delta) <= target: a
guarantee, under the certified method) and the largest c not shown sufficient are within ``rtol``
of each other. Each evaluation is refined only until it settles its question
(``Accountant.epsilon_settled``: upper <= target, or lower > target; the verdict the fully refined
answer gives, so the bisection's path and its answer are those of full evaluations, at a fraction
of their cost), and the reported c is then answered in full, its laws reused
(``certified.engine.reusing_laws``). Each evaluation answers both bounds, so the largest c shown insufficient
(eps_lower(delta) > target: no accountant can certify it) is kept too; where that is not within
``rtol`` of the sufficient one (a loose bracket, e.g. shuffle's), a second bisection on the
lower bound narrows it. The words matter: "not shown sufficient" is not "insufficient".

``method`` is the Accountant's: "certified" (default) or a reference method of dp-accounting
("dp_accounting", "rdp"), whose sigma is then that method's answer, not a certified one. A phase
with correlated noise (``Phase.coefficients``) and a certified reduction is calibrated like any
other (each evaluation is the engine's on the reduced phases); one without is calibrated by
``method="monte_carlo"`` (``samples``, ``error_prob``, ``seed``): ``matrix.calibrate_matrix_sigma``'s
bisection on the Monte Carlo upper bound, the sigma shown sufficient with probability >= 1 - 2 beta N
over its N evaluations (union bound; ``error_probability``), never certified.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from dpsampling import __version__
from dpsampling.accountants.accountant import METHOD_LABELS, METHODS, Accountant
from dpsampling.accountants.bisection import log_bisection
from dpsampling.accountants.certified.engine import reusing_laws
from dpsampling.accountants.frames import Refused
from dpsampling.accountants.limits import TimeLimitExceeded
from dpsampling.accountants.run import as_phases
from dpsampling.validation import check_open_unit, check_positive

DEFAULT_RTOL = 1e-3
"""Relative width of the final bracket on sigma."""
MIN_RTOL = 1e-9
"""The narrowest bracket asked for (1e-300 bisected for ever: floats have 16 digits)."""
START_SIGMA = 1.0
"""Where the bisection of a one-phase run starts (whatever the phase's own sigma)."""
MAX_SIGMA = 1e4
SMALLEST_SIGMA = 1e-3  # for samplers without a grid limit (min_sigma 0)
RUN_COLUMNS = ("steps", "steps_per_epoch", "epochs", "sampling_rate", "expected_batch_size")
"""The run's columns a calibration row carries (one phase; None for several)."""


@dataclass(frozen=True)
class Calibration:
    """The answer of ``calibrate_sigma``. ``scale``: c shown sufficient; ``scale_not_shown``: the
    largest c tried that was not shown sufficient; ``scale_insufficient``: the largest c shown
    insufficient (None if none was found within the search). ``sigma...``: the same for a
    one-phase run (c times its sigma). ``phases``: the run at the sufficient scale; ``method``:
    the Accountant's method the bounds came from; ``error_probability``: the probability that the
    sigma shown sufficient is not (0 but for method monte_carlo)."""

    phases: tuple
    target_epsilon: float
    delta: float
    relation: str
    method: str
    accuracy: float
    rtol: float
    scale: float
    scale_not_shown: float
    scale_insufficient: float | None
    evaluations: int
    epsilon_upper: float = field(repr=False)
    error_probability: float = 0.0

    @property
    def method_label(self) -> str:
        """What the sigma shown sufficient rests on, in words."""
        if self.method == "monte_carlo":
            return (f"Monte Carlo upper confidence bound; the sigma shown sufficient holds with probability >= 1 - "
                    f"{self.error_probability:.3g} (union bound over {self.evaluations} evaluations; not certified)")
        return METHOD_LABELS[self.method]

    def _of(self, scale: float | None) -> float | None:
        if scale is None or len(self.phases) != 1:
            return None
        return self.phases[0].sigma / self.scale * scale

    @property
    def sigma(self) -> float | None:
        """sigma shown sufficient (one-phase runs)."""
        return self._of(self.scale)

    @property
    def sigma_not_shown_sufficient(self) -> float | None:
        return self._of(self.scale_not_shown)

    @property
    def sigma_shown_insufficient(self) -> float | None:
        return self._of(self.scale_insufficient)

    def attrs(self) -> dict:
        """What every row of a calibration shares: the target, the options, what the upper bound is
        (``method_label``) and the package version."""
        return {"target_epsilon": self.target_epsilon, "delta": self.delta, "relation": self.relation,
                "method": self.method, "method_label": self.method_label, "accuracy": self.accuracy,
                "rtol": self.rtol, "version": __version__}

    def as_row(self) -> dict:
        """The one row of a calibration (``compare_sigmas`` has one per sampler): the sampler (a
        schedule's joined by " + "), the run's length, the three sigmas (None for several phases)
        and the three scales, the eps upper bound at the sigma shown sufficient and the options."""
        one = self.phases[0].as_dict() if len(self.phases) == 1 else {}
        return {"sampler": " + ".join(p.sampler for p in self.phases),
                **{key: one.get(key) for key in RUN_COLUMNS},
                "sigma_sufficient": self.sigma, "sigma_not_shown_sufficient": self.sigma_not_shown_sufficient,
                "sigma_shown_insufficient": self.sigma_shown_insufficient, "scale": self.scale,
                "scale_not_shown": self.scale_not_shown, "scale_insufficient": self.scale_insufficient,
                "epsilon_upper": self.epsilon_upper, "target_epsilon": self.target_epsilon, "delta": self.delta,
                "relation": self.relation, "method": self.method, "accuracy": self.accuracy, "rtol": self.rtol,
                "evaluations": self.evaluations}


def calibrate_sigma(phases, target_epsilon: float, delta: float, *, relation: str = "add_or_remove",
                    accuracy: float = 0.01, rtol: float = DEFAULT_RTOL, method: str = METHODS[0],
                    **options) -> Calibration:
    """The smallest scale of every phase's sigma shown sufficient for (target_epsilon, delta)
    under ``relation`` by ``method`` (module docstring; one phase: its sigma, the phase's own
    sigma is not used). ``options``: the Accountant's (refine, max_grid_points); ``epsilon_upper``
    is the Accountant's own answer at the sigma reported, what ``account`` says there."""
    phases = as_phases(phases)
    target = check_positive("target_epsilon", target_epsilon)
    delta = check_open_unit("delta", delta)
    rtol = check_rtol(rtol)
    options["method"] = method
    Accountant(phases, relation=relation, accuracy=accuracy, **options)  # checks the options once
    if method == "monte_carlo":
        return _monte_carlo_calibration(phases[0].with_sigma(START_SIGMA), target, delta, relation, accuracy, rtol,
                                        options)
    if len(phases) == 1:
        phases = (phases[0].with_sigma(START_SIGMA),)  # one start for every door
    smallest = max(max(p.spec.min_sigma, SMALLEST_SIGMA) / p.sigma for p in phases)
    largest = min(MAX_SIGMA / p.sigma for p in phases)
    seen: dict[float, tuple[float, float]] = {}

    def accountant(c: float) -> Accountant:
        return Accountant(tuple(p.with_sigma(p.sigma * c) for p in phases), relation=relation, accuracy=accuracy,
                          **options)

    def bounds(c: float) -> tuple[float, float]:
        if c not in seen:
            try:
                seen[c] = accountant(c).epsilon_settled(delta, target)
            except TimeLimitExceeded:
                raise
            except Refused:  # no certificate at this sigma (delta below what the engine can charge): not sufficient
                seen[c] = (0.0, math.inf)
        return seen[c]

    def sufficient(c: float) -> bool:
        return bounds(c)[1] <= target

    with reusing_laws():
        low, high = _bracket(sufficient, 1.0, smallest, largest, target, phases)
        low, high = log_bisection(sufficient, low, high, rtol)
        shown_insufficient = [c for c, (lower, _) in seen.items() if lower > target]
        insufficient = max(shown_insufficient) if shown_insufficient else None
        if insufficient is not None and low / insufficient - 1.0 > rtol:
            # lower(insufficient) > target; refine towards the largest c shown insufficient
            insufficient = log_bisection(lambda c: not bounds(c)[0] > target, insufficient, low, rtol)[0]
        epsilon_upper = accountant(high).get_epsilon(delta)  # the reported sigma's answer, as account gives it
    return Calibration(tuple(p.with_sigma(p.sigma * high) for p in phases), target, delta, relation, method, accuracy,
                       rtol, high, low, insufficient, len(seen), epsilon_upper)


def _monte_carlo_calibration(phase, target: float, delta: float, relation: str, accuracy: float, rtol: float,
                             options: dict) -> Calibration:
    """One correlated phase without a certified reduction: ``matrix.bisection.monte_carlo_sigma`` from START_SIGMA
    (its bisection on the max row's upper bound; none is shown insufficient by a confidence bound)."""
    from dpsampling.accountants.matrix.bisection import monte_carlo_sigma

    accountant = Accountant(phase, relation=relation, accuracy=accuracy, **options)
    keywords = {"samples": accountant.monte_carlo["samples"], "beta": accountant.monte_carlo["beta"],
                "seed": accountant.monte_carlo["seed"]}
    answer = monte_carlo_sigma(phase.matrix_run(), target, delta, rtol=rtol, **keywords)
    found = phase.with_sigma(answer.sigma)
    epsilon_upper = Accountant(found, relation=relation, accuracy=accuracy, **options).get_epsilon(delta)
    return Calibration((found,), target, delta, relation, "monte_carlo", accuracy, rtol, answer.sigma,
                       answer.sigma_not_shown_sufficient, None, answer.evaluations, epsilon_upper,
                       answer.error_probability)


def check_rtol(rtol) -> float:
    """A relative bracket width in [MIN_RTOL, 1)."""
    rtol = check_open_unit("rtol", rtol)
    if rtol < MIN_RTOL:
        raise ValueError(f"rtol must be at least {MIN_RTOL:g} (a bracket narrower than floating point resolves is "
                         f"never reached); got {rtol!r}")
    return rtol


def _bracket(sufficient, start: float, smallest: float, largest: float, target: float, phases):
    """(low, high): c = low not shown sufficient, c = high shown sufficient."""
    if sufficient(start):
        high = start
        while True:
            low = max(high / 2.0, smallest)
            if not sufficient(low):
                return low, high
            if low == smallest:
                raise ValueError(f"target_epsilon must be small enough that the smallest sigma allowed "
                                 f"({smallest * phases[0].sigma:.3g}) does not already meet it; got {target!r}")
            high = low
    low = start
    while True:
        high = min(low * 2.0, largest)
        if sufficient(high):
            return low, high
        if high == largest:
            raise ValueError(f"target_epsilon must be reachable with sigma <= {MAX_SIGMA:g} for this run; got "
                             f"{target!r}")
        low = high


__all__ = ["DEFAULT_RTOL", "MIN_RTOL", "check_rtol", "RUN_COLUMNS", "START_SIGMA", "Calibration", "calibrate_sigma"]
