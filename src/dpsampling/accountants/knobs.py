"""Calibrate any one knob of a run for a target (eps, delta), and the budget left after the steps so far.

    calibrate_knob(Phase("poisson", 1.1, dataset_size=60_000, batch_size=256, epochs=20), "epochs", 2.0, 1e-5)
    budget_left(Phase("poisson", 1.1, sampling_rate=0.01, steps=500), 2.0, 1e-5)

What jax-privacy's ``calibrate_num_updates`` and ``calibrate_batch_size`` do, certified: the knob
value returned is shown sufficient (the face's certified eps upper bound at it is <= the target,
computed, not assumed), and the neighbour on the other side of the search was not shown
sufficient. Knobs (of a one-phase run, or of the last phase of several: the earlier phases are
the steps already taken):

- ``sigma``: the smallest sigma (``calibrate.calibrate_sigma``, its bisection and words);
- ``steps``: the largest total number of steps (poisson, wor; an epoch-based sampler is
  calibrated in ``epochs``, as its run is described);
- ``epochs``: the largest number of epochs (T fixed: ``steps_per_epoch``, or ceil(n / b), or
  ceil(1 / q) for a rate given alone);
- ``batch_size``: the largest batch size b in [1, n] (``dataset_size`` n needed), the run's
  epochs (or, for a run given by its steps, its steps) fixed: q = b / n, T = ceil(n / b);
- ``sampling_rate``: the largest rate q in (0, 1] (poisson, wor given by a rate), steps fixed,
  to relative width ``rtol``.

Integer knobs are searched by doubling from the run's value, then narrowed to adjacent integers,
each step at the value where the bounds seen so far put the target (``_predicted``: the slope from
the first grid's bounds of every value evaluated, one smooth curve, the level from the most refined
evaluation; a bisection after WEAK_GUESSES guesses in a row that did not halve the bracket); the
rate is bisected in log scale (``bisection.log_bisection``). Every evaluation is one
``Accountant`` query refined only until it settles the question (``epsilon_settled``: the verdict ``get_epsilon`` would give, refined as every
door refines it), and the value returned is answered in full. The true eps grows with steps, epochs, rate and batch size (composition and
subsampling), so the certified bound's answers form one threshold up to its accuracy; whatever the
bound does, the value returned was itself shown sufficient. Batch size with the epochs fixed is the
exception: T = epochs x ceil(n / b) drops at some b, and eps with it (n 60,000, 20 epochs: b 521
takes 2,320 steps, eps upper 2.00197; b 522 2,300 steps, 1.99698), so the pair found (shown
sufficient, next not) is one of several and depends on the search's path.

``budget_left`` is what remains after the steps taken: the eps spent so far (certified upper and
lower bounds) and the largest number of further steps (poisson, wor) or epochs (epoch-based) of
the last phase that keeps the whole run shown within the target.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.bisection import log_bisection
from dpsampling.accountants.calibrate import DEFAULT_RTOL, calibrate_sigma, check_rtol
from dpsampling.accountants.certified.engine import level_upper, reusing_laws
from dpsampling.accountants.limits import TimeLimitExceeded
from dpsampling.accountants.relations import DEFAULT_RELATION, DIRECTION_NAMES
from dpsampling.accountants.run import Phase, as_phases
from dpsampling.validation import check_choice, check_open_unit, check_positive

KNOBS = ("sigma", "steps", "epochs", "batch_size", "sampling_rate")
MAX_COUNT = 10**12
"""The largest number of steps or epochs searched."""


@dataclass(frozen=True)
class KnobCalibration:
    """The answer of ``calibrate_knob``: ``value`` shown sufficient (the largest found; for sigma
    the smallest), ``value_not_shown`` the neighbour not shown sufficient (None where the whole
    range is sufficient), ``phases`` the run at ``value`` and ``epsilon_upper`` its certified
    bound."""

    knob: str
    value: float
    value_not_shown: float | None
    phases: tuple
    target_epsilon: float
    delta: float
    relation: str
    evaluations: int
    epsilon_upper: float = field(repr=False)

    def as_dict(self) -> dict:
        return {"knob": self.knob, "value_sufficient": self.value, "value_not_shown_sufficient": self.value_not_shown,
                "epsilon_upper": self.epsilon_upper, "target_epsilon": self.target_epsilon, "delta": self.delta,
                "relation": self.relation, "evaluations": self.evaluations,
                "phases": [phase.as_dict() for phase in self.phases]}


@dataclass(frozen=True)
class Budget:
    """The answer of ``budget_left``: the eps spent so far (certified lower and upper bounds at
    ``delta``) and ``more`` further ``unit`` (steps or epochs) of the last phase shown to keep
    the run within ``target_epsilon`` (0: none)."""

    epsilon_spent_lower: float
    epsilon_spent_upper: float
    more: int
    unit: str
    target_epsilon: float
    delta: float
    phases_at_end: tuple

    def as_dict(self) -> dict:
        return {"epsilon_spent_lower": self.epsilon_spent_lower, "epsilon_spent_upper": self.epsilon_spent_upper,
                "more": self.more, "unit": self.unit, "target_epsilon": self.target_epsilon, "delta": self.delta,
                "phases_at_end": [phase.as_dict() for phase in self.phases_at_end]}


def _builder(phase: Phase, knob: str):
    """(function value -> Phase, start value, lowest, highest) for ``knob`` of ``phase``."""
    sampler, sigma, spec = phase.sampler, phase.sigma, phase.spec
    build_phase = functools.partial(Phase, sampler, sigma, coefficients=phase.coefficients)  # the knob alone changes
    if knob == "steps":
        if not spec.rate_based:
            raise ValueError(f"knob steps applies to poisson and wor (total steps); a run of {sampler} is described by "
                             "its epochs: calibrate knob epochs")
        return (lambda k: build_phase(sampling_rate=phase.sampling_rate, steps=k)), phase.steps, 1, MAX_COUNT
    if knob == "epochs":
        if phase.dataset_size is not None:
            def build(k):
                return build_phase(dataset_size=phase.dataset_size, batch_size=phase.batch_size, epochs=k)
        elif spec.rate_based:
            def build(k):
                return build_phase(sampling_rate=phase.sampling_rate, epochs=k,
                             steps_per_epoch=phase.steps_per_epoch)
        else:
            def build(k):
                return build_phase(steps_per_epoch=phase.steps_per_epoch, epochs=k)
        start = phase.epochs if phase.epochs is not None else max(1, round(phase.steps * phase.sampling_rate))
        return build, start, 1, MAX_COUNT
    if knob == "batch_size":
        if phase.dataset_size is None:
            raise ValueError(f"knob batch_size needs the run's dataset_size and batch_size (q = b / n, T = ceil(n / b)); "
                             f"got {phase.describe()}")
        n = phase.dataset_size
        length = {"epochs": phase.epochs} if phase.epochs is not None else {"steps": phase.steps}
        return (lambda b: build_phase(dataset_size=n, batch_size=b, **length)), phase.batch_size, 1, n
    if knob == "sampling_rate":
        if not spec.rate_based or phase.dataset_size is not None:
            raise ValueError(f"knob sampling_rate applies to poisson and wor given by a rate (with a dataset size: knob "
                             f"batch_size); got {phase.describe()}")
        return (lambda q: build_phase(sampling_rate=q, steps=phase.steps)), phase.sampling_rate, 0.0, 1.0
    raise ValueError(f"knob must be one of {', '.join(KNOBS)}; got {knob!r}")


class _Search:
    """The run with the last phase built at a knob value: its certified eps bracket, settled
    against the target (``Accountant.epsilon_settled``: the same verdict as the full answer),
    memoized; ``epsilon`` is the full answer, for the value reported; ``guide`` the bound of the
    first grid alone, where the search looks next."""

    def __init__(self, earlier: tuple, build, target: float, delta: float, options: dict):
        self.earlier, self.build, self.target, self.delta, self.options = earlier, build, target, delta, options
        self.seen: dict = {}
        self.guides: dict = {}

    def _accountant(self, value) -> Accountant:
        return Accountant((*self.earlier, self.build(value)), **self.options)

    def bounds(self, value) -> tuple[float, float]:
        if value not in self.seen:
            try:
                self.seen[value] = self._accountant(value).epsilon_settled(self.delta, self.target)
            except ValueError as error:  # a run the engine cannot certify at this delta (e.g. its rounding floor)
                if not self.seen or isinstance(error, TimeLimitExceeded):
                    raise  # the user's own run: its error is the answer; a time limit stops the search
                self.seen[value] = (0.0, math.inf)
                self.guides[value] = None
            self.guide(value)  # while the laws of its first grid are kept
        return self.seen[value]

    def guide(self, value) -> float | None:
        """The certified upper bound at ``value`` from its first grid alone, read from the laws its
        evaluation built (``engine.level_upper``; None where there are none: a closed form, a
        reference method, substitution): one smooth curve for every value, however far each
        evaluation refined. Only where the search looks, never a verdict."""
        if value not in self.guides:
            accountant = self._accountant(value)
            usable = (accountant.method == "certified" and accountant.relation != "substitution"
                      and accountant.closed_form() is None)
            column = DIRECTION_NAMES.index(accountant.headline)
            self.guides[value] = level_upper(accountant.engine_phases, self.delta, column) if usable else None
        return self.guides[value]

    def sufficient(self, value) -> bool:
        return self.bounds(value)[1] <= self.target

    def epsilon(self, value) -> float:
        """The certified upper bound at ``value``, refined as every door refines it (the laws of
        the settled evaluation reused: ``certified.engine.reusing_laws``)."""
        if self.bounds(value)[1] == math.inf:
            return math.inf
        return self._accountant(value).get_epsilon(self.delta)


WEAK_GUESSES = 3
"""Guesses in a row that may leave more than half the bracket before the next step bisects."""


def _largest_integer(search: _Search, start: int, lowest: int, highest: int) -> tuple[int | None, int | None]:
    """(largest value shown sufficient, the next one: not shown sufficient or None at the top)."""
    start = min(max(start, lowest), highest)
    if search.sufficient(start):
        low, high = start, None
        while high is None and low < highest:
            step = min(2 * low, highest)
            if search.sufficient(step):
                low = step
            else:
                high = step
        if high is None:
            return low, None
    else:
        high, low = start, None
        while low is None and high > lowest:
            step = max(high // 2, lowest)
            if search.sufficient(step):
                low = step
            else:
                high = step
        if low is None:
            return None, lowest
    weak = 0
    while high - low > 1:
        width = high - low
        guess = _predicted(search, low, high) if weak < WEAK_GUESSES else None
        mid = (low + high) // 2 if guess is None else min(max(math.floor(guess), low + 1), high - 1)
        if search.sufficient(mid):
            low = mid
        else:
            high = mid
        weak = 0 if guess is None or high - low <= width // 2 else weak + 1
    return low, high


def _predicted(search: _Search, low: int, high: int) -> float | None:
    """Where the target is predicted in [low, high] (low shown sufficient, high not), or None
    where their settled upper bounds do not bracket it finitely. The curve: a quadratic in
    log-log through the guides (``_Search.guide``; the settled upper bounds where a value has
    none) of the values in [low, high] and the nearest outside on each side, shifted by the
    settled bound's offset from it at the more refined end (at both, interpolated, where they are
    refined alike): the guide gives the slope, the refined end the level. Only where the search
    looks: every value is decided by its own certified bound."""
    (low_lower, low_upper), (high_lower, high_upper) = search.bounds(low), search.bounds(high)
    if not 0.0 < low_upper <= search.target < high_upper < math.inf:
        return None
    guides = {value: search.guide(value) for value in search.seen}
    if guides[low] is None or guides[high] is None:
        guides = {value: bounds[1] for value, bounds in search.seen.items()}
    usable = sorted(v for v, g in guides.items() if g is not None and 0.0 < g < math.inf and v > 0)
    below, above = [v for v in usable if v < low], [v for v in usable if v > high]
    points = [v for v in usable if low <= v <= high] + below[-1:] + above[:1]
    x, y = np.log(np.array(points, dtype=float)), np.log([guides[v] for v in points])
    centre, scale = float(x.mean()), float(np.ptp(x))
    curve = np.polyfit((x - centre) / scale, y, min(2, len(points) - 1))
    ends = np.log([low, high])
    offsets = [math.log(upper) - math.log(guides[v]) for v, upper in ((low, low_upper), (high, high_upper))]
    gaps = [1.0 - low_lower / low_upper, 1.0 - high_lower / high_upper]
    if not max(gaps) <= 1.5 * min(gaps):
        offsets = [offsets[int(gaps[1] < gaps[0])]] * 2  # the more refined end's

    def excess(t: float) -> float:
        share = (t - ends[0]) / (ends[1] - ends[0])
        offset = offsets[0] + share * (offsets[1] - offsets[0])
        return float(np.polyval(curve, (t - centre) / scale)) + offset - math.log(search.target)

    a, b = ends
    if excess(a) > 0.0:
        return float(low)
    if excess(b) <= 0.0:
        return float(high)
    for _ in range(100):
        middle = 0.5 * (a + b)
        a, b = (middle, b) if excess(middle) <= 0.0 else (a, middle)
    return math.exp(a)


def _largest_rate(search: _Search, start: float, rtol: float) -> tuple[float | None, float | None]:
    if search.sufficient(1.0):
        return 1.0, None
    high, low = 1.0, start
    while not search.sufficient(low):
        high, low = low, low / 2.0
        if low < 1e-300:
            return None, high
    return log_bisection(lambda rate: not search.sufficient(rate), low, high, rtol)


def calibrate_knob(phases, knob: str, target_epsilon: float, delta: float, *, relation: str = DEFAULT_RELATION,
                   accuracy: float = 0.01, rtol: float = DEFAULT_RTOL, **options) -> KnobCalibration:
    """The value of ``knob`` of the last phase shown sufficient for (target_epsilon, delta)
    (module docstring). ``options``: the Accountant's (method, max_grid_points)."""
    phases = as_phases(phases)
    knob = check_choice("knob", knob, KNOBS)
    target = check_positive("target_epsilon", target_epsilon)
    delta = check_open_unit("delta", delta)
    rtol = check_rtol(rtol)
    if knob == "sigma":
        if len(phases) != 1:
            raise ValueError("knob sigma applies to a one-phase run here (calibrate_sigma scales every phase of a "
                             f"schedule); got {len(phases)} phases")
        result = calibrate_sigma(phases, target, delta, relation=relation, accuracy=accuracy, rtol=rtol, **options)
        return KnobCalibration("sigma", result.sigma, result.sigma_not_shown_sufficient, result.phases, target, delta,
                               relation, result.evaluations, result.epsilon_upper)
    *earlier, last = phases
    build, start, lowest, highest = _builder(last, knob)
    search = _Search(tuple(earlier), build, target, delta, {"relation": relation, "accuracy": accuracy, **options})
    with reusing_laws():
        if knob == "sampling_rate":
            value, other = _largest_rate(search, start, rtol)
        else:
            value, other = _largest_integer(search, start, lowest, highest)
        if value is None:
            raise ValueError(f"target_epsilon must be reachable with {knob} = {other:g} at least (its certified eps "
                             f"upper bound is {search.epsilon(other):.6g}); got {target!r}")
        epsilon_upper = search.epsilon(value)
    return KnobCalibration(knob, value, other, (*earlier, build(value)), target, delta, relation, len(search.seen),
                           epsilon_upper)


