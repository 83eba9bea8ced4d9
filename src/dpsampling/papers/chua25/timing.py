"""Timing claims of chua25 (Fig. 3: importance vs naive; Fig. 4: order statistics vs naive), measured
so that the verdict does not depend on the machine's load.

The two samplers of a comparison are timed in one process, interleaved (A, B, A, B, ...), in CPU
seconds of this process (``time.process_time``, not wall time), ``REPEATS`` times on a fixed fraction
of the paper's work, after one compiling call each. Each repeat gives one ratio, scaled to the
paper's sample counts; a claim reads the median and the spread (smallest, largest) of the ratios.

Verdict (``decide``): even interleaved CPU-time ratios move with the load of a shared machine:
on the 2-core machine of 2026-11-25 the median ratio of Fig. 3 left was 2.39 alone and 1.51 with
two busy processes beside it (Fig. 4 left 0.355 and 0.399, Fig. 4 right 0.957 and 0.950; docs/
REPRODUCTION.md). So a ratio decides a claim only when all its repeats lie farther than
``LOAD_MARGIN`` (1.6, the largest such factor measured) from the criterion: reproduced when every
ratio satisfies the criterion with that margin, not reproduced when every ratio fails it by that
margin, and otherwise "undecided at this scale" (a benchmark on an otherwise idle machine, or
the paper's hardware, would decide it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpsampling.accountants.ballsbins.device import sample_losses as sample_losses_on
from dpsampling.accountants.ballsbins.sampling import LossLaw
from dpsampling.pipeline.claims.base import Missing, Undecided

REPEATS = 7
LOAD_MARGIN = 1.6
DIRECTIONS = ("remove", "add")


@dataclass(frozen=True)
class Side:
    """One sampler of a comparison: its method, the samples timed per repeat (both directions) and
    the paper's sample count (the ratio is scaled to it)."""

    method: str
    samples: int
    paper_samples: int
    importance_epsilon: float | None = None


@dataclass(frozen=True)
class Comparison:
    """numerator / denominator CPU time at the paper's counts, for one panel (sigma, steps, orders)."""

    name: str
    panel: str
    numerator: Side
    denominator: Side


def _laws(side: Side, panel: dict) -> list:
    orders = panel.get("orders") if "order_statistics" in side.method else None
    return [LossLaw(side.method, float(panel["sigma"]), int(panel["steps"]), direction, orders,
                    side.importance_epsilon) for direction in DIRECTIONS]


def _cpu_seconds(laws, samples: int, seed: int) -> float:
    start = time.process_time()
    for law in laws:
        sample_losses_on(law, samples, seed=seed, device="cpu")
    return time.process_time() - start


def timing_table(comparisons: list[Comparison], panels: dict, repeats: int = REPEATS) -> pd.DataFrame:
    """One row per (comparison, repeat): CPU seconds of each side and their ratio at the paper's
    counts, next to the panel's sigma, steps and orders (``panels``: name -> the config's panel)."""
    rows = []
    for comparison in comparisons:
        panel = panels[comparison.panel]
        top, bottom = _laws(comparison.numerator, panel), _laws(comparison.denominator, panel)
        _cpu_seconds(top, 1, 0), _cpu_seconds(bottom, 1, 0)  # compile outside the clock
        for repeat in range(repeats):
            seconds_top = _cpu_seconds(top, comparison.numerator.samples, repeat + 1)
            seconds_bottom = _cpu_seconds(bottom, comparison.denominator.samples, repeat + 1)
            per_top = seconds_top / comparison.numerator.samples * comparison.numerator.paper_samples
            per_bottom = seconds_bottom / comparison.denominator.samples * comparison.denominator.paper_samples
            rows.append({"comparison": comparison.name, "panel": comparison.panel, "sigma": float(panel["sigma"]),
                         "steps": int(panel["steps"]), "orders": panel.get("orders") or "", "repeat": repeat,
                         "numerator": comparison.numerator.method, "denominator": comparison.denominator.method,
                         "numerator_samples": comparison.numerator.samples,
                         "denominator_samples": comparison.denominator.samples,
                         "numerator_cpu_seconds": seconds_top, "denominator_cpu_seconds": seconds_bottom,
                         "ratio": per_top / per_bottom})
    return pd.DataFrame(rows)


def decide(ratios, relation: str, criterion: float, margin: float = LOAD_MARGIN) -> str:
    """'reproduced', 'not_reproduced' or 'undecided' for ratios against ``relation`` ('<', '<=':
    ratio below the criterion; 'within': criterion^-1 <= ratio <= criterion) with the load margin."""
    ratios = np.asarray(ratios, dtype=float)
    if relation in ("<", "<="):
        if ratios.max() <= criterion / margin:
            return "reproduced"
        return "not_reproduced" if ratios.min() >= criterion * margin else "undecided"
    if relation == "within":
        if ratios.max() <= criterion / margin and ratios.min() >= margin / criterion:
            return "reproduced"
        outside = (ratios.min() >= criterion * margin) or (ratios.max() <= 1 / (criterion * margin))
        return "not_reproduced" if outside else "undecided"
    raise ValueError(f"relation must be one of <, <=, within; got {relation!r}")


def timing_measure(comparison: str, relation: str, criterion: float, paper: str, require=None):
    """A claim's measure: the median ratio of ``comparison`` (raising Undecided when ``decide``
    says so; for 'within', max(median, 1/median)), with the spread and the decision in the note.
    ``require(frame)``: the check that the panel ran at the paper's setting."""

    def measure(frame):
        if require is not None:
            require(frame)
        rows = frame[frame["comparison"] == comparison] if "comparison" in frame.columns else frame.iloc[0:0]
        if rows.empty:
            raise Missing(f"timing {comparison} is not in the results")
        ratios = rows["ratio"].to_numpy(dtype=float)
        median = float(np.median(ratios))
        outcome = decide(ratios, relation, criterion)
        first = rows.iloc[0]
        note = (f"CPU-time ratio at the paper's counts over {len(ratios)} interleaved repeats: median {median:.3g}, "
                f"spread {ratios.min():.3g} .. {ratios.max():.3g} ({first['numerator']} {int(first['numerator_samples']):,} "
                f"vs {first['denominator']} {int(first['denominator_samples']):,} samples per direction and repeat, "
                f"one thread); {paper}; decided only beyond a load margin x{LOAD_MARGIN:g} of the criterion "
                f"{criterion:g} (chua25 timing.py)")
        value = max(median, 1 / median) if relation == "within" else median
        if outcome == "undecided":
            raise Undecided(value, note + ": undecided at this scale; a benchmark on an otherwise idle machine would "
                                          "decide it")
        return value, note

    return measure
