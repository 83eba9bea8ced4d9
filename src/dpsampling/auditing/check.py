"""The accountant check: what the user's accountant assumed, against what the loader does.

``check_accountant(verdict, accountant, delta)`` reads the run the accountant assumed from its
own object (``assumed_phases``), makes the run the loader's batches support from the verdict
(``loader_phase``) on the same noise and number of steps, and asks the face (``Accountant``) for
the certified eps bounds of both and of every sampler on that run; no eps is computed here. What
the user's accountant reports is asked of it (its ``get_epsilon(delta)``, where it has one) and
said as theirs; every other number of the sentence is labelled ours.

What is read as the accountant (duck typed; torch and jax are never imported):

- a ``Phase`` or a sequence of them (the CLI's flags);
- an Opacus ``PrivacyEngine`` (its ``accountant``), an Opacus accountant (its ``history`` of
  (noise multiplier, sample rate, steps): Poisson at that rate, as Opacus accounts), or the
  history itself; our Opacus-protocol accountant (its ``phases()``);
- a dp_accounting ``DpEvent`` (``integrations.ledger``: the phases ``CertifiedAccountant`` composes);
- a jax-privacy ``DpParams`` (POISSON: poisson at batch_size / num_samples; FIXED_BATCH_SIZE: wor),
  with ``steps`` (its num_updates).

The check needs one noise multiplier (one phase). The loader's run, T its batches per epoch and K
= ceil(steps / T) epochs: the verdict's sampler (Poisson at the accountant's rate when the batches
are consistent with it, else at the upper confidence bound of their rate; wor at its batch size),
one epoch at sigma / sqrt(K) where every epoch repeats the first (a reseeded sampler), the
correlated-noise sampler recognised (fixed balls-and-bins over K epochs of T; cyclic Poisson of cycle
length T over K cycles, at its rate as Poisson's), the deterministic bound, Poisson at the largest
per-example rate, or nothing (no guarantee).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import pandas as pd
from scipy import stats

from dpsampling.accountants import printed
from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.frames import headline_value
from dpsampling.accountants.relations import ADD_OR_REMOVE
from dpsampling.accountants.run import Phase, as_phases
from dpsampling.auditing.significance import rate_upper
from dpsampling.auditing.verdict import Verdict
from dpsampling.samplers import DETERMINISTIC, PAPER_SAMPLERS, POISSON, SAMPLERS, WOR
from dpsampling.validation import check_choice, check_int_at_least, check_open_unit


@dataclass
class Check:
    """The answer: ``frame`` (the face's long frames, one block per run, columns ``run``
    (assumed, loader, alternative) and ``sampler``), the phases, the ``sentence`` to read."""

    assumed: tuple
    loader: tuple | None
    frame: pd.DataFrame
    sentence: str
    notes: list = field(default_factory=list)
    reported: float | None = None
    """What the user's accountant returned (its ``get_epsilon(delta)``), None where it has none."""

    @property
    def mismatch(self) -> bool:
        return not self.sentence.startswith("your loader does what your accountant assumes")


def _history_phases(history) -> tuple[Phase, ...]:
    phases = []
    for entry in history:
        if len(entry) != 3:
            raise ValueError(f"accountant history entries must be (noise_multiplier, sample_rate, steps); got {entry!r}")
        z, q, steps = entry
        if steps:
            phases.append(Phase(POISSON.name, float(z), sampling_rate=float(q), steps=int(steps)))
    return tuple(phases)


def _dp_params_phases(params, steps) -> tuple[Phase, ...]:
    if steps is None:
        raise ValueError("steps must be given with a jax-privacy DpParams (its num_updates); got None")
    steps = check_int_at_least("steps", steps, 1)
    z, n, b = params.noise_multipliers, params.num_samples, params.batch_size
    if not isinstance(z, (int, float)) or not isinstance(b, int) or (params.cycle_length or 1) != 1:
        raise ValueError("accountant must be a DpParams with one noise multiplier, one batch size and no cycles for "
                         f"the check; got noise_multipliers={z!r}, batch_size={b!r}, cycle_length={params.cycle_length!r}")
    method = getattr(params.sampling_method, "name", str(params.sampling_method))
    sampler = WOR.name if method == "FIXED_BATCH_SIZE" else POISSON.name
    return (Phase(sampler, float(z), dataset_size=int(n), batch_size=b, steps=steps),)


def _event_phases(event) -> tuple[Phase, ...]:
    from dpsampling.integrations import ledger

    merged = ledger.merge(ledger.parts(event, 1, ledger.ADD_OR_REMOVE_ONE))
    reason = ledger.trivial_reason(merged)
    if reason is not None:
        raise ValueError(f"accountant must have a certified bound to compare with; got an event with {reason}")
    return ledger.run_phases(merged)


