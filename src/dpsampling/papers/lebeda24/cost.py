"""What the lebeda24 cost model entries share; each experiment module holds its entry
(``Experiment.cost``, in the registry's cost table ``papers.registry.COSTS`` that ``dpsampling estimate``
passes to ``dpsampling.pipeline.estimate``).

Each experiment's work is counted in a unit whose cost does not depend on how many there are,
and the cost of one unit is taken from a previous run with the same settings (benchmarks) or
timed on a small slice at the config's own settings (calibration):

- addremove: Monte Carlo draws of a single-step privacy loss (a k-fold loss is k draws), over
  samplers x 2 directions x compositions; the exact k <= 2 curves and the merge add seconds.
- pld_cdf: loss samples read and sorted (those of the configured compositions).
- sigma_vs_rate: sigma bisections, one per (rate, curve); one timed per curve, at rates spread
  over the grid (the cost depends on both), their mean taken for all.
- table1, subst_gaussian: one evaluation of the whole table, at coarser accuracies within the
  probing budget (``accuracy_probes``), timed whole when the budget reaches it;
- substitution, rr: one evaluation of the whole table, timed on the spot.
- conj12: PLD compositions; see its ``conjecture12_work``.
"""

from __future__ import annotations

from dpsampling.pipeline.estimate import (
    ACCURACY_COARSENINGS,
    MAX_ACCURACY,
    PLD_ACCURACY_EXPONENT,
    Rates,
    Work,
    cpu_seconds,
    power_law,
)

COARSENING = 10.0  # calibration of PLD experiments at a 10x coarser discretization, scaled back


def median(values):
    return sorted(values)[len(values) // 2]


def same_spec(spec: dict):
    return lambda parameters: parameters.get("spec") == spec


def whole_work(experiment: str, spec: dict, rates: Rates, result_file: str, run, unit: str, factor: float = 1.0,
               probe: tuple | None = None) -> Work:
    """One unit = the whole experiment; timed by ``run()`` (times ``factor``) unless measured. With
    ``probe`` = (accuracy_key, run_spec): the spec's relative accuracy and ``run_spec(spec)``, probed
    at coarser accuracies within the probing budget and scaled back by ``PLD_ACCURACY_EXPONENT``
    (``accuracy_probes``), timed whole when the budget reaches it."""
    rate = rates.measured(experiment, result_file, lambda parameters: 1.0, same_spec(spec))
    if rate is None and probe is not None:
        accuracy_key, run_spec = probe
        return Work(experiment, 1.0, unit, *accuracy_probes(f"{experiment} (probed at coarser accuracies)", spec,
                                                            accuracy_key, run_spec, rates))
    if rate is None:
        seconds, source = rates.calibrate(f"{experiment} (one evaluation)", lambda: (cpu_seconds(run), 1.0))
        rate = seconds * factor, source + (f" x {factor:g} (model)" if factor != 1.0 else "")
    return Work(experiment, 1.0, unit, *rate)


def accuracy_probes(key: str, spec: dict, accuracy_key: str, run_spec, rates: Rates):
    """(CPU seconds of ``run_spec(spec)``, source) from ``Rates.probed`` at the spec's accuracy up to
    100x coarser (``ACCURACY_COARSENINGS``, at most ``MAX_ACCURACY``), scaled back by
    ``PLD_ACCURACY_EXPONENT``."""
    accuracy = float(spec[accuracy_key])
    coarsenings = [c for c in ACCURACY_COARSENINGS if accuracy * c <= MAX_ACCURACY] or [1.0]
    return rates.probed(key, lambda c: cpu_seconds(lambda: run_spec(dict(spec, **{accuracy_key: accuracy * c}))),
                        coarsenings, power_law(PLD_ACCURACY_EXPONENT))
