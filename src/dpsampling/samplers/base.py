"""What one batch sampler is: the base class every sampler of the registry (``dpsampling.samplers``)
is one subclass of, with one instance.

A sampler's class holds in one place:

- its words: ``name`` (the CLI's and the config's), ``letter`` (the papers' D, S, P, B, W; C, M, F
  for issue 44's), ``title``, ``label`` (legends write ``f"{label} ({letter})"``), ``doc``, the
  methods of its bounds (``lower_method``, ``upper_method``), and the audit's words of it
  (``audit_words``: how the accountant check names its batches; ``behaviour``: what a loader
  drawing it does, after "your loader "), and ``audit_signature`` (an ``AuditSignature``: what the
  audit must observe to name it; None: never named);
- its plot style: ``colour`` (and ``label``);
- its run: ``rate_based`` (described by a sampling rate q, else by T steps per epoch and K epochs),
  ``variable_size`` (batch sizes vary: truncation applies), ``inclusion_rate(n, b, T)`` (the
  probability that one example is in one batch of the loader, None where it has none of its own),
  ``relations``, ``correlated_noise`` (the ``accountants.matrix`` law a phase with banded
  correlated noise is accounted as, None where unsupported), ``matrix_only`` (one of issue 44's
  correlated-noise samplers, accounted through that law alone, docs/MATRIX.md);
- its pair: ``distance`` of the two components of a rate-based pair (data in [-1, 1]), ``tight``
  (else the answer is a bracket), ``monte_carlo`` (chua25's estimators), ``laws(phase,
  refinement)`` (the certified engine's laws of the phase's likelihood ratio and the largest array
  used), ``gaussian_weight(phase)`` ((sensitivity / sigma)^2 where the phase is one Gaussian
  mechanism), ``closed_form(phase, quantity, values)`` (bounds of a phase without a pair to
  compose: ((n, 3, 2) bounds, attrs)), ``substitution`` and ``reference`` (dp-accounting's PLD);
  each None where it has none;
- its batch plan: ``generator_batches(generator, n, T, seed, b)`` (one epoch of T batches drawn by
  ``generator``, its name or one of its ``variants``: other generators of the same law;
  ``batches.make_batches``), ``epoch_plan(n, T, b, rng)`` (the loader's epoch, one stream per
  epoch: the papers' samplers) or ``run_plan(n, steps, T, participation, rng)`` (the loader's
  first ``steps`` steps, one stream for the whole run: the correlated-noise samplers);
- what the benchmarks need: ``peers_model`` (dp-accounting and prv-accountant model its pair, at
  noise sigma / distance).

The bodies import their kernels (engine, closed forms, references, generators) inside the methods:
importing the registry loads no numpy (the CLI's --help reads the names), and no kernel imports the
registry (tests/test_layout.py).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from dpsampling import ADD_OR_REMOVE, RELATIONS

EXACT = "exact Gaussian mechanism (chua24 Prop. 3.1)"
CERTIFIED_LOWER = "certified lower law (Jensen)"
CERTIFIED_UPPER = "certified upper law (convex order)"

PARTITION, RATES, CYCLIC, MIN_SEPARATION = "partition", "rates", "cyclic", "min_separation"
"""The loader audit's families of tests (``auditing.verdict``): each example at most once per epoch;
otherwise; each example at one step of the epoch in every epoch (cyclic); participations at least
b >= 2 steps apart (min_separation)."""

FIXED, MULTINOMIAL, CONSTANT, VARYING = "fixed", "multinomial", "constant", "varying"
"""Batch sizes as the audit observes them: partition family: fixed (differing by at most 1, or equal
but a smaller last batch) or multinomial (varying, Multinomial(n, 1/T) not rejected); rates family:
constant (all equal) or varying."""


@dataclass(frozen=True)
class AuditSignature:
    """What the loader audit must observe to name a sampler: its ``family`` of tests and, within it,
    the ``sizes``, whether every epoch repeats the first epoch's batches (``epochs_repeat``) and
    whether it does so in index order (``index_order``: the first epoch's batches, in index order,
    every epoch); None: any. ``exact``: these exact properties are its whole law (no randomness to
    test), so no test's rejection is a finding against it. A required repeat is the sampler's own
    behaviour, not a finding."""

    family: str
    sizes: str | None = None
    epochs_repeat: bool | None = None
    index_order: bool | None = None
    exact: bool = False

    def matches(self, observed: dict) -> bool:
        """Every property it fixes is the one observed (a property not observed matches none)."""
        return all(getattr(self, f.name) is None or observed.get(f.name, None) == getattr(self, f.name)
                   for f in fields(self) if f.name != "exact")


def check_choice(name: str, value, allowed):
    """``validation.check_choice``, imported on first use (it loads numpy)."""
    from dpsampling.validation import check_choice as check

    return check(name, value, allowed)


class Sampler:
    """One batch sampler (module docstring); a subclass sets the class attributes and overrides
    the methods it has. Instances hold no state of their own (``__slots__ = ()``): immutable."""

    __slots__ = ()

    name: str
    letter: str
    title: str
    label: str
    colour: str
    doc: str
    audit_words: str
    behaviour: str
    audit_signature: AuditSignature | None = None
    lower_method = CERTIFIED_LOWER
    upper_method = CERTIFIED_UPPER
    rate_based = False
    variable_size = False
    relations: tuple[str, ...] = ADD_OR_REMOVE
    distance = 1.0
    tight = True
    monte_carlo = False
    peers_model = False
    variants: tuple[str, ...] = ()
    correlated_noise: str | None = None
    matrix_only = False
    laws = None
    closed_form = None
    substitution = None
    reference = None
    generator_batches = None
    epoch_plan = None
    run_plan = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def inclusion_rate(self, n: int, b: int, steps: int) -> float | None:
        return None

    def gaussian_weight(self, phase) -> float | None:
        return None

    @property
    def composable(self) -> bool:
        """Whether a phase of it composes with other phases (it has a dominating pair)."""
        return self.closed_form is None

    @property
    def min_sigma(self) -> float:
        """The smallest sigma: the engine's (at the pair's distance) where its laws are composed;
        0 where it is answered in closed form."""
        from dpsampling.accountants.certified.engine import MIN_SIGMA

        return MIN_SIGMA * self.distance if self.laws is not None else 0.0

    def check_sigma(self, sigma: float) -> None:
        if sigma < self.min_sigma:
            raise ValueError(f"sigma must be >= {self.min_sigma} for sampler {self.name} (below, the certified "
                             f"grid of its likelihood ratio passes the range of floating point); got {sigma!r}")

    def check_relation(self, relation: str) -> str:
        check_choice("relation", relation, RELATIONS)
        if relation not in self.relations:
            raise ValueError(f"relation must be one of {', '.join(self.relations)} for sampler {self.name}; "
                             f"got {relation!r}")
        return relation


__all__ = ["CERTIFIED_LOWER", "CERTIFIED_UPPER", "CONSTANT", "CYCLIC", "EXACT", "FIXED", "MIN_SEPARATION", "MULTINOMIAL",
           "PARTITION", "RATES", "VARYING", "AuditSignature", "Sampler", "check_choice"]
