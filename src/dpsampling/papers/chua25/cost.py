"""Core-hour estimates of the chua25 experiments: each experiment module names its entry
(``Experiment.cost``), which the registry's cost table (``papers.registry.COSTS``) hands to
``dpsampling.pipeline.estimate``.

Monte Carlo (fig2, fig3, fig4, epochs, props): the work of a sample set is its samples times the
cost of one sample in kernel steps -- T x epochs coordinates for naive and importance sampling,
r orders (+ 1) for order statistics -- and each method's CPU seconds per step is timed on the
spot at the config's own (sigma, T, orders, eps) with a few hundred samples (the cost per step
does not depend on the sample count). The certified curves beside them (P and B, from
``accountants.certified``) are timed at a 4x coarser accuracy and scaled by 4: the gap shrinks
like h^2, so 4x finer accuracy is one more refinement (h halved), which costs at most about 4x
everything before it (an average of two laws of n cells costs O(n min(n, log 2 / h)); an upper
estimate, less where the grid cap stops the refinement); the other deterministic curves (S's
lower bound, D's closed form) are timed as they are. chua25_b_vs_p (certified B and P on a grid,
no Monte Carlo) is timed the same way, per grid setting, at 2 eps. trunc is timed whole.

With ``device: cuda`` the sample sets run on a GPU: their GPU seconds per kernel step come from a
GPU benchmark (``Rates.gpu_benchmark``: the timed GPU rows of ``python -m dpsampling.benchmark.gpu
--json``, per method), reported as GPU-hours (``Work.gpu_seconds``); the deterministic curves stay
CPU core-hours. A method the benchmark did not time, or no benchmark at all, keeps the CPU rate,
and the source column says so.
"""

from __future__ import annotations

import numpy as np

from dpsampling.accountants.ballsbins.orders import parse_orders
from dpsampling.lazy import lazy_import
from dpsampling.pipeline.estimate import Rates, Work, affine_in_points, cpu_seconds

_sampling = lazy_import("dpsampling.accountants.ballsbins.sampling")  # the kernels: loaded by the first draw

CERTIFIED_COARSENING = 4.0  # certified accuracy timed 4x coarser, seconds scaled by 4 (see docstring)
CALIBRATION_STEPS = 500_000  # kernel steps timed per method (the cost per step does not depend on the count)


def _steps_per_sample(sample_set) -> float:

    if sample_set.orders is not None:
        return float(len(parse_orders(sample_set.orders)) + 1)
    return float(sample_set.steps * sample_set.epochs)


def _method_rate(sample_set, rates: Rates):
    """(CPU seconds per kernel step, source) of the set's method at the set's own setting."""

    per_sample = _steps_per_sample(sample_set)
    samples = max(5, int(CALIBRATION_STEPS / per_sample))
    law = _sampling.LossLaw(sample_set.method, sample_set.sigma, sample_set.steps, sample_set.direction,
                  sample_set.orders, sample_set.importance_epsilon, sample_set.epochs)
    key = (f"{sample_set.experiment} {sample_set.method} {sample_set.direction} "
           f"(sigma {sample_set.sigma:g}, T {sample_set.steps}, {samples} samples)")

    def timing():
        _sampling.sample_losses(law, 1, seed=0)  # compile (or load the cache) outside the clock
        return cpu_seconds(lambda: _sampling.sample_losses(law, samples, seed=1)), samples * per_sample

    return rates.calibrate(key, timing)


def coarse_certified(config: dict, spec: dict) -> dict:
    """The certified settings of ``spec``, 4x coarser (the accuracy timed, see module docstring)."""
    from dpsampling.papers.chua25.privacy import certified_settings

    certified = certified_settings(config["chua25"], spec)
    return dict(certified, accuracy=min(certified["accuracy"] * CERTIFIED_COARSENING, 0.5))


