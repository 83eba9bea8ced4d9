"""Which sampler a loader's index batches behave like: exact checks first, then statistical tests.

``decide(draw, alpha)`` reads a ``sources.Draw`` and returns a ``Verdict``. Exact checks (no false
alarm: each is a property of the batches seen) choose the branch:

1. repeats inside a batch: an example drawn m times in one step has m times the sensitivity the
   accountant assumes: no guarantee from these batches;
2. every epoch repeats the first epoch's batches (compared as sets, in any order): dependence
   across epochs. A loader whose first epoch is in index order with fixed sizes is the
   deterministic sampler (this is what it does); otherwise the first epoch's sampler at
   sigma / sqrt(K) for one epoch (K passes over the same batches add up to one Gaussian each),
   valid only if that epoch's randomness is fresh for each run (jax-privacy's kept bins; a
   sampler reseeded with a seed in the code is deterministic);
3. each example at most once per epoch (the partition branch: deterministic, shuffle,
   balls-and-bins) or not (the rate branch: Poisson, fixed size without replacement).

The correlated-noise samplers are recognised by their exact signatures (``signatures``): fixed
balls-and-bins is the kept-bins case of 2 (every epoch repeating a first epoch that passes as
balls-and-bins); cyclic Poisson (cycle length T) has each example at most once per epoch and always
at the same step of the epoch while epochs differ (with at least ``positions_needed`` examples drawn
twice: a fresh position would match by chance with probability T^-1 each); b-min-sep has no two
participations of an example closer than b >= 2 steps over the whole draw, where independent
inclusion at the rate seen would have missed every consecutive pair with probability at most
alpha / 100 (``consecutive_miss_probability``). Their tests, at alpha / k each: cyclic Poisson (k =
3): each example's presence in each epoch i.i.d. Bernoulli(q) (equal per-example counts, per-epoch
totals Bin(n, q), examples never drawn); b-min-sep (k = 2): the waits gap - b + 1 Geometric(p),
equal per-example rates.

Within a branch the sampler named is the registered one whose ``audit_signature`` (a
``samplers.base.AuditSignature``: its family of tests, its sizes, whether its epochs repeat, in index
order) matches what was observed (``matching_sampler``: exactly one, else none); this module names no
sampler. A finding against it then withdraws the name, except for an exact signature (deterministic).

Then the tests of ``significance`` at alpha / k each (k: the branch's number of tests, fixed before
any is run; Bonferroni), so that a loader that is one of the samplers is flagged with probability
at most alpha (where the chi-square approximations hold):

- partition branch (k = epochs + 2): batch position independent of example index (epoch 0) and of
  the previous epoch's position (epochs 1..); sizes fixed (shuffle) or Multinomial(n, 1/T)
  (balls-and-bins); examples left out of every epoch (drop_last dropping the same ones);
- rate branch (k = 4): equal per-example rates (else the largest, by a Clopper-Pearson bound at
  level 1 - alpha: an upper bound on the largest rate, loose after a few epochs since it is read
  off the most drawn example); examples never drawn (beside unequal rates, a consequence of them);
  independence of consecutive steps (overlaps); sizes
  fixed (wor) or Bin(n, q) (poisson). The same multiset of examples every epoch with one drawn
  several times (a duplicated index) is an exact finding.

What each finding means for the accounting is ``Verdict.bound``: ("sampler", name) the sampler
itself; ("per_epoch_cap", k) the deterministic bound with each example in at most k steps per
epoch (valid for any batches chosen independently of the data: every example is in at most k K
Gaussian steps); ("largest_rate", q) Poisson at the largest per-example rate, valid where examples are
included independently; None: no guarantee from these batches. A b-min-sep loader's bound is the
deterministic one with ceil(T / b) steps per epoch (its own pair has no certified bound for b >= 2:
its accounting is Monte Carlo, docs/MATRIX.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dpsampling.auditing import signatures
from dpsampling.auditing import significance as sig
from dpsampling.auditing.sources import Draw
from dpsampling.samplers import SAMPLERS, Sampler
from dpsampling.samplers.base import CONSTANT, CYCLIC, FIXED, MIN_SEPARATION, MULTINOMIAL, PARTITION, RATES, VARYING
from dpsampling.validation import check_open_unit

DEFAULT_ALPHA = 1e-3
"""The false-alarm rate of one audit (every test together), by default."""

@dataclass(frozen=True)
class Finding:
    """``kind``: repeats, epochs_repeat, order, sizes, never_drawn, unequal_rates, step_dependence,
    fixed_counts, gaps (b-min-sep's waits); ``text``: what was seen; ``p_value``: None for an exact fact."""

    kind: str
    text: str
    p_value: float | None = None


@dataclass
class Verdict:
    """The sampler the batches behave like (one of SAMPLERS, or None), why not where not, and
    what the accounting may use (``bound``: module docstring)."""

    sampler: str | None
    findings: list = field(default_factory=list)
    bound: tuple | None = None
    facts: dict = field(default_factory=dict)
    tests: list = field(default_factory=list)
    alpha: float = DEFAULT_ALPHA

    @property
    def matches(self) -> bool:
        """The batches are one of the registry's samplers, with nothing found against it."""
        return self.sampler is not None and not self.findings

    def finding(self, kind: str) -> Finding | None:
        return next((f for f in self.findings if f.kind == kind), None)

    def behaviour(self) -> str:
        """What the loader does, in words (after 'your loader ')."""
        if self.matches:
            return SAMPLERS[self.sampler].behaviour
        if self.sampler is not None:
            return f"{SAMPLERS[self.sampler].behaviour}, but " + "; ".join(f.text for f in self.findings)
        return "is none of the samplers: " + "; ".join(f.text for f in self.findings)

    def consequence(self) -> str:
        """What the accounting may claim, in words."""
        if self.bound is None:
            return "no guarantee from these batches"
        kind, value = self.bound
        if kind == "sampler" and self.finding("epochs_repeat"):
            return (f"one epoch of {value} at sigma / sqrt(K) (K passes over the same batches), valid only if the first "
                    "epoch's batches are drawn afresh for each run and never published; with a seed fixed in the code "
                    "the loader is deterministic")
        signature = SAMPLERS[value].audit_signature if kind == "sampler" else None
        if signature is not None and signature.epochs_repeat and not signature.exact:  # fixed bins: drawn once, kept
            return (f"the {value} accounting (with DP-SGD noise one balls-and-bins epoch at sigma / sqrt(K)), valid only "
                    "if the bins are drawn afresh for each run and never published; with a seed fixed in the code the "
                    "loader is deterministic")
        if kind == "sampler":
            return f"the {value} accounting"
        if kind == "per_epoch_cap":
            own = (f"; {self.sampler}'s own accounting is Monte Carlo (docs/MATRIX.md)"
                   if self.sampler is not None and SAMPLERS[self.sampler].matrix_only else "")
            return (f"the deterministic bound (each example in at most {value} step(s) per epoch, batches chosen "
                    f"independently of the data){own}")
        return (f"Poisson at the largest per-example rate q <= {value:.4g} (upper {1 - self.alpha:.4g} confidence "
                "bound), valid where examples are included independently; otherwise no guarantee from these batches")


def matching_sampler(observed: dict, candidates=None) -> Sampler | None:
    """The one sampler of ``candidates`` (default: the registry's) whose ``audit_signature`` matches
    ``observed`` (``AuditSignature.matches``); None where none does (a sampler without a signature
    never does); ValueError where several do (their signatures overlap)."""
    found = [spec for spec in (SAMPLERS.values() if candidates is None else candidates)
             if spec.audit_signature is not None and spec.audit_signature.matches(observed)]
    if len(found) > 1:
        raise ValueError(f"audit signatures must single out one sampler; {observed} matches "
                         f"{', '.join(spec.name for spec in found)}")
    return found[0] if found else None


def _name(verdict: Verdict, **observed) -> Sampler | None:
    """Name the sampler whose signature matches ``observed`` (None: none): a repeat its signature
    requires is no finding, and an exact signature is its bound at once."""
    spec = matching_sampler(observed)
    if spec is None:
        return None
    verdict.sampler = spec.name
    if spec.audit_signature.epochs_repeat:
        verdict.findings = [f for f in verdict.findings if f.kind != "epochs_repeat"]
    if spec.audit_signature.exact:
        verdict.bound = ("sampler", spec.name)
    return spec


def _record(tests: list, name: str, p_value: float, level: float) -> bool:
    rejected = p_value < level
    tests.append({"test": name, "p_value": p_value, "level": level, "rejected": bool(rejected)})
    return rejected


def _repeats(draw: Draw, epochs) -> tuple[int, int]:
    """(batches with a repeated example, the largest multiplicity in one batch)."""
    batches, largest = 0, 1
    n = draw.dataset_size
    for e in epochs:
        keys = np.sort(draw.batch_ids(e) * n + draw.indices[e])
        if keys.size < 2:
            continue
        same = keys[1:] == keys[:-1]
        if not same.any():
            continue
        starts = np.flatnonzero(np.concatenate([[True], ~same, [True]]))
        runs = np.diff(starts)
        largest = max(largest, int(runs.max()))
        batches += len(np.unique(keys[1:][same] // n))
    return batches, largest


def _batch_sets(draw: Draw, epoch: int, table: np.ndarray) -> np.ndarray:
    """Sorted fingerprints of an epoch's batches as sets (sum of random 64-bit labels, and size)."""
    sums = np.concatenate([np.zeros(1, np.uint64), np.cumsum(table[draw.indices[epoch]], dtype=np.uint64)])
    offsets = draw.offsets[epoch]
    fingerprints = (sums[offsets[1:]] - sums[offsets[:-1]]) ^ draw.sizes(epoch).astype(np.uint64)
    return np.sort(fingerprints)


def _epochs_repeat(draw: Draw) -> bool:
    if draw.epochs < 2:
        return False
    table = np.random.default_rng(0).integers(0, 2 ** 63, size=draw.dataset_size, dtype=np.uint64)
    first = _batch_sets(draw, 0, table)
    return all(np.array_equal(first, _batch_sets(draw, e, table)) for e in range(1, draw.epochs))


def _fixed_sizes(sizes: np.ndarray) -> bool:
    """Sizes differing by at most 1, or all equal but a smaller last batch (drop_last=False)."""
    if sizes.size < 2:
        return True
    return sizes.max() - sizes.min() <= 1 or (np.all(sizes[:-1] == sizes[0]) and sizes[-1] <= sizes[0])


def _positions(draw: Draw, epoch: int, groups: int) -> np.ndarray:
    """The position group (batch t -> t G // T) of every example; -1 where not drawn."""
    steps = len(draw.offsets[epoch]) - 1
    out = np.full(draw.dataset_size, -1, dtype=np.int64)
    out[draw.indices[epoch]] = draw.batch_ids(epoch) * groups // steps
    return out


def _partition(draw: Draw, used: list, verdict: Verdict, repeat: bool) -> None:
    n, tests = draw.dataset_size, verdict.tests
    level = verdict.alpha / (len(used) + 2)
    steps = len(draw.offsets[0]) - 1
    groups = sig.groups_for(n, steps)
    sizes = [draw.sizes(e) for e in used]
    fixed = all(_fixed_sizes(s) for s in sizes)
    observed = {"family": PARTITION, "epochs_repeat": repeat,
                "index_order": repeat and bool(np.all(np.diff(draw.indices[0]) > 0))}
    named = _name(verdict, sizes=FIXED, **observed) if fixed else None
    exact = named is not None and named.audit_signature.exact
    previous = np.arange(n, dtype=np.int64) * groups // n
    for e in used:
        current = _positions(draw, e, groups)
        both = (previous >= 0) & (current >= 0)
        p = sig.independence(previous[both], current[both], groups)
        if _record(tests, f"batch position independent of {'example index' if e == 0 else 'epoch ' + str(e - 1)} "
                          f"(epoch {e})", p, level) and not exact:
            what = "example index" if e == 0 else f"their batches in epoch {e - 1} (dependence across epochs)"
            verdict.findings.append(Finding("order", f"the batches of epoch {e} depend on {what}", p))
        previous = current
    if not fixed:
        p = sig.multinomial_sizes(sizes)
        if _record(tests, "batch sizes Multinomial(n, 1/T)", p, level):
            verdict.findings.append(Finding("sizes", "batch sizes vary, but not as Multinomial(n, 1/T)", p))
        else:
            _name(verdict, sizes=MULTINOMIAL, **observed)
    missing = int(np.count_nonzero(sum(np.bincount(draw.indices[e], minlength=n) for e in used) == 0))
    left_out = [n - len(draw.indices[e]) for e in used]
    verdict.facts.update(never_drawn=missing, left_out_per_epoch=left_out)
    if missing and (repeat or len(used) < 2):
        if repeat:
            verdict.findings.append(Finding("never_drawn", f"{missing} example(s) never drawn in any epoch (the same "
                                                           "ones left out every epoch)"))
    elif missing:
        p = sig.never_drawn_partition(missing, n, left_out)
        if _record(tests, "examples left out of every epoch", p, level):
            verdict.findings.append(Finding("never_drawn", f"{missing} example(s) never drawn in {len(used)} epochs "
                                                           "(drop_last dropping the same examples each epoch?)", p))
    if verdict.bound is None:  # (an exact signature has its bound already)
        if any(f.kind != "epochs_repeat" for f in verdict.findings):
            verdict.sampler = None
        verdict.bound = ("per_epoch_cap", 1) if verdict.sampler is None else ("sampler", verdict.sampler)


def _rates(draw: Draw, used: list, verdict: Verdict) -> None:
    n, tests = draw.dataset_size, verdict.tests
    level = verdict.alpha / 4
    indices = np.concatenate([draw.indices[e] for e in used])
    sizes = np.concatenate([draw.sizes(e) for e in used])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    steps = sizes.size
    counts = np.bincount(indices, minlength=n)
    rate = float(counts.sum()) / (n * steps)
    verdict.facts.update(rate=rate, steps_seen=steps)
    unequal = _record(tests, "equal per-example rates", sig.equal_counts(counts), level)
    if unequal:
        largest = sig.rate_upper(int(counts.max()), steps, verdict.alpha)
        verdict.facts["largest_rate"] = largest
        verdict.findings.append(Finding("unequal_rates", f"unequal per-example rates (the largest at most {largest:.4g}, "
                                                         f"against {rate:.4g} on average)", tests[-1]["p_value"]))
    missing = int(np.count_nonzero(counts == 0))
    verdict.facts["never_drawn"] = missing
    p = sig.never_drawn_binomial(missing, n, (1.0 - rate) ** steps)
    if _record(tests, "examples never drawn", p, level):
        verdict.findings.append(Finding("never_drawn", f"{missing} example(s) never drawn in {steps} steps", p))
    observed, mean, p = sig.overlap(indices, offsets, n)
    if _record(tests, "consecutive steps independent (overlaps)", p, level):
        verdict.findings.append(Finding("step_dependence", f"consecutive batches share {observed:.0f} examples where "
                                                           f"independent draws share {mean:.1f} on average", p))
    constant = bool(np.all(sizes == sizes[0]))
    if not constant and _record(tests, "batch sizes Bin(n, q)", sig.binomial_sizes(sizes, n), level):
        verdict.findings.append(Finding("sizes", "batch sizes vary, but not as Bin(n, q)", tests[-1]["p_value"]))
    others = [f for f in verdict.findings if f.kind != "epochs_repeat"]
    named = None if others else _name(verdict, family=RATES, sizes=CONSTANT if constant else VARYING,
                                      epochs_repeat=verdict.facts["epochs_repeat"])
    if named is not None:
        verdict.bound = ("sampler", named.name)
    elif unequal and not constant and {f.kind for f in others} <= {"unequal_rates", "never_drawn"}:
        verdict.bound = ("largest_rate", verdict.facts["largest_rate"])


def _cyclic(draw: Draw, positions: np.ndarray, verdict: Verdict) -> None:
    """The cyclic branch (cyclic Poisson, module docstring): each example's presence in each epoch i.i.d.
    Bernoulli(q), tested at alpha / 3 each."""
    n, tests, level = draw.dataset_size, verdict.tests, verdict.alpha / 3
    drawn = positions >= 0
    counts, totals = drawn.sum(axis=0), drawn.sum(axis=1)
    rate = float(counts.sum()) / (n * draw.epochs)
    verdict.facts.update(rate=rate, steps_seen=draw.epochs, cycle_length=len(draw.offsets[0]) - 1)
    if _record(tests, "equal per-example counts over the epochs", sig.equal_counts(counts), level):
        verdict.findings.append(Finding("unequal_rates", "examples drawn in unequal numbers of epochs",
                                        tests[-1]["p_value"]))
    if _record(tests, "examples per epoch Bin(n, q)", sig.binomial_sizes(totals, n), level):
        verdict.findings.append(Finding("sizes", "the number of examples per epoch varies, but not as Bin(n, q)",
                                        tests[-1]["p_value"]))
    missing = int(np.count_nonzero(counts == 0))
    verdict.facts["never_drawn"] = missing
    p = sig.never_drawn_binomial(missing, n, (1.0 - rate) ** draw.epochs)
    if _record(tests, "examples never drawn", p, level):
        verdict.findings.append(Finding("never_drawn", f"{missing} example(s) never drawn in {draw.epochs} epochs", p))
    named = None if verdict.findings else _name(verdict, family=CYCLIC, epochs_repeat=False)
    verdict.bound = ("per_epoch_cap", 1) if named is None else ("sampler", named.name)


def _min_separation(draw: Draw, gaps: np.ndarray, used: list, verdict: Verdict) -> None:
    """The min_separation branch (b-min-sep, module docstring): geometric waits and equal rates, at alpha / 2 each."""
    n, tests, level = draw.dataset_size, verdict.tests, verdict.alpha / 2
    separation = int(gaps.min())
    renewal_rate, p = signatures.geometric_gaps(gaps, separation)
    steps = sum(len(draw.offsets[e]) - 1 for e in used)
    counts = sum(np.bincount(draw.indices[e], minlength=n) for e in used)
    verdict.facts.update(min_separation=separation, renewal_rate=renewal_rate, steps_seen=steps,
                         rate=float(counts.sum()) / (n * steps))
    if _record(tests, f"waits gap - {separation - 1} Geometric(p)", p, level):
        verdict.findings.append(Finding("gaps", f"the gaps between participations (at least {separation} steps) are "
                                                "not a fixed separation then a geometric wait", p))
    if _record(tests, "equal per-example rates", sig.equal_counts(counts), level):
        verdict.findings.append(Finding("unequal_rates", "unequal per-example rates", tests[-1]["p_value"]))
    if not verdict.findings:
        _name(verdict, family=MIN_SEPARATION, epochs_repeat=verdict.facts["epochs_repeat"])
    per_epoch = max(len(draw.offsets[e]) - 1 for e in used)
    verdict.bound = ("per_epoch_cap", -(-per_epoch // separation))  # at most ceil(T / b) steps per epoch


def decide(draw: Draw, alpha: float = DEFAULT_ALPHA) -> Verdict:
    """The verdict on ``draw``'s batches at false-alarm rate ``alpha`` (module docstring)."""
    alpha = check_open_unit("alpha", alpha)
    n = draw.dataset_size
    verdict = Verdict(None, alpha=alpha)
    sizes = np.concatenate([draw.sizes(e) for e in range(draw.epochs)])
    verdict.facts.update(dataset_size=n, epochs=draw.epochs, steps_per_epoch=len(draw.offsets[0]) - 1,
                         mean_batch_size=float(sizes.mean()), smallest_batch=int(sizes.min()),
                         largest_batch=int(sizes.max()), source=draw.source, notes=list(draw.notes))
    repeated, multiplicity = _repeats(draw, range(draw.epochs))
    if repeated:
        verdict.findings.append(Finding("repeats", f"{repeated} batch(es) hold an example more than once (up to "
                                                   f"{multiplicity} times)"))
        verdict.facts["largest_multiplicity"] = multiplicity
        return verdict
    if draw.epochs < 2:
        verdict.facts["notes"].append("one epoch drawn: nothing is said across epochs (draw at least 2)")
    repeat = _epochs_repeat(draw)
    verdict.facts["epochs_repeat"] = repeat
    if repeat:
        verdict.findings.append(Finding("epochs_repeat", "every epoch repeats the first epoch's batches (dependence "
                                                         "across epochs: a sampler reseeded identically each epoch?)"))
    used = [0] if repeat else list(range(draw.epochs))
    counts = [np.bincount(draw.indices[e], minlength=n) for e in used]
    if all(c.max() <= 1 for c in counts):
        if not repeat and draw.epochs >= 2:
            positions = signatures.presence(draw)
            twice, fixed = signatures.fixed_positions(positions)
            if fixed and twice >= signatures.positions_needed(verdict.facts["steps_per_epoch"], alpha):
                _cyclic(draw, positions, verdict)
                return verdict
        _partition(draw, used, verdict, repeat)
        return verdict
    if len(used) >= 2 and all(np.array_equal(counts[0], c) for c in counts[1:]):
        most = int(counts[0].max())
        verdict.findings.append(Finding("fixed_counts", f"the same examples every epoch, {int((counts[0] > 1).sum())} of "
                                                        f"them up to {most} times (a duplicated index?), "
                                                        f"{int((counts[0] == 0).sum())} never"))
        verdict.bound = ("per_epoch_cap", most)
        return verdict
    gaps = signatures.participation_gaps(draw)
    steps = sum(len(draw.offsets[e]) - 1 for e in used)
    rate = float(sum(c.sum() for c in counts)) / (n * steps)
    if gaps.size and gaps.min() >= 2 and signatures.consecutive_miss_probability(n, steps, rate) <= alpha / 100:
        _min_separation(draw, gaps, used, verdict)
        return verdict
    _rates(draw, used, verdict)
    return verdict


__all__ = ["DEFAULT_ALPHA", "Finding", "Verdict", "decide", "matching_sampler"]
