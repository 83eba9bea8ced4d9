"""The sampler registry: one class per batch sampler (``base.Sampler``: its words, plot style, pair,
batch plan, audit words and audit signature in one place), one instance each, registered here once. Nothing else
names a sampler: code asks the instance (``sampler_entry(name)``, ``POISSON.name``,
``by_letter("W")``, ``rate_based``, ...), never compares or lists names (tests/test_layout.py).

The order of ``SAMPLERS`` is the papers' five, then issue 44's three: the papers' shard keys and
seeds use the indices and orders. Adding a sampler is one class and one line here; the tests
iterate ``SAMPLERS``. This package imports no numerical code (numpy neither): each class imports
its kernels inside its methods.
"""

from __future__ import annotations

from dpsampling.samplers.base import CERTIFIED_LOWER, CERTIFIED_UPPER, EXACT, AuditSignature, Sampler, check_choice
from dpsampling.samplers.correlated import BMinSep, CyclicPoisson, FixedBallsAndBins
from dpsampling.samplers.epochs import BallsAndBins, Deterministic, Shuffle
from dpsampling.samplers.subsampled import Poisson, WithoutReplacement

DETERMINISTIC, SHUFFLE, POISSON, BALLS_AND_BINS, WOR = (Deterministic(), Shuffle(), Poisson(), BallsAndBins(),
                                                        WithoutReplacement())
CYCLIC_POISSON, B_MIN_SEP, FIXED_BALLS_AND_BINS = CyclicPoisson(), BMinSep(), FixedBallsAndBins()
"""The registry's samplers by Python name: code outside the registry names a sampler this way
(``POISSON.name``), never by a string literal (tests/test_layout.py)."""

SAMPLERS: dict[str, Sampler] = {spec.name: spec for spec in (
    DETERMINISTIC, SHUFFLE, POISSON, BALLS_AND_BINS, WOR, CYCLIC_POISSON, B_MIN_SEP, FIXED_BALLS_AND_BINS)}
"""name -> the sampler, in registry order."""

SAMPLER_NAMES: tuple[str, ...] = tuple(SAMPLERS)
"""The samplers' names, in registry order (the CLI's and the config schema's choices)."""

GENERATORS: tuple[str, ...] = tuple(g for spec in SAMPLERS.values() if spec.generator_batches is not None
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
    """The sampler called ``name`` (ValueError naming the allowed ones otherwise)."""
    return SAMPLERS[check_choice("sampler", name, SAMPLER_NAMES)]


def generator_entry(generator) -> Sampler:
    """The sampler whose law ``generator`` (a sampler or one of its variants) draws."""
    check_choice("generator", generator, GENERATORS)
    return next(spec for spec in SAMPLERS.values() if generator in (spec.name, *spec.variants))


def by_letter(letter: str) -> Sampler:
    """The sampler whose letter (the papers' D, S, P, B, W; C, M, F for issue 44's) is ``letter``."""
    letters = {spec.letter: spec for spec in SAMPLERS.values()}
    return letters[check_choice("letter", letter, tuple(letters))]


def legend_name(name: str) -> str:
    """'Poisson (P)': a sampler's label and letter, as the figures' legends write it."""
    spec = sampler_entry(name)
    return f"{spec.label} ({spec.letter})"


def relation_help() -> str:
    """Which relations each sampler supports, for --help texts."""
    return "; ".join(f"{spec.name}: {', '.join(spec.relations)}" for spec in SAMPLERS.values())


__all__ = ["BALLS_AND_BINS", "B_MIN_SEP", "CERTIFIED_LOWER", "CERTIFIED_UPPER", "CYCLIC_POISSON", "DETERMINISTIC",
           "EXACT", "FIXED_BALLS_AND_BINS", "GENERATORS", "PAPER_RATE_BASED", "PAPER_SAMPLERS", "POISSON",
           "RATE_BASED", "SAMPLERS", "SAMPLER_NAMES", "SHUFFLE", "VARIABLE_SIZE", "WOR", "AuditSignature", "Sampler", "by_letter",
           "generator_entry", "legend_name", "relation_help", "sampler_entry"]