def certified_factor(record: dict, accuracy: float) -> float:
    """What the certified B curve of one setting costs at ``accuracy`` over its cost at the 4x
    coarser accuracy timed (``record``: its CERTIFIED_RECORD there): 1 when the coarse run already
    reached ``accuracy`` or stopped at the grid cap without converging (the finer run stops at the
    same grid), else CERTIFIED_COARSENING (one refinement more, see the module docstring). The
    quick chua25 Fig. 4, whose T = 1e5 and 1e6 panels stop at the cap, is 11 CPU s at its own
    accuracy, and x 4 said 44 (2026-11-29)."""
    if record["accuracy_reached"] <= accuracy or not record["converged"]:
        return 1.0
    return CERTIFIED_COARSENING


GRID_THINNINGS = (16.0, 8.0, 4.0, 2.0, 1.0)  # eps grids probed up to 16x sparser (see _bounds_seconds)


def thinned_grid(eps: np.ndarray, thinning: float) -> np.ndarray:
    """Every ``thinning``-th eps of the grid, its last one kept (the same range, fewer points)."""
    step = max(1, int(round(thinning)))
    return np.unique(np.concatenate([eps[::step], eps[-1:]]))


def spread(items: list, thinning: float) -> list:
    """About 1/``thinning`` of ``items``, spread evenly from the first to the last (all at 1)."""
    count = max(1, int(round(len(items) / thinning)))
    return [items[i] for i in sorted({int(round(i)) for i in np.linspace(0, len(items) - 1, count)})]


def _bounds_seconds_at(module, spec: dict, config: dict, eps: np.ndarray) -> float:
    """CPU seconds of the deterministic curves of ``module`` (its CURVES at its bounds_settings) at
    the eps ``eps``: the certified B curve timed per setting at a 4x coarser accuracy and scaled by
    ``certified_factor``, the other engine curves (PLD) at the 4x coarser accuracy x 4, the rest as
    they are."""
    from dpsampling.papers.chua25.privacy import CERTIFIED_CURVE, bounds_table, certified_settings, engine_curve

    coarse = coarse_certified(config, spec)
    target = certified_settings(config["chua25"], spec)["accuracy"]
    settings = {"pld": dict(config["pld"], relative_accuracy=coarse["accuracy"]), "certified": coarse}
    scaled = tuple(c for c in module.CURVES if engine_curve(c) and c != CERTIFIED_CURVE)
    as_run = tuple(c for c in module.CURVES if not engine_curve(c))
    seconds = 0.0
    for curves, factor in ((scaled, CERTIFIED_COARSENING), (as_run, 1.0)):
        if curves:
            seconds += factor * cpu_seconds(lambda curves=curves: bounds_table(curves, module.bounds_settings(spec), eps,
                                                                               settings))
    if CERTIFIED_CURVE in module.CURVES:
        for setting in module.bounds_settings(spec):
            tables = []
            part = cpu_seconds(lambda setting=setting, tables=tables: tables.append(
                bounds_table((CERTIFIED_CURVE,), [setting], eps, settings)))
            seconds += part * certified_factor(tables[0].attrs["certified"][-1], target)
    return seconds


def _bounds_seconds(experiment: str, module, spec: dict, config: dict, rates: Rates):
    """(CPU seconds, source) of the deterministic curves of ``module`` on its whole eps grid, from
    probes within the probing budget (``Rates.probed``) on sparser grids (the same range:
    the dearest eps, one can cost 30x the others, is usually at an end): a fixed part + a part per
    eps point, fitted on the two finest probes (``affine_in_points``); the whole grid when the budget
    reaches it. The first two always run, the ends of the grid alone (2 eps) and 1/16 of it: from one
    probe, the time in proportion to the points said 119 CPU s for quick Fig. 2's 27 (2026-11-29),
    whose certified curves cost about the same on 4 eps as on 41."""
    from dpsampling.papers.chua25.privacy import epsilon_grid

    eps = epsilon_grid(spec)
    ends = (float(len(eps)),) if len(eps) > GRID_THINNINGS[0] else ()  # else 1/16 is the ends already
    return rates.probed(f"{experiment} deterministic curves ({len(eps)} eps, probed on sparser grids)",
                        lambda c: _bounds_seconds_at(module, spec, config, thinned_grid(eps, c)),
                        (*ends, *GRID_THINNINGS), affine_in_points(lambda c: float(len(thinned_grid(eps, c)))), first=2)


