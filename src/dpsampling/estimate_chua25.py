"""Core-hour estimates of the chua25 privacy experiments (registered with ``dpsampling.estimate``).

Monte Carlo (fig2, fig3, fig4, epochs, props): the work of a sample set is its samples times the
cost of one sample in kernel steps -- T x epochs coordinates for naive and importance sampling,
r orders (+ 1) for order statistics -- and each method's CPU seconds per step is timed on the
spot at the config's own (sigma, T, orders, eps) with a few hundred samples (the cost per step
does not depend on the sample count). The deterministic curves beside them (dp-accounting PLDs
over up to 36,133 steps dominate) are timed at a 10x coarser PLD discretization and scaled up
linearly (the PLD's support, and the FFT composing it, grow like 1/discretization). trunc is
timed whole.
"""

from __future__ import annotations

import numpy as np

from .estimate import Rates, Work, cpu_seconds, register

COARSENING = 10.0
CALIBRATION_STEPS = 2_000_000  # kernel steps timed per method


def _steps_per_sample(sample_set) -> float:
    from . import ballsbins as bb

    if sample_set.orders is not None:
        return float(len(bb.parse_orders(sample_set.orders)) + 1)
    return float(sample_set.steps * sample_set.epochs)


def _method_rate(sample_set, rates: Rates):
    """(CPU seconds per kernel step, source) of the set's method at the set's own setting."""
    from . import ballsbins as bb

    per_sample = _steps_per_sample(sample_set)
    samples = max(50, int(CALIBRATION_STEPS / per_sample))
    arguments = dict(orders=sample_set.orders, importance_epsilon=sample_set.importance_epsilon,
                     epochs=sample_set.epochs)
    key = (f"{sample_set.experiment} {sample_set.method} {sample_set.direction} "
           f"(sigma {sample_set.sigma:g}, T {sample_set.steps}, {samples} samples)")

    def timing():
        bb.sample_losses(sample_set.method, sample_set.sigma, sample_set.steps, 1, sample_set.direction, seed=0,
                         **arguments)  # compile (or load the cache) outside the clock
        return cpu_seconds(lambda: bb.sample_losses(sample_set.method, sample_set.sigma, sample_set.steps, samples,
                                                    sample_set.direction, seed=1, **arguments)), samples * per_sample

    return rates.calibrate(key, timing)


def _bounds_seconds(experiment: str, name: str, spec: dict, config: dict, rates: Rates):
    from .experiments.chua25_privacy import CURVES, bounds_settings, bounds_table

    settings = {"pld": dict(config["pld"]), "shuffle": config["shuffle"]}
    if "pld_discretization" in spec:
        settings["pld"]["discretization"] = spec["pld_discretization"]
    uses_pld = "poisson" in CURVES[name]
    factor = COARSENING if uses_pld else 1.0
    settings["pld"]["discretization"] *= factor
    eps = np.array([1.0, 4.0])  # the PLD is built once per curve; each eps is a cheap lookup
    seconds, source = rates.calibrate(f"{experiment} deterministic curves (2 eps, PLD {factor:g}x coarser)",
                                      lambda: (cpu_seconds(lambda: bounds_table(name, bounds_settings(name, spec), eps,
                                                                                settings)), 1.0))
    return seconds * factor, source


def _monte_carlo_work(experiment: str, config: dict, rates: Rates) -> Work:
    from .experiments.chua25_samples import sample_sets

    name = experiment.removeprefix("chua25_")
    spec = config["chua25"][name]
    units = seconds = 0.0
    methods = set()
    rate_cache = {}
    for sample_set in sample_sets(name, spec):
        steps = sample_set.shards * sample_set.samples_per_shard * _steps_per_sample(sample_set)
        identity = (sample_set.method, sample_set.direction, sample_set.sigma, sample_set.steps, sample_set.orders,
                    sample_set.importance_epsilon, sample_set.epochs)
        if identity not in rate_cache:
            rate_cache[identity] = _method_rate(sample_set, rates)[0]
        units += steps
        seconds += steps * rate_cache[identity]
        methods.add(sample_set.method)
    bounds, _ = _bounds_seconds(experiment, name, spec, config, rates)
    source = (f"calibration: {', '.join(sorted(methods))} timed at each set's setting "
              f"(+ {bounds:.3g} CPU s of deterministic curves)")
    return Work(experiment, units, "kernel steps (coordinates or orders)", (seconds + bounds) / units, source)


for _name in ("fig2", "fig3", "fig4", "epochs", "props"):
    register(f"chua25.{_name}")(_monte_carlo_work)


@register("chua25.trunc")
def truncation_work(experiment: str, config: dict, rates: Rates) -> Work:
    from .experiments.chua25_checks import truncation_table

    spec = config["chua25"]["trunc"]
    rate = rates.calibrate(f"{experiment} (one evaluation)", lambda: (cpu_seconds(lambda: truncation_table(spec)), 1.0))
    return Work(experiment, 1.0, "evaluations of the table", *rate)
