"""The sampler registry: one entry per batch sampler, read by every layer; nothing else compares
sampler names.

An entry says what the sampler is called (name, letter, title, label), how it is drawn (colour),
how a run of it is described (by a sampling rate, or by epochs), what its data loader does
(whether batch sizes vary, the per-step inclusion rate, the generator variants with the same law)
and how it is accounted (the relations, the methods of its bounds, the distance of its pair,
whether the pair is tight, whether it has Monte Carlo estimators). The bodies of its laws live in
the layer that runs them, keyed by this registry and checked against it: the loader plan in
``dpsampling.batches`` (``PLANS``), the dominating pair in ``dpsampling.accountants.samplers``
(``LAWS``). Adding a sampler is one entry here plus its two laws; the tests iterate ``SAMPLERS``.

Papers and plots select samplers by these fields (``by_letter("W")``, ``rate_based``, ...) or by
their config, never by comparing names. This module imports no numerical code (numpy neither).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dpsampling import ADD_OR_REMOVE, RELATIONS

EXACT = "exact Gaussian mechanism (chua24 Prop. 3.1)"
CERTIFIED_LOWER = "certified lower law (Jensen)"
CERTIFIED_UPPER = "certified upper law (convex order)"


def _check_choice(name: str, value, allowed):
    """``validation.check_choice``, imported on first use (it loads numpy, which the names of this
    registry do not need: the CLI's --help reads them)."""
    from dpsampling.validation import check_choice as check

    return check(name, value, allowed)


def _no_rate(n: int, b: int, steps: int) -> None:
    return None


def _rate_b_over_n(n: int, b: int, steps: int) -> float:
    return b / n


def _rate_one_over_steps(n: int, b: int, steps: int) -> float:
    return 1.0 / steps


@dataclass(frozen=True)
class Sampler:
    """One batch sampler (module docstring).

    ``label``: the short name in legends ("Poisson (P)" is ``f"{label} ({letter})"``); ``colour``:
    its colour in every figure; ``rate_based``: a run is described by a sampling rate q (else by T
    steps per epoch and K epochs); ``variable_size``: batch sizes vary (truncation to a fixed size
    applies); ``inclusion_rate(n, b, T)``: the probability that one example is in one batch of the
    loader (None where the sampler has none of its own); ``variants``: other generators with the
    same law (training may use them); ``relations``: the adjacency relations it is accounted
    under; ``distance``: of the two components of a rate-based sampler's pair (data in [-1, 1]);
    ``tight``: the pair is tight (else the answer is a bracket); ``monte_carlo``: it has the
    papers' Monte Carlo estimators (``accountants.ballsbins``); ``correlated_noise``: the
    ``accountants.matrix`` sampler a phase of it with banded correlated noise (``coefficients``
    other than [1], docs/MATRIX.md) is accounted as (its cycle length: the steps per epoch, or 1
    for poisson), None where correlated noise is not supported; ``matrix_only``: it is one of the
    correlated-noise samplers of issue 44 (docs/MATRIX.md), accounted through that law alone (with
    coefficients [1] too) and not one of the papers' samplers: the papers' experiments, compare's
    default list and the alternatives the loader audit's check proposes are ``PAPER_SAMPLERS`` (the
    audit itself recognises these samplers' batches too, by their signatures: docs/AUDIT.md)."""

    name: str
    letter: str
    title: str
    label: str
    colour: str
    rate_based: bool
    variable_size: bool
    inclusion_rate: Callable
    relations: tuple[str, ...]
    lower_method: str
    upper_method: str
    doc: str
    distance: float = 1.0
    tight: bool = True
    monte_carlo: bool = False
    variants: tuple[str, ...] = ()
    correlated_noise: str | None = None
    matrix_only: bool = False

    def check_relation(self, relation: str) -> str:
        _check_choice("relation", relation, RELATIONS)
        if relation not in self.relations:
            raise ValueError(f"relation must be one of {', '.join(self.relations)} for sampler {self.name}; "
                             f"got {relation!r}")
        return relation


SAMPLERS: dict[str, Sampler] = {
    "deterministic": Sampler(
        "deterministic", "D", "deterministic batches", "deterministic", "black", rate_based=False,
        variable_size=False, inclusion_rate=_no_rate, relations=ADD_OR_REMOVE, lower_method=EXACT,
        upper_method=EXACT, doc="each example in exactly one fixed batch per epoch: the Gaussian mechanism, exact"),
    "shuffle": Sampler(
        "shuffle", "S", "shuffled batches", "shuffle", "tab:red", rate_based=False, variable_size=False,
        inclusion_rate=_no_rate, relations=ADD_OR_REMOVE, lower_method="E_C sets (chua24 eq. (3))",
        upper_method="delta_S <= delta_D (chua24 Thm 4.1)",
        doc="a fresh permutation per epoch cut into fixed batches; a bracket, no tight pair known", tight=False),
    "poisson": Sampler(
        "poisson", "P", "Poisson subsampling", "Poisson", "tab:blue", rate_based=True, variable_size=True,
        inclusion_rate=_rate_b_over_n, relations=ADD_OR_REMOVE, lower_method=CERTIFIED_LOWER,
        upper_method=CERTIFIED_UPPER, doc="each example in each step independently with probability q",
        correlated_noise="cyclic_poisson"),
    "balls_and_bins": Sampler(
        "balls_and_bins", "B", "balls-and-bins", "balls-and-bins", "tab:green", rate_based=False,
        variable_size=True, inclusion_rate=_rate_one_over_steps, relations=ADD_OR_REMOVE,
        lower_method=CERTIFIED_LOWER, upper_method=CERTIFIED_UPPER,
        doc="each example in one uniformly random step of each epoch (chua25)", monte_carlo=True,
        variants=("balls_and_bins_sequential",), correlated_noise="balls_and_bins"),
    "wor": Sampler(
        "wor", "W", "sampling without replacement", "WOR", "tab:purple", rate_based=True, variable_size=False,
        inclusion_rate=_rate_b_over_n, relations=(*ADD_OR_REMOVE, "substitution"), lower_method=CERTIFIED_LOWER,
        upper_method=CERTIFIED_UPPER,
        doc="a uniformly random batch of exactly b of n examples per step, q = b / n (lebeda24)",
        distance=2.0),  # its pair is Poisson's at sigma / 2 (lebeda24 Thm 10.2)
    # the correlated-noise samplers of issue 44 (docs/MATRIX.md), after the papers' five (whose
    # indices and orders the papers' shard keys and seeds use)
    "cyclic_poisson": Sampler(
        "cyclic_poisson", "C", "cyclic Poisson subsampling", "cyclic Poisson", "tab:orange", rate_based=True,
        variable_size=True, inclusion_rate=_no_rate, relations=ADD_OR_REMOVE, lower_method=CERTIFIED_LOWER,
        upper_method=CERTIFIED_UPPER,
        doc="k public groups (cycle length k = steps per epoch); at step t each example of group t mod k joins "
            "independently with probability q (Choquette-Choo et al. 2023)",
        correlated_noise="cyclic_poisson", matrix_only=True),  # its reduction is exact (docs/MATRIX.md)
    "b_min_sep": Sampler(
        "b_min_sep", "M", "b-min-sep sampling", "b-min-sep", "tab:brown", rate_based=True, variable_size=True,
        inclusion_rate=_no_rate, relations=ADD_OR_REMOVE, lower_method=CERTIFIED_LOWER,
        upper_method=CERTIFIED_UPPER,
        doc="each example's participations at least min_separation steps apart, the next one after a geometric(p) "
            "wait; optional warm start (Dong & Ganesh 2026)",
        tight=False, correlated_noise="b_min_sep", matrix_only=True),
    "fixed_balls_and_bins": Sampler(
        "fixed_balls_and_bins", "F", "fixed balls-and-bins", "fixed balls-and-bins", "tab:olive", rate_based=False,
        variable_size=True, inclusion_rate=_rate_one_over_steps, relations=ADD_OR_REMOVE,
        lower_method=CERTIFIED_LOWER, upper_method=CERTIFIED_UPPER,
        doc="each example in one uniformly random step of the cycle, the same step in every cycle (jax-privacy's "
            "balls-in-bins, Choquette-Choo et al. 2024)",
        correlated_noise="fixed_balls_and_bins", matrix_only=True),
}

DETERMINISTIC, SHUFFLE, POISSON, BALLS_AND_BINS, WOR, CYCLIC_POISSON, B_MIN_SEP, FIXED_BALLS_AND_BINS = SAMPLERS.values()
"""The registry's samplers by Python name: code outside the registry names a sampler this way
(``POISSON.name``), never by a string literal (tests/test_layout.py)."""

SAMPLER_NAMES: tuple[str, ...] = tuple(SAMPLERS)
"""The samplers' names, in registry order (the CLI's and the config schema's choices)."""

GENERATORS: tuple[str, ...] = tuple(g for spec in SAMPLERS.values() if not spec.matrix_only
                                    for g in (spec.name, *spec.variants))
"""The generators ``dpsampling.batches.make_batches`` draws one epoch with (from n, T, seed and b):
each of the papers' samplers, then its variants. The correlated-noise samplers' generators take
their own parameters (cycle length, rate, minimum separation: ``batches.cyclic_poisson_batches``,
...)."""

RATE_BASED: tuple[str, ...] = tuple(name for name, spec in SAMPLERS.items() if spec.rate_based)
"""The samplers described by a sampling rate (poisson, wor, cyclic_poisson, b_min_sep), in registry order."""

VARIABLE_SIZE: tuple[str, ...] = tuple(name for name, spec in SAMPLERS.items() if spec.variable_size)
"""The samplers whose batch sizes vary (truncation to a fixed size applies)."""

PAPER_SAMPLERS: tuple[str, ...] = tuple(name for name, spec in SAMPLERS.items() if not spec.matrix_only)
"""The papers' samplers (D, S, P, B, W), in registry order: their experiments, compare's default
list and the alternatives the loader audit's check proposes (the correlated-noise samplers are
``matrix_only``)."""

PAPER_RATE_BASED: tuple[str, ...] = tuple(name for name in RATE_BASED if name in PAPER_SAMPLERS)
"""The papers' rate-based samplers (poisson, wor), in registry order: lebeda24's samplers."""


def sampler_entry(name) -> Sampler:
    """The registry entry of ``name`` (ValueError naming the allowed ones otherwise)."""
    return SAMPLERS[_check_choice("sampler", name, SAMPLER_NAMES)]


def generator_entry(generator) -> Sampler:
    """The entry of the sampler whose law ``generator`` (a sampler or one of its variants) draws."""
    _check_choice("generator", generator, GENERATORS)
    return next(spec for spec in SAMPLERS.values() if generator in (spec.name, *spec.variants))


def by_letter(letter: str) -> Sampler:
    """The entry whose letter (the papers' D, S, P, B, W; C, M, F for issue 44's) is ``letter``."""
    letters = {spec.letter: spec for spec in SAMPLERS.values()}
    return letters[_check_choice("letter", letter, tuple(letters))]


def legend_name(name: str) -> str:
    """'Poisson (P)': a sampler's label and letter, as the figures' legends write it."""
    spec = sampler_entry(name)
    return f"{spec.label} ({spec.letter})"


__all__ = ["BALLS_AND_BINS", "B_MIN_SEP", "CERTIFIED_LOWER", "CERTIFIED_UPPER", "CYCLIC_POISSON", "DETERMINISTIC", "EXACT", "FIXED_BALLS_AND_BINS", "POISSON", "SHUFFLE", "WOR", "GENERATORS", "PAPER_RATE_BASED", "PAPER_SAMPLERS",
           "RATE_BASED", "SAMPLERS", "SAMPLER_NAMES", "VARIABLE_SIZE", "Sampler", "by_letter", "generator_entry", "legend_name", "sampler_entry"]