def gpu_step_seconds(document: dict) -> dict[str, float]:
    """GPU seconds per kernel step of each method timed in a GPU benchmark document (the fastest
    case of the method: the kernels run at full occupancy on large cases); a row's gpu_seconds
    time its ``gpu_samples`` draws (its ``samples`` in documents without them)."""
    found: dict[str, float] = {}
    for row in document["rows"]:
        per_sample = float(row["orders"] + 1) if row.get("orders") else float(row["steps"])
        seconds = float(row["gpu_seconds"]) / (float(row.get("gpu_samples") or row["samples"]) * per_sample)
        method = row.get("method", row.get("case"))
        found[method] = min(seconds, found.get(method, seconds))
    return found


def _gpu_rates(config: dict, rates: Rates) -> tuple[dict, str]:
    """(method -> GPU seconds per kernel step, source) for device cuda; ({}, why) otherwise."""
    if config.get("device", "cpu") != "cuda":
        return {}, ""
    document, where = rates.gpu_benchmark()
    if document is None:
        return {}, f"device cuda but {where}: CPU rate used"
    return gpu_step_seconds(document), f"GPU rate from {where} ({document.get('gpu', 'GPU')})"


def monte_carlo_cost(module):
    """The cost model entry of a chua25 Monte Carlo experiment module (fig2, fig3, fig4, epochs, props):
    its sample sets and its deterministic curves (see module docstring)."""

    def monte_carlo_work(experiment: str, config: dict, rates: Rates) -> Work:
        return _monte_carlo_work(experiment, module, config, rates)

    return monte_carlo_work


def _monte_carlo_work(experiment: str, module, config: dict, rates: Rates) -> Work:
    name = experiment.removeprefix("chua25_")
    spec = config["chua25"][name]
    units = seconds = gpu_seconds = 0.0
    methods, on_cpu = set(), set()
    rate_cache = {}
    gpu_rates, gpu_source = _gpu_rates(config, rates)
    for sample_set in module.sample_sets(spec):
        steps = sample_set.shards * sample_set.samples_per_shard * _steps_per_sample(sample_set)
        units += steps
        methods.add(sample_set.method)
        if sample_set.method in gpu_rates:
            gpu_seconds += steps * gpu_rates[sample_set.method]
            continue
        identity = (sample_set.method, sample_set.direction, sample_set.sigma, sample_set.steps, sample_set.orders,
                    sample_set.importance_epsilon, sample_set.epochs)
        if identity not in rate_cache:
            rate_cache[identity] = _method_rate(sample_set, rates)[0]
        seconds += steps * rate_cache[identity]
        on_cpu.add(sample_set.method)
    bounds, bounds_source = _bounds_seconds(experiment, module, spec, config, rates)
    if on_cpu:
        source = f"calibration: {', '.join(sorted(on_cpu))} timed at each set's setting on the CPU"
    else:
        source = "no Monte Carlo on the CPU"
    if gpu_rates:
        timed = sorted(methods & set(gpu_rates))
        untimed = sorted(methods - set(gpu_rates))
        source += (f"; {gpu_source}: {', '.join(timed) or 'none of its methods'} on the GPU"
                   + (f" ({', '.join(untimed)} not in the benchmark: CPU rate)" if untimed else ""))
    elif gpu_source:
        source += f" ({gpu_source})"
    source += f" (+ deterministic curves, {bounds_source.removeprefix('calibration: ')})"
    return Work(experiment, units, "kernel steps (coordinates or orders)", (seconds + bounds) / units, source,
                gpu_seconds=gpu_seconds)


# --- chua25 Fig. 1: DP-SGD training ---------------------------------------------------------

CALIBRATION_ROWS = 1 << 15
NUMERIC_FEATURES = 4  # of the synthetic data (training.data.synthetic_ctr)


def _training_split(data: dict) -> tuple[int, int]:
    """(training rows, validation + test rows) of the data block (synthetic: ``rows``)."""
    rows = data.get("rows", 0)
    test = int(round(rows * data["test_fraction"]))
    validation = int(round((rows - test) * data["validation_fraction"]))
    return rows - test - validation, test + validation