def budget_left(phases, target_epsilon: float, delta: float, *, relation: str = DEFAULT_RELATION,
                accuracy: float = 0.01, **options) -> Budget:
    """The eps spent by ``phases`` (the steps taken so far) and how many more steps (poisson,
    wor) or epochs (epoch-based) of the last phase keep the run shown within target_epsilon."""
    phases = as_phases(phases)
    target = check_positive("target_epsilon", target_epsilon)
    delta = check_open_unit("delta", delta)
    *earlier, last = phases
    unit = "steps" if last.spec.rate_based and last.epochs is None else "epochs"
    with reusing_laws():  # the laws of the steps taken guide the search (``_Search.guide``)
        frame = Accountant(phases, relation=relation, accuracy=accuracy, **options).epsilon_bounds([delta])
        row = frame[frame["direction"] == frame.attrs["headline"]].iloc[0]
        spent_lower, spent_upper = float(row["epsilon_lower"]), float(row["epsilon_upper"])
        if spent_upper > target:
            return Budget(spent_lower, spent_upper, 0, unit, target, delta, phases)
        build, _, _, _ = _builder(last, unit)
        taken = last.steps if unit == "steps" else last.epochs
        search = _Search(tuple(earlier), build, target, delta, {"relation": relation, "accuracy": accuracy, **options})
        search.seen[taken] = (spent_lower, spent_upper)
        search.guide(taken)
        value, _ = _largest_integer(search, taken, taken, MAX_COUNT)
    return Budget(spent_lower, spent_upper, value - taken, unit, target, delta, (*earlier, build(value)))


__all__ = ["KNOBS", "Budget", "KnobCalibration", "budget_left", "calibrate_knob"]