def assumed_phases(accountant, steps: int | None = None) -> tuple[Phase, ...]:
    """The run ``accountant`` assumed (module docstring)."""
    if isinstance(accountant, Phase) or (isinstance(accountant, (list, tuple)) and accountant
                                         and all(isinstance(p, Phase) for p in accountant)):
        return as_phases(accountant)
    if hasattr(accountant, "accountant") and hasattr(accountant.accountant, "history"):
        return assumed_phases(accountant.accountant, steps)
    if hasattr(accountant, "history") and callable(getattr(accountant, "phases", None)):
        return accountant.phases()
    if hasattr(accountant, "history"):
        return _history_phases(accountant.history)
    if isinstance(accountant, list) and accountant and all(isinstance(e, (tuple, list)) for e in accountant):
        return _history_phases(accountant)
    if all(hasattr(accountant, name) for name in ("noise_multipliers", "num_samples", "batch_size")):
        return _dp_params_phases(accountant, steps)
    if type(accountant).__module__.startswith(("dp_accounting", "dpsampling.integrations")):
        return _event_phases(accountant)
    raise ValueError(f"accountant must be a Phase, an Opacus PrivacyEngine or accountant (or its history), a "
                     f"dp_accounting DpEvent or a jax-privacy DpParams; got a {type(accountant).__name__}")


def _rate_consistent(verdict: Verdict, rate: float) -> bool:
    """Two-sided exact binomial test of the draws seen against Bin(n S, rate), at the verdict's alpha."""
    n, steps = verdict.facts["dataset_size"], verdict.facts["steps_seen"]
    drawn = round(verdict.facts["rate"] * n * steps)
    return stats.binomtest(drawn, n * steps, rate).pvalue >= verdict.alpha


def loader_phase(verdict: Verdict, assumed: Phase) -> Phase | None:
    """The run the loader's batches support at the assumed noise and length (module docstring)."""
    if verdict.bound is None:
        return None
    facts, sigma, steps = verdict.facts, assumed.sigma, assumed.steps
    per_epoch = facts["steps_per_epoch"]
    epochs = max(1, math.ceil(steps / per_epoch))
    kind, value = verdict.bound
    if kind == "per_epoch_cap":
        return Phase(DETERMINISTIC.name, sigma, steps_per_epoch=per_epoch, epochs=value * epochs)
    if kind == "largest_rate":
        return Phase(POISSON.name, sigma, sampling_rate=value, steps=steps)
    if verdict.finding("epochs_repeat"):
        sigma, length, epochs = sigma / math.sqrt(epochs), per_epoch, 1
    else:
        length = steps
    spec = SAMPLERS[value]
    if spec.rate_based and not spec.variable_size:  # fixed-size batches: the rate is b / n
        return Phase(value, sigma, dataset_size=facts["dataset_size"], batch_size=facts["largest_batch"], steps=length)
    if spec.rate_based:  # independent inclusion: the assumed rate where the batches bear it out
        rate = assumed.sampling_rate
        if rate is None or not _rate_consistent(verdict, rate):
            seen = facts["dataset_size"] * facts["steps_seen"]
            rate = rate_upper(round(facts["rate"] * seen), seen, verdict.alpha)
        if spec.matrix_only:  # cyclic Poisson: whole cycles of its cycle length, the steps of an epoch
            return Phase(value, sigma, sampling_rate=rate, steps_per_epoch=per_epoch, epochs=epochs)
        return Phase(value, sigma, sampling_rate=rate, steps=length)
    return Phase(value, sigma, steps_per_epoch=per_epoch, epochs=epochs)


def _alternatives(assumed: Phase, per_epoch: int) -> list[Phase]:
    """Every one of the papers' samplers (the verdict's candidates; the correlated-noise samplers
    take a cycle length, a rate or a separation of their own) on the assumed run: the same sigma,
    rate (or 1/T) and steps; T batches per epoch."""
    rate = assumed.sampling_rate or 1.0 / per_epoch
    epochs = max(1, math.ceil(assumed.steps / per_epoch))
    return [Phase(s, assumed.sigma, sampling_rate=rate, steps=assumed.steps) if SAMPLERS[s].rate_based
            else Phase(s, assumed.sigma, steps_per_epoch=per_epoch, epochs=epochs) for s in PAPER_SAMPLERS]


def rounded(value: float, up: bool) -> str:
    """``value`` rounded outward (an upper bound up, a lower bound down) to 2 decimals, or 3
    significant digits below 1 (``printed``: exact decimal arithmetic)."""
    if not math.isfinite(value) or value == 0:
        return f"{value:g}"
    places = max(2, 2 - math.floor(math.log10(abs(value))))
    return printed.upper_places(value, places) if up else printed.lower_places(value, places)


