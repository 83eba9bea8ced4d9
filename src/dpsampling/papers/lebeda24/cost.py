"""Core-hour estimates of the lebeda24 experiments (registered with ``dpsampling.pipeline.estimate``).

Each experiment's work is counted in a unit whose cost does not depend on how many there are,
and the cost of one unit is taken from a previous run with the same settings (benchmarks) or
timed on a small slice at the config's own settings (calibration):

- addremove: Monte Carlo draws of a single-step privacy loss (a k-fold loss is k draws), over
  samplers x 2 directions x compositions; the exact k <= 2 curves and the merge add seconds.
- pld_cdf: loss samples read and sorted (those of the configured compositions).
- sigma_vs_rate: sigma bisections, one per (rate, curve); timed at the median rate.
- table1, substitution, rr: one evaluation of the whole table (timed on the spot, with the PLD
  refinement of table1 counted as at most sum_j 4^j times the coarsest level's cost).
- subst_gaussian, conj12: PLD compositions whose cost grows like 1/discretization; timed at a
  coarser discretization (one grid cell of conj12) and scaled up linearly.
"""

from __future__ import annotations

import math

import numpy as np

from dpsampling.pipeline.estimate import Rates, Work, cpu_seconds, register

COARSENING = 10.0  # calibration of PLD experiments at a 10x coarser discretization, scaled back


def _median(values):
    return sorted(values)[len(values) // 2]


def _same_spec(spec: dict):
    return lambda parameters: parameters.get("spec") == spec


def _whole(experiment: str, spec: dict, rates: Rates, result_file: str, run, unit: str, factor: float = 1.0) -> Work:
    """One unit = the whole experiment; timed by ``run()`` (times ``factor``) unless measured."""
    rate = rates.measured(experiment, result_file, lambda parameters: 1.0, _same_spec(spec))
    if rate is None:
        seconds, source = rates.calibrate(f"{experiment} (one evaluation)", lambda: (cpu_seconds(run), 1.0))
        rate = seconds * factor, source + (f" x {factor:g} (model)" if factor != 1.0 else "")
    return Work(experiment, 1.0, unit, *rate)


def _addremove_draws(spec: dict) -> float:
    return float(len(spec["samplers"]) * 2 * sum(spec["compositions"]) * spec["samples"])


@register("lebeda24.addremove")
def addremove_work(experiment: str, config: dict, rates: Rates) -> Work:
    from dpsampling.papers.lebeda24.shards import sample_shard, shard_parameters

    spec = config["lebeda24"]["addremove"]
    rate = rates.measured(experiment, "delta_mc.parquet", lambda parameters: _addremove_draws(parameters["spec"]),
                          lambda parameters: parameters.get("spec", {}).get("sampling_rate") == spec["sampling_rate"])
    if rate is None:
        small = dict(spec, samples=100_000, shards=1)
        rate = rates.calibrate(f"{experiment} (100,000 draws)",
                               lambda: (cpu_seconds(lambda: sample_shard(shard_parameters(
                                   small, 0, experiment, spec["samplers"][0], "remove", 1, 0))), 100_000.0))
    return Work(experiment, _addremove_draws(spec), "single-step loss draws", *rate)


@register("lebeda24.pld_cdf")
def pld_cdf_work(experiment: str, config: dict, rates: Rates) -> Work:
    addremove = config["lebeda24"]["addremove"]
    spec = config["lebeda24"]["pld_cdf"]
    units = float(len(addremove["samplers"]) * 2 * len(spec["compositions"]) * addremove["samples"])
    rate = rates.calibrate("sorting 1,000,000 losses", lambda: (cpu_seconds(
        lambda: np.sort(np.random.default_rng(0).standard_normal(1_000_000))), 1_000_000.0))
    return Work(experiment, units, "loss samples sorted", *rate)


@register("lebeda24.sigma_vs_rate")
def sigma_vs_rate_work(experiment: str, config: dict, rates: Rates) -> Work:
    from dpsampling.papers.lebeda24.gaussian import sigma_vs_rate_curve

    spec = config["lebeda24"]["sigma_vs_rate"]
    curves = [("poisson", e) for e in spec["poisson_epsilons"]] + [("wor", e) for e in spec["wor_epsilons"]]
    units = float(len(spec["rates"]) * len(curves))
    small = dict(spec, rates=[_median(spec["rates"])])
    sampler, epsilon = curves[len(curves) // 2]
    rate = rates.calibrate(f"{experiment} (one bisection at rate {small['rates'][0]:g})",
                           lambda: (cpu_seconds(lambda: sigma_vs_rate_curve(small, sampler, epsilon, progress=lambda m: None)),
                                    1.0))
    return Work(experiment, units, "sigma bisections", *rate)


@register("lebeda24.table1")
def table1_work(experiment: str, config: dict, rates: Rates) -> Work:
    from dpsampling.papers.lebeda24.gaussian import table1

    spec = config["lebeda24"]["table1"]
    levels = max(0, math.ceil(math.log(spec["discretization"] / spec["min_discretization"], 4) - 1e-9))
    coarse = dict(spec, min_discretization=spec["discretization"])
    return _whole(experiment, spec, rates, "table1.parquet", lambda: table1(coarse, progress=lambda m: None),
                  "evaluations of Table 1", factor=sum(4.0**j for j in range(levels + 1)))


@register("lebeda24.substitution")
def substitution_work(experiment: str, config: dict, rates: Rates) -> Work:
    from dpsampling.papers.lebeda24.experiments import substitution_laplace

    spec = config["lebeda24"]["substitution"]
    return _whole(experiment, spec, rates, "curves.parquet", lambda: substitution_laplace(spec), "evaluations")


@register("lebeda24.rr")
def randomized_response_work(experiment: str, config: dict, rates: Rates) -> Work:
    from dpsampling.papers.lebeda24.experiments import randomized_response_table

    spec = config["lebeda24"]["rr"]
    return _whole(experiment, spec, rates, "rr.parquet", lambda: randomized_response_table(spec), "evaluations")


@register("lebeda24.subst_gaussian")
def subst_gaussian_work(experiment: str, config: dict, rates: Rates) -> Work:
    from dpsampling.papers.lebeda24.gaussian import subst_gaussian

    spec = config["lebeda24"]["subst_gaussian"]
    coarse = dict(spec, discretization=spec["discretization"] * COARSENING)
    return _whole(experiment, spec, rates, "composed.parquet", lambda: subst_gaussian(coarse),
                  "evaluations (PLD cost ~ 1/discretization)", factor=COARSENING)


@register("lebeda24.conj12")
def conjecture12_work(experiment: str, config: dict, rates: Rates) -> Work:
    from dpsampling.papers.lebeda24.gaussian import conjecture12

    spec = config["lebeda24"]["conj12"]
    units = float(len(spec["sigmas"]) * len(spec["rates"]))
    rate = rates.measured(experiment, "grid.parquet", lambda parameters: float(
        len(parameters["spec"]["sigmas"]) * len(parameters["spec"]["rates"])), _same_spec(spec))
    if rate is None:
        cell = dict(spec, sigmas=[_median(spec["sigmas"])], rates=[_median(spec["rates"])],
                    discretization=spec["discretization"] * COARSENING)
        seconds, source = rates.calibrate(f"{experiment} (one (sigma, rate) cell, every k)",
                                          lambda: (cpu_seconds(lambda: conjecture12(cell, progress=lambda m: None)), 1.0))
        rate = seconds * COARSENING, source + f" x {COARSENING:g} (PLD cost ~ 1/discretization)"
    return Work(experiment, units, "(sigma, rate) cells, every k", *rate)
