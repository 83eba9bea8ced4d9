"""DpEvents to the face's phases: what ``CertifiedAccountant`` composes, and how.

Every event becomes a list of (``Part``, count): a part is one kind of step of the run (a sampler,
its noise and how it samples), counted in steps or epochs. Parts that are equal add their counts,
wherever they occur in the ledger: the run's dominating pair is the product of its steps' pairs,
and a product does not depend on the order of its factors (adaptive composition, Zhu et al. 2022
Thm 10), so K epochs composed one by one, ``SelfComposedDpEvent(event, K)`` and a ledger with
the epochs interleaved with other events are accounted alike.

Conventions (dp_accounting's): ``GaussianDpEvent(z)``: every record's contribution is clipped to
norm C and N(0, (z C)^2 I) noise is added, z = noise std / C (the face's sigma). What each
relation means per event, with d the distance between the neighbours' sums:

- ADD_OR_REMOVE_ONE (d = C): Gaussian z: the deterministic phase (one Gaussian mechanism per
  count, exact); ``PoissonSampledDpEvent(q, Gaussian z)``: poisson at rate q;
  ``SampledWithoutReplacementDpEvent(n, b, Gaussian z)``: wor at q = b / n (Poisson's pair at
  z / 2, lebeda24 Thm 10.2: adding a record to a fixed-size batch swaps one out); random
  allocation with one selection: balls_and_bins; kept bins: ``certified.kept_bins``; shuffled:
  the shuffle bracket.
- REPLACE_ONE (d = 2C, one record replaced by any other): Gaussian z: the deterministic phase at
  z / 2 (N(-C) vs N(+C): exact, symmetric; what dp_accounting's PLDAccountant computes); wor:
  lebeda24's substitution (``certified.substitution``), alone in the run. The project has no
  dominating pair under replace-one for Poisson subsampling, random allocation, kept bins or
  shuffling: those are unsupported, with that reason.

Noise 0, or below the smallest sigma the certified grid of a sampler handles
(``Sampler.min_sigma``), is accepted and answered with the trivial bounds (eps = inf,
delta = 1): a bound, not an error, so that ``dp_accounting.calibrate_dp_mechanism`` can search
from 0. ``NonPrivateDpEvent`` (a release without privacy) is answered the same way, as
dp_accounting's ``PLDAccountant`` does. ``LaplaceDpEvent`` is refused with its reason: the
project's dominating pairs are for Gaussian noise (dp_accounting's ``PLDAccountant`` accounts
Laplace noise; k releases at parameter b are also (k / b, 0)-DP).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import dp_accounting

from dpsampling.accountants.certified.kept_bins import kept_bins_phases
from dpsampling.accountants.run import Phase
from dpsampling.integrations.events import RANDOM_ALLOCATION_EVENTS, KeptBinsDpEvent, ShuffledDpEvent
from dpsampling.samplers import BALLS_AND_BINS, DETERMINISTIC, POISSON, SHUFFLE, WOR, sampler_entry

ADD_OR_REMOVE_ONE = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
REPLACE_ONE = dp_accounting.NeighboringRelation.REPLACE_ONE
RELATIONS = (ADD_OR_REMOVE_ONE, REPLACE_ONE)

SAMPLING_EVENTS = (dp_accounting.PoissonSampledDpEvent, dp_accounting.SampledWithoutReplacementDpEvent,
                   dp_accounting.SampledWithReplacementDpEvent, *RANDOM_ALLOCATION_EVENTS, KeptBinsDpEvent,
                   ShuffledDpEvent)


class Unsupported(Exception):
    """An event the project cannot certify: ``event`` (the sub-event) and ``reason``."""

    def __init__(self, event, reason: str):
        super().__init__(reason)
        self.event, self.reason = event, reason


@dataclass(frozen=True)
class Part:
    """One kind of step: ``Phase(sampler, sigma, **fields, **{unit: count})``; ``sigma_lower`` is
    the sigma of the dominated phase where the run lies between two (kept bins, partial last
    epoch), else ``sigma``. ``relation``: the face's relation it is accounted under;
    ``trivial``: why it has no certified bound (then eps = inf), else None."""

    sampler: str
    sigma: float
    fields: tuple
    unit: str
    relation: str = "add_or_remove"
    sigma_lower: float | None = None
    trivial: str | None = None

    def phase(self, count: int, lower: bool = False) -> Phase:
        sigma = self.sigma_lower if lower and self.sigma_lower is not None else self.sigma
        return Phase(self.sampler, sigma, **dict(self.fields), **{self.unit: count})


def _field(event, name: str, value, allowed: str, ok: bool):
    if not ok:
        raise ValueError(f"{type(event).__name__}.{name} must be {allowed}; got {value!r}")
    return value


def _integer(event, name: str, lower: int, upper: int | None = None) -> int:
    value = getattr(event, name)
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= lower
    ok = ok and (upper is None or value <= upper)
    allowed = f"an integer >= {lower}" if upper is None else f"an integer in [{lower}, {upper}]"
    return int(_field(event, name, value, allowed, ok))


def _real(event, name: str, lower: float, upper: float = math.inf) -> float:
    value = getattr(event, name)
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and lower <= value <= upper
    ok = ok and math.isfinite(value)
    allowed = f"a finite number >= {lower:g}" if upper == math.inf else f"a number in [{lower:g}, {upper:g}]"
    return float(_field(event, name, value, allowed, ok))


def _noise(event, inner) -> float:
    """The noise multiplier of a sampling event's per-step event, which must be Gaussian."""
    if isinstance(inner, SAMPLING_EVENTS):
        raise Unsupported(event, f"nested sampling ({type(inner).__name__} inside {type(event).__name__}): the "
                                 "project has no dominating pair for sampling a sample")
    if not isinstance(inner, dp_accounting.GaussianDpEvent):
        raise Unsupported(event, f"the per-step event of {type(event).__name__} must be a GaussianDpEvent (the "
                                 f"project's dominating pairs are for Gaussian noise); got {type(inner).__name__}")
    return _real(inner, "noise_multiplier", 0.0)