def _training_costs(spec: dict) -> dict:
    """CPU seconds per training row (a, per generator), per step x parameter (b, and c for the
    noise), per evaluated row (e) and per generated row (g), timed on a small synthetic set."""
    from dpsampling.papers.chua25.utility import model_of
    from dpsampling.samplers import SHUFFLE
    from dpsampling.training import data as data_lib
    from dpsampling.training.sgd import TrainingSettings, evaluate_auc, train

    n, buckets, optimizer, model = CALIBRATION_ROWS, spec["data"]["buckets"], spec["optimizer"], model_of(spec)
    generated = {}
    g = cpu_seconds(lambda: generated.setdefault("set", data_lib.synthetic_ctr(n, seed=0, buckets=buckets))) / n
    dataset = generated["set"]
    theta = model.initial_parameters(dataset, np.random.default_rng(0))
    size = theta.size
    train(dataset.take(np.arange(256)), TrainingSettings(SHUFFLE.name, 64, model=model), seed=0)  # compile the kernels
    costs = {"g": g, "e": cpu_seconds(lambda: evaluate_auc(theta, dataset, model)) / n}
    # time = a n + steps size (b + c [noise]), steps = n / batch: a from few large batches, b and
    # c from many small ones
    small_batch, large_batch = 256, n // 8
    plain = cpu_seconds(lambda: train(dataset, TrainingSettings(SHUFFLE.name, small_batch, optimizer=optimizer,
                                                                model=model), seed=0))
    noisy = cpu_seconds(lambda: train(dataset, TrainingSettings(SHUFFLE.name, small_batch, sigma=1.0, clip_norm=1.0,
                                                                optimizer=optimizer, model=model), seed=0))
    costs["generators"] = {}
    for generator in spec["generators"]:
        large = cpu_seconds(lambda generator=generator: train(dataset, TrainingSettings(generator, large_batch, optimizer=optimizer,
                                                                    model=model), seed=0))
        steps_large, steps_small = n // large_batch, n // small_batch
        b = max(plain - large, 0.0) / ((steps_small - steps_large) * size)
        costs["generators"][generator] = {"a": max(large - steps_large * size * b, 0.0) / n, "b": b,
                                          "c": max(noisy - plain, 0.0) / (steps_small * size)}
    return costs


def chua25_fig1_seconds(spec: dict, costs: dict) -> tuple[float, float]:
    """(CPU seconds, training example-passes) of the whole of Fig. 1 under the cost model."""
    from dpsampling.papers.chua25.utility import model_of, panel_settings, panels

    train_rows, held_out = _training_split(spec["data"])
    size = model_of(spec).parameter_count(spec["data"]["buckets"], NUMERIC_FEATURES)
    seconds = units = 0.0
    for panel in panels(spec):
        seconds += costs["g"] * spec["data"].get("rows", 0)
        for batch, sigma in panel_settings(panel, spec):
            steps = max(1, round(train_rows / batch))
            for generator in spec["generators"]:
                k = costs["generators"][generator]
                run = k["a"] * train_rows + steps * size * (k["b"] + (k["c"] if sigma > 0 else 0.0)) + costs["e"] * held_out
                repeats = len(spec["learning_rates"]) * spec["seeds"]
                seconds += run * repeats
                units += train_rows * repeats
    return seconds, units


def chua25_fig1_work(experiment: str, config: dict, rates: Rates) -> Work:
    spec = config["chua25"]["fig1"]
    if spec["data"]["source"] != "synthetic":
        raise ValueError(f"chua25.fig1.data.source must be synthetic for an estimate (the row count of a "
                         f"Criteo file is not in the config); got {spec['data']['source']!r}")
    from dpsampling.papers.chua25.utility import model_of

    key = (f"chua25_fig1 training ({model_of(spec).label}, buckets {spec['data']['buckets']}, {spec['optimizer']}, "
           f"{', '.join(spec['generators'])})")
    costs = rates.cached(key, lambda: _training_costs(spec))
    seconds, units = chua25_fig1_seconds(spec, costs)
    source = (f"calibration: {CALIBRATION_ROWS} rows per generator; model a*rows + (b + c*noise)*steps*parameters "
              "+ evaluation + data generation")
    return Work(experiment, units, "training example-passes", seconds / units, source)