def reported_epsilon(accountant, delta: float) -> float | None:
    """What the user's accountant itself reports: its ``get_epsilon(delta)`` called (an Opacus
    PrivacyEngine or accountant, ours), None for a run description (a Phase, a history, a DpEvent,
    DpParams). Its error, or an answer that is not a number, is refused naming the accountant."""
    get = getattr(accountant, "get_epsilon", None)
    if isinstance(accountant, Phase) or not callable(get):
        return None
    try:
        value = get(delta)
    except Exception as error:  # the user's code: theirs, said in one line
        last = " ".join(str(error).split()) or "(no message)"
        raise ValueError(f"accountant raised {type(error).__name__} in its get_epsilon({delta:g}): {last} (your "
                         "accountant's code, not dpsampling's)") from error
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value) or value < 0:
        raise ValueError(f"accountant must return a number >= 0 from get_epsilon({delta:g}); got "
                         f"{type(value).__name__} {value!r}")
    return float(value)


def _claim(target: float, reported: float | None) -> str:
    """The eps claimed: the user's accountant's as it returns it, else our upper bound rounded up."""
    return rounded(target, True) if reported is None else f"{reported:.5g}"


def _words(phase: Phase) -> str:
    if phase.sampling_rate is not None:
        return f"{phase.sampler} at q = {phase.sampling_rate:.3g}, sigma {phase.sigma:.3g}, {phase.steps:,} steps"
    return f"{phase.sampler}, {phase.steps_per_epoch:,} batches x {phase.epochs:,} epochs, sigma {phase.sigma:.3g}"


def _same_run(mine: Phase, assumed: Phase) -> bool:
    """The same sampler, noise and length, at the same rate (rate-based) or T (epoch-based)."""
    if (mine.sampler, mine.sigma, mine.steps) != (assumed.sampler, assumed.sigma, assumed.steps):
        return False
    if mine.sampling_rate is not None:
        return math.isclose(mine.sampling_rate, assumed.sampling_rate, rel_tol=1e-9)
    return mine.steps_per_epoch == assumed.steps_per_epoch


def check_accountant(verdict: Verdict, accountant, delta: float, *, steps: int | None = None,
                     relation: str = "add_or_remove") -> Check:
    """Both numbers and the sentence (module docstring), at ``delta``, under ``relation``."""
    delta = check_open_unit("delta", delta)
    relation = check_choice("relation", relation, ADD_OR_REMOVE)
    phases = assumed_phases(accountant, steps)
    if len(phases) != 1:
        raise ValueError(f"accountant must describe one phase (one noise multiplier) for the check; got {len(phases)}: "
                         f"{'; '.join(p.describe() for p in phases)}")
    assumed = phases[0]

    def bounds(phase, role):
        frame = Accountant(phase, relation=relation).epsilon_bounds([delta])
        return frame.assign(run=role, sampler=phase.sampler)

    frames = [bounds(assumed, "assumed")]
    ours = headline_value(frames[0])
    reported = reported_epsilon(accountant, delta)
    target = ours if reported is None else reported  # the eps the user claims: theirs where we can ask it
    said = (f"your accountant assumes {_words(assumed)} (our certified eps for it: {rounded(ours, True)})"
            if reported is None else
            f"your accountant reports {reported:.5g} as {_words(assumed)} (our certified eps for it: "
            f"{rounded(ours, True)})")
    head = f"{said}; your loader {verdict.behaviour()}"
    mine = loader_phase(verdict, assumed)
    if mine is None:
        sentence = f"{head}: {verdict.consequence()}"
    else:
        frames.append(bounds(mine, "loader"))
        lower, upper = headline_value(frames[1], "lower"), headline_value(frames[1])
        bracket = f"[{rounded(lower, False)}, {rounded(upper, True)}]"
        if verdict.matches and _same_run(mine, assumed):
            sentence = (f"your loader does what your accountant assumes ({verdict.sampler}): our certified bracket is "
                        f"{bracket} at delta {delta:g}")
            if reported is not None:
                sentence += f"; your accountant reports {reported:.5g}"
        else:
            sentence = f"{head}: our certified bracket is {bracket} ({_words(mine)})"
            if upper <= target:
                whose = "your accountant reports" if reported is not None else "we certify for the run assumed"
                sentence += f"; the eps {whose}, {_claim(target, reported)}, holds for your loader too"
    if mine is None or (not sentence.startswith("your loader does") and not sentence.endswith("too")):
        good = []
        for phase in _alternatives(assumed, verdict.facts["steps_per_epoch"]):
            frame = bounds(phase, "alternative")
            frames.append(frame)
            if headline_value(frame) <= target * (1 + 1e-9):
                good.append(f"{SAMPLERS[phase.sampler].audit_words} (ours: {rounded(headline_value(frame), True)})")
        eps = _claim(target, reported)
        sentence += (f"; to claim eps {eps} use {' or '.join(good)}" if good else
                     f"; no sampler reaches eps {eps} on this run")
    frame = pd.concat(frames, ignore_index=True)
    frame.attrs.update(frames[0].attrs, phases=[f.attrs["phases"][0] for f in frames])
    return Check(phases, None if mine is None else (mine,), frame, sentence, reported=reported)


__all__ = ["Check", "assumed_phases", "check_accountant", "loader_phase"]
