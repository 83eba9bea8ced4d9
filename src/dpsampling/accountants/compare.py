"""What each way of batching costs for one training run: eps bounds, or the sigma needed, per sampler.

The run is described once, in ``run.Phase``'s keywords (a dataset of n examples with batch size b,
and epochs or total steps); each of the papers' samplers (``samplers.PAPER_SAMPLERS``; the
correlated-noise ones take a cycle length, a rate or a separation of their own) runs it at the
same sigma (poisson and wor at rate q = b / n, the others in T = ceil(n / b) batches per epoch)
and is accounted by the one ``Accountant``; the answers are its long frames, one block per sampler (column ``sampler``).
"""

from __future__ import annotations

import pandas as pd

from dpsampling import progress
from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.calibrate import DEFAULT_RTOL, RUN_COLUMNS, START_SIGMA, calibrate_sigma
from dpsampling.accountants.relations import ADD_OR_REMOVE, DEFAULT_RELATION
from dpsampling.accountants.run import Phase
from dpsampling.samplers import PAPER_SAMPLERS
from dpsampling.validation import check_choice

COMPARE_RELATIONS = ADD_OR_REMOVE
"""The relations every sampler supports."""


def _phases(sigma: float, samplers, run: dict) -> list[Phase]:
    return [Phase(sampler, sigma, **run) for sampler in samplers]


def _run_columns(phase: Phase) -> dict:
    return {key: phase.as_dict()[key] for key in RUN_COLUMNS}


def compare_epsilons(sigma: float, delta: float, *, relation: str = DEFAULT_RELATION, accuracy: float = 0.01,
                     samplers=PAPER_SAMPLERS, **run) -> pd.DataFrame:
    """The eps bounds of every sampler in ``samplers`` for the run (``Phase`` keywords ``run``) at
    ``sigma``: the Accountant's long frame per sampler, with columns sampler and the run's."""
    check_choice("relation", relation, COMPARE_RELATIONS)
    frames = []
    for phase in progress.steps(_phases(sigma, samplers, run), "samplers"):
        frame = Accountant(phase, relation=relation, accuracy=accuracy).epsilon_bounds([delta])
        frames.append(frame.assign(sampler=phase.sampler, tight_pair=phase.spec.tight, **_run_columns(phase)))
    out = pd.concat(frames, ignore_index=True)
    out.attrs.update(frames[0].attrs, phases=[f.attrs["phases"][0] for f in frames])
    return out


def compare_sigmas(target_epsilon: float, delta: float, *, relation: str = DEFAULT_RELATION, accuracy: float = 0.01,
                   rtol: float = DEFAULT_RTOL, samplers=PAPER_SAMPLERS, **run) -> pd.DataFrame:
    """One row per sampler (``Calibration.as_row``): the sigma shown sufficient for (target_epsilon,
    delta) under ``relation`` (``calibrate_sigma``), the largest not shown sufficient and the
    largest shown insufficient, with the run's columns."""
    check_choice("relation", relation, COMPARE_RELATIONS)
    results = [calibrate_sigma(phase, target_epsilon, delta, relation=relation, accuracy=accuracy, rtol=rtol)
               for phase in progress.steps(_phases(START_SIGMA, samplers, run), "samplers")]
    out = pd.DataFrame([result.as_row() for result in results])
    out.attrs.update(results[0].attrs())
    return out


__all__ = ["COMPARE_RELATIONS", "compare_epsilons", "compare_sigmas"]