def _part(sampler: str, z: float, fields: tuple, unit: str, relation: str = "add_or_remove",
          z_lower: float | None = None) -> Part:
    """A part at noise z; z = 0 or below the sampler's grid makes it trivial (eps = inf)."""
    spec = sampler_entry(sampler)
    trivial = None
    if z == 0.0:
        trivial = "noise_multiplier 0: no noise, eps is infinite"
    elif z < spec.min_sigma:
        trivial = (f"noise multiplier {z:g} is below {spec.min_sigma} for {sampler}, the smallest sigma its "
                   "certified grid handles; the only bound given is eps = inf")
    return Part(sampler, z if trivial is None else 1.0, fields, unit, relation, z_lower if trivial is None else None,
                trivial)


def _not_under_replace_one(event, relation) -> None:
    if relation == REPLACE_ONE:
        raise Unsupported(event, f"{type(event).__name__} under REPLACE_ONE: the project has no dominating pair for "
                                 "this sampler under replace-one (only GaussianDpEvent and "
                                 "SampledWithoutReplacementDpEvent, lebeda24's substitution, alone)")


def parts(event, count: int, relation) -> list[tuple[Part, int]]:
    """(Part, count) for ``event`` composed ``count`` times under ``relation`` (module docstring).
    Raises ``Unsupported`` for what the project cannot certify and ValueError for bad values."""
    if not isinstance(count, numbers.Integral) or isinstance(count, bool) or count < 0:
        raise Unsupported(event, f"count must be a non-negative integer; got {count!r}")
    if isinstance(event, dp_accounting.NoOpDpEvent):
        return []
    if isinstance(event, dp_accounting.NonPrivateDpEvent):
        trivial = "NonPrivateDpEvent: a release without privacy, eps is infinite (as PLDAccountant answers)"
        return [(Part(DETERMINISTIC.name, 1.0, (("steps_per_epoch", 1),), "epochs", trivial=trivial), count)]
    if isinstance(event, dp_accounting.LaplaceDpEvent):
        raise Unsupported(event, "LaplaceDpEvent: the project's certified pairs are for Gaussian noise, not Laplace; "
                                 "account it with dp_accounting.pld.PLDAccountant (k releases at parameter b are also "
                                 "(k / b, 0)-DP)")
    if isinstance(event, dp_accounting.SelfComposedDpEvent):
        inner = event.count
        if not isinstance(inner, numbers.Integral) or isinstance(inner, bool) or inner < 0:
            raise Unsupported(event, f"SelfComposedDpEvent.count must be a non-negative integer; got {inner!r}")
        return parts(event.event, count * int(inner), relation)
    if isinstance(event, dp_accounting.ComposedDpEvent):
        return [item for sub in event.events for item in parts(sub, count, relation)]
    if isinstance(event, dp_accounting.GaussianDpEvent):
        z = _real(event, "noise_multiplier", 0.0)
        z = z / 2.0 if relation == REPLACE_ONE else z
        return [(_part(DETERMINISTIC.name, z, (("steps_per_epoch", 1),), "epochs"), count)]
    if isinstance(event, dp_accounting.PoissonSampledDpEvent):
        q = _real(event, "sampling_probability", 0.0, 1.0)
        z = _noise(event, event.event)
        _not_under_replace_one(event, relation)
        return [] if q == 0.0 else [(_part(POISSON.name, z, (("sampling_rate", q),), "steps"), count)]
    if isinstance(event, dp_accounting.SampledWithoutReplacementDpEvent):
        n = _integer(event, "source_dataset_size", 1)
        b = _integer(event, "sample_size", 1, n)
        z = _noise(event, event.event)
        fields = (("dataset_size", n), ("batch_size", b))
        relation_name = "substitution" if relation == REPLACE_ONE else "add_or_remove"
        return [(_part(WOR.name, z, fields, "steps", relation_name), count)]
    if isinstance(event, RANDOM_ALLOCATION_EVENTS):
        steps = _integer(event, "num_steps", 1)
        selected = _integer(event, "num_selected", 1, steps)
        z = _noise(event, event.event)
        if selected != 1:
            raise Unsupported(event, f"num_selected = {selected}: the project's balls-and-bins pair is for one "
                                     "selection per record (num_selected = 1); more than one has no certified pair")
        _not_under_replace_one(event, relation)
        return [(_part(BALLS_AND_BINS.name, z, (("steps_per_epoch", steps),), "epochs"), count)]
    if isinstance(event, KeptBinsDpEvent):
        cycle = _integer(event, "cycle_length", 1)
        iterations = _integer(event, "iterations", cycle)
        z = _noise(event, event.event)
        _not_under_replace_one(event, relation)
        if z == 0.0:
            return [(_part(BALLS_AND_BINS.name, z, (("steps_per_epoch", cycle),), "epochs"), count)]
        dominated, dominating = kept_bins_phases(z, cycle, iterations)
        return [(_part(BALLS_AND_BINS.name, dominating.sigma, (("steps_per_epoch", cycle),), "epochs",
                       z_lower=dominated.sigma), count)]
    if isinstance(event, ShuffledDpEvent):
        steps = _integer(event, "num_steps", 1)
        z = _noise(event, event.event)
        _not_under_replace_one(event, relation)
        return [(_part(SHUFFLE.name, z, (("steps_per_epoch", steps),), "epochs"), count)]
    raise Unsupported(event, f"{type(event).__name__} is not an event the project certifies (supported: "
                             "Gaussian, Poisson-sampled, sampled-without-replacement, random-allocation, kept-bins and "
                             "shuffled Gaussian events, composed or self-composed)")


def merge(items, into: dict | None = None) -> dict:
    """{Part: total count}, first-seen order kept; parts counted 0 times are left out."""
    merged = dict(into or {})
    for part, count in items:
        if count:
            merged[part] = merged.get(part, 0) + count
    return merged


def run_phases(merged: dict, lower: bool = False) -> tuple[Phase, ...]:
    """The phases of the certified parts (the dominated ones with ``lower``)."""
    return tuple(part.phase(count, lower) for part, count in merged.items() if part.trivial is None)


def run_relation(merged: dict) -> str:
    """The face's relation: substitution where a part needs it, else add_or_remove."""
    return "substitution" if any(part.relation == "substitution" for part in merged) else "add_or_remove"


def trivial_reason(merged: dict) -> str | None:
    """Why the run has only the trivial bounds, if it has."""
    return next((part.trivial for part in merged if part.trivial is not None), None)


__all__ = ["RELATIONS", "Part", "Unsupported", "merge", "parts", "run_phases", "run_relation", "trivial_reason"]
