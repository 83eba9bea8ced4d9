"""The loader audit (docs/AUDIT.md): which sampler a loader's index batches behave like, and what
the user's accountant assumed against it.

    from dpsampling import audit
    verdict = audit(loader, epochs=3)                   # reads index batches only, never the data
    verdict.sampler, verdict.findings, verdict.consequence()
    check_accountant(verdict, privacy_engine, delta=1e-5).sentence

``sources`` reads the batches, ``verdict`` decides (``significance``: the tests and their null
distributions), ``check`` asks the face for both numbers.
"""

from __future__ import annotations

from dpsampling.auditing.check import Check, check_accountant
from dpsampling.auditing.sources import Draw, draw
from dpsampling.auditing.verdict import DEFAULT_ALPHA, Finding, Verdict, decide


def audit(loader, *, epochs: int = 3, dataset_size: int | None = None, steps_per_epoch: int | None = None,
          batch_size: int | None = None, seed: int = 0, alpha: float = DEFAULT_ALPHA) -> Verdict:
    """Draw ``epochs`` epochs of ``loader``'s index batches (``sources.draw``) and decide which
    sampler they behave like at false-alarm rate ``alpha`` (``verdict.decide``)."""
    return decide(draw(loader, epochs=epochs, dataset_size=dataset_size, steps_per_epoch=steps_per_epoch,
                       batch_size=batch_size, seed=seed), alpha)


__all__ = ["DEFAULT_ALPHA", "Check", "Draw", "Finding", "Verdict", "audit", "check_accountant", "decide", "draw"]
