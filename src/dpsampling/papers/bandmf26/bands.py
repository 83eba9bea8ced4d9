"""bandmf26_bands: eps(delta) of banded DP-MF against the number of bands b, for balls-and-bins, cyclic
Poisson and b-min-sep at one setting (config ``bandmf26.bands``). This project's extension (issue 44),
not a paper's figure: no paper of /work/shared/papers states a number for it.

The setting. k steps per epoch (expected batch n / k), E epochs, T = E k steps, noise multiplier sigma
on the clip norm; C is the b-banded Toeplitz matrix whose first column is the truncated square root
of the prefix-sum matrix, c_j = binom(2j, j) / 4^j (j < b; the coefficients of (1 - x)^(-1/2), the
"banded square root" factorization), normalised to ||c|| = 1 so one participation has sensitivity 1
and b = 1 is DP-SGD with noise multiplier sigma. Every sampler has one expected participation per k
steps:

- balls-and-bins: cycle length k, a fresh bin every epoch (exactly one participation per epoch);
- cyclic Poisson: b groups (cycle length b, the fewest for which [CC23]'s reduction holds), rate b / k;
- b-min-sep: minimum separation b, rate p = 1 / (k - b + 1), cold start (stationary rate
  1 / (b - 1 + 1/p) = 1 / k); at b = k, p = 1: deterministic, one participation every k steps.

Per (sampler, b): certified where ``certified_phases`` reduces the run to the engine
(``dpsampling.Accountant``, relative gap ``accuracy``), and Monte Carlo (``delta_estimates``) wherever
the library has it (balls-and-bins and b-min-sep, every b, b = 1 included, which the claims use).

Monte Carlo eps. On the grid E of ``epsilon_grid``, U(eps) and L(eps) are the max rows' upper and lower
confidence bounds of delta(eps). eps_upper = min {eps in E : U(eps) <= delta}; eps_lower = max {eps in
E : L(eps) > delta} (0 if none). Both Z = [1 - e^(eps - L)]_+ and its KL bound decrease in eps, so
eps_upper < eps(delta) implies U(e0) < delta_max(e0) at the fixed e0 = the largest grid eps with
delta_max(e0) > delta: probability <= 2 beta (one direction each); likewise for eps_lower. So
eps(delta) <= eps_upper with probability >= 1 - 2 beta and eps(delta) > eps_lower with probability
>= 1 - 2 beta, with no union over the grid.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd

from dpsampling.accountants.closed_form.gaussian import gaussian_epsilon_bounds
from dpsampling.accountants.matrix.reduction import certified_phases
from dpsampling.accountants.matrix.run import CYCLIC, EPOCH_BINS, KINDS, MIN_SEP, MatrixRun
from dpsampling.accountants.run import Phase
from dpsampling.lazy import lazy_import
from dpsampling.papers.experiment import Experiment, figure_files
from dpsampling.pipeline.claims.base import Claim, Missing
from dpsampling.pipeline.estimate import Rates, Work, cpu_seconds
from dpsampling.pipeline.plotting import departures_text, plt, save_figure
from dpsampling.samplers import B_MIN_SEP, BALLS_AND_BINS, CYCLIC_POISSON, POISSON
from dpsampling.versions import algorithm_version

_montecarlo = lazy_import("dpsampling.accountants.matrix.montecarlo")  # Numba: loaded by the sampling job
_accountant = lazy_import("dpsampling.accountants.accountant")  # the engine: loaded by the first query, not by the registry

EXPERIMENT_ID = "bandmf26_bands"
COMPARED_SAMPLERS = (BALLS_AND_BINS.name, CYCLIC_POISSON.name, B_MIN_SEP.name)
MONTE_CARLO_SAMPLERS = (BALLS_AND_BINS.name, B_MIN_SEP.name)
"""The samplers the library has a Monte Carlo for (cyclic Poisson: certified only, bands <= cycle)."""
CERTIFIED, MONTE_CARLO = "certified", "monte carlo"
POISSON_REFERENCE, GAUSSIAN_REFERENCE = "poisson_reference", "gaussian_reference"
TABLE = "eps.parquet"
RULES = "workflow/rules/bandmf26.smk"
SCRIPTS = ("scripts/sample_bandmf26_bands.py", "scripts/tabulate_bandmf26_bands.py",
           "scripts/plot_bandmf26_bands.py")
TESTS = ("tests/papers/bandmf26/test_bandmf26_bands.py",)


def epsilon_grid(spec: dict) -> np.ndarray:
    """linspace(start, stop, num) of ``spec["epsilon_grid"]``."""
    block = spec["epsilon_grid"]
    return np.linspace(block["start"], block["stop"], block["num"])


def square_root_coefficients(bands: int) -> np.ndarray:
    """c_j = binom(2j, j) / 4^j for j < bands (the square root of the prefix-sum matrix, truncated),
    divided by its norm: ||c|| = 1."""
    if int(bands) != bands or bands < 1:
        raise ValueError(f"bands must be an integer >= 1; got {bands!r}")
    column = np.array([math.comb(2 * j, j) / 4.0**j for j in range(int(bands))])
    return column / np.sqrt(np.sum(column**2))


def matrix_run(spec: dict, sampler: str, bands: int) -> MatrixRun:
    """The run of ``sampler`` with ``bands`` bands at the experiment's setting (module docstring)."""
    k, steps = int(spec["steps_per_epoch"]), int(spec["steps_per_epoch"] * spec["epochs"])
    if not 1 <= bands <= k:
        raise ValueError(f"bands must be in 1..steps_per_epoch={k} (cyclic Poisson and balls-and-bins need "
                         f"bands <= their cycle length); got {bands}")
    coefficients, sigma = square_root_coefficients(bands), float(spec["sigma"])
    kind = KINDS.get(sampler)  # selected by participation law, never by name (the registry's rule)
    if kind == EPOCH_BINS:
        return MatrixRun(coefficients, sampler, sigma, steps, cycle_length=k)
    if kind == CYCLIC:
        return MatrixRun(coefficients, sampler, sigma, steps, cycle_length=bands, sampling_rate=bands / k)
    if kind == MIN_SEP:
        return MatrixRun(coefficients, sampler, sigma, steps, min_separation=bands, sampling_rate=1.0 / (k - bands + 1))
    raise ValueError(f"sampler must be one of {', '.join(COMPARED_SAMPLERS)}; got {sampler!r}")


def _setting_columns(run: MatrixRun) -> dict:
    return {"sampler": run.sampler, "bands": run.bands, "steps": run.steps, "sigma": run.sigma,
            "cycle_length": float(run.cycle_length or math.nan), "sampling_rate": float(run.sampling_rate or math.nan),
            "min_separation": float(run.min_separation or math.nan),
            "coefficients": ",".join(f"{c:.6g}" for c in run.coefficients)}


# --- Monte Carlo (cached: results/bandmf26_bands/points/<sampler>.parquet) --------------------------

def monte_carlo_parameters(spec: dict, seed: int, sampler: str) -> dict:
    """Everything the Monte Carlo points of ``sampler`` depend on (the sampling rule's param, recorded
    in its file): the setting, bands, samples, beta, eps grid, seed and the algorithm version."""
    if sampler not in MONTE_CARLO_SAMPLERS:
        raise ValueError(f"sampler must be one of {', '.join(MONTE_CARLO_SAMPLERS)}; got {sampler!r}")
    keys = ("steps_per_epoch", "epochs", "sigma", "bands", "delta", "samples", "beta", "epsilon_grid")
    return {"experiment": EXPERIMENT_ID, "sampler": sampler, "seed": int(seed), **{k: spec[k] for k in keys},
            "algorithm_version": algorithm_version("matrix.monte_carlo")}


def point_seed(seed: int, sampler: str, bands: int) -> int:
    """The seed of one (sampler, bands) point: SeedSequence((seed, crc32(experiment)), (sampler, bands))."""
    sequence = np.random.SeedSequence(entropy=(int(seed), zlib.crc32(EXPERIMENT_ID.encode())),
                                      spawn_key=(COMPARED_SAMPLERS.index(sampler), int(bands)))
    return int(sequence.generate_state(1)[0])


def monte_carlo_epsilons(table: pd.DataFrame, delta: float) -> tuple[float, float, float]:
    """(eps_lower, eps_estimate, eps_upper) at ``delta`` from a ``delta_estimates`` table's max rows
    (module docstring; eps_upper = inf when U > delta on the whole grid)."""
    rows = table[table["direction"] == "max"].sort_values("epsilon")
    eps = rows["epsilon"].to_numpy()

    def first_at_most(column):
        below = eps[rows[column].to_numpy() <= delta]
        return float(below.min()) if below.size else math.inf

    above = eps[rows["lower"].to_numpy() > delta]
    return (float(above.max()) if above.size else 0.0), first_at_most("estimate"), first_at_most("upper")


def monte_carlo_points(parameters: dict, progress=print) -> pd.DataFrame:
    """One row per b of ``parameters["bands"]``: the Monte Carlo eps interval of the sampler's run
    (``error_probability``: that of each end, 2 beta)."""
    spec, sampler, rows = parameters, parameters["sampler"], []
    for bands in spec["bands"]:
        run = matrix_run(spec, sampler, bands)
        seed = point_seed(spec["seed"], sampler, bands)
        table = _montecarlo.delta_estimates(run, epsilon_grid(spec), samples=int(spec["samples"]), beta=float(spec["beta"]),
                                seed=seed)
        lower, estimate, upper = monte_carlo_epsilons(table, float(spec["delta"]))
        rows.append({**_setting_columns(run), "method": MONTE_CARLO, "delta": float(spec["delta"]),
                     "epsilon_lower": lower, "epsilon_estimate": estimate, "epsilon_upper": upper,
                     "samples": int(spec["samples"]), "beta": float(spec["beta"]), "seed": seed,
                     "error_probability": 2 * float(spec["beta"])})
        progress(f"{sampler} b={bands}: eps in ({lower:g}, {upper:g}], estimate {estimate:g}")
    return pd.DataFrame(rows)


# --- certified points and the references, merged with the Monte Carlo into eps.parquet -------------

def _certified_row(setting: dict, phases, delta: float, accuracy: float) -> dict:
    """The engine's eps bracket at ``delta``, max over both directions (add_or_remove)."""
    bounds = _accountant.Accountant(phases, accuracy=accuracy).epsilon_bounds([delta])
    row = bounds[bounds["direction"] == "max"].iloc[0]
    return {**setting, "method": CERTIFIED, "delta": delta, "epsilon_lower": float(row["epsilon_lower"]),
            "epsilon_estimate": math.nan, "epsilon_upper": float(row["epsilon_upper"]), "samples": 0,
            "beta": math.nan, "seed": -1, "error_probability": 0.0,
            "reduction": " + ".join(phase.describe() for phase in phases)}


def certified_points(spec: dict, progress=print) -> pd.DataFrame:
    """Certified eps bracket of every (sampler, b) with a reduction (``certified_phases``), and two
    references: the Poisson engine at T steps, rate 1/k (what cyclic Poisson and b-min-sep are at
    b = 1), and the Gaussian mechanism of sensitivity sqrt(E) (b-min-sep at b = k: p = 1, one
    participation every k steps, disjoint shifts of norm 1), when k is among the bands."""
    delta, accuracy, rows = float(spec["delta"]), float(spec["accuracy"]), []
    k, epochs, sigma = int(spec["steps_per_epoch"]), int(spec["epochs"]), float(spec["sigma"])
    for sampler in COMPARED_SAMPLERS:
        for bands in spec["bands"]:
            run = matrix_run(spec, sampler, bands)
            phases = certified_phases(run)
            if phases is not None:
                rows.append(_certified_row(_setting_columns(run), phases, delta, accuracy))
                progress(f"{sampler} b={bands}: certified eps in [{rows[-1]['epsilon_lower']:g}, "
                         f"{rows[-1]['epsilon_upper']:g}]")
    poisson = Phase(POISSON.name, sigma, sampling_rate=1.0 / k, steps=k * epochs)
    rows.append(_certified_row({"sampler": POISSON_REFERENCE, "bands": 1, "steps": k * epochs, "sigma": sigma,
                                "sampling_rate": 1.0 / k}, [poisson], delta, accuracy))
    if k in spec["bands"]:
        lower, upper = gaussian_epsilon_bounds(delta, sigma, math.sqrt(epochs))
        rows.append({"sampler": GAUSSIAN_REFERENCE, "bands": k, "steps": k * epochs, "sigma": sigma,
                     "method": CERTIFIED, "delta": delta, "epsilon_lower": lower, "epsilon_estimate": math.nan,
                     "epsilon_upper": upper, "samples": 0, "beta": math.nan, "seed": -1, "error_probability": 0.0,
                     "reduction": f"Gaussian mechanism, sensitivity sqrt({epochs})"})
    return pd.DataFrame(rows)


def eps_table(spec: dict, monte_carlo: list[pd.DataFrame], progress=print) -> pd.DataFrame:
    """The experiment's table: the certified points and references, then the Monte Carlo points."""
    return pd.concat([certified_points(spec, progress), *monte_carlo], ignore_index=True)


# --- the figure ---------------------------------------------------------------------------------

COLORS = dict(zip(COMPARED_SAMPLERS, ("tab:blue", "tab:orange", "tab:green")))
LABELS = dict(zip(COMPARED_SAMPLERS, ("balls-and-bins (cycle k)", "cyclic Poisson (cycle b, rate b/k)",
                             "b-min-sep (separation b, rate 1/(k-b+1))")))


def plot(table: pd.DataFrame, spec: dict, pdf, png) -> None:
    """eps(delta) against b, one colour per sampler: filled markers and solid lines certified (engine,
    upper end of the bracket), open markers and dashed lines Monte Carlo (eps_upper, bars down to
    eps_lower: the interval holds with probability >= 1 - 4 beta)."""
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    beta = float(spec["beta"])
    for sampler in COMPARED_SAMPLERS:
        rows = table[table["sampler"] == sampler].sort_values("bands")
        certified, mc = rows[rows["method"] == CERTIFIED], rows[rows["method"] == MONTE_CARLO]
        if len(certified):
            ax.plot(certified["bands"], certified["epsilon_upper"], "-o", color=COLORS[sampler], ms=5,
                    label=f"{LABELS[sampler]}: certified (engine via a reduction)")
        if len(mc):
            ax.errorbar(mc["bands"], mc["epsilon_upper"],
                        yerr=[mc["epsilon_upper"] - mc["epsilon_lower"], np.zeros(len(mc))], fmt="--s",
                        color=COLORS[sampler], mfc="white", ms=5, capsize=2, lw=0.9,
                        label=f"{LABELS[sampler]}: Monte Carlo, upper at 1 - {2 * beta:g} (bar: interval)")
    for sampler, marker, text in ((POISSON_REFERENCE, "x", "Poisson engine, T steps, rate 1/k (b = 1 check)"),
                                  (GAUSSIAN_REFERENCE, "+", "Gaussian mechanism, sensitivity sqrt(E) (b = k check)")):
        rows = table[table["sampler"] == sampler]
        if len(rows):
            ax.plot(rows["bands"], rows["epsilon_upper"], marker, color="black", ms=9, ls="none", label=text)
    ax.set_xlabel("bands b")
    ax.set_ylabel(f"eps at delta = {float(spec['delta']):g}")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=5.5)
    footer = (departures_text([], "issue 44's extension to banded DP-MF, no paper states these numbers")
              + f"bandmf26_bands: k = {spec['steps_per_epoch']} steps per epoch, E = {spec['epochs']} epochs, sigma = "
              f"{spec['sigma']:g}, C banded Toeplitz, first column the square root of the prefix sum truncated to b, "
              f"||c|| = 1. Certified: dpsampling.Accountant, relative gap {spec['accuracy']:g}. Monte Carlo: "
              f"{int(spec['samples']):,} samples per direction, KL bounds at beta = {beta:g} per direction, "
              f"eps grid step {(epsilon_grid(spec)[1] - epsilon_grid(spec)[0]):g}.")
    save_figure(fig, footer, pdf, png, rect=(0, 0.08, 1, 1))


# --- the claims: internal consistency the theory guarantees -------------------------------------

def _row(frame: pd.DataFrame, sampler: str, bands: int, method: str) -> pd.Series:
    rows = frame[(frame["sampler"] == sampler) & (frame["bands"] == bands) & (frame["method"] == method)]
    if rows.empty:
        raise Missing(f"no {method} row for {sampler} at b = {bands} in {TABLE}")
    return rows.iloc[0]


def interval_gap(first: pd.Series, second: pd.Series) -> float:
    """Distance between [eps_lower, eps_upper] of two rows (0 when they meet)."""
    return max(0.0, float(first["epsilon_lower"]) - float(second["epsilon_upper"]),
               float(second["epsilon_lower"]) - float(first["epsilon_upper"]))


def _against(sampler: str, method: str, bands_of, reference: str):
    """The claim's measure: the gap between ``sampler``'s ``method`` interval at b = bands_of(frame)
    and the certified one of ``reference`` there."""
    def measure(frame):
        bands = bands_of(frame)
        ours, other = _row(frame, sampler, bands, method), _row(frame, reference, bands, CERTIFIED)
        odds = (f" ({int(ours['samples']):,} samples, fails with probability <= {2 * ours['error_probability']:g})"
                if method == MONTE_CARLO else "")
        opening = "(" if method == MONTE_CARLO else "["  # a Monte Carlo eps_lower is strict
        note = (f"b = {bands}: {method} eps in {opening}{ours['epsilon_lower']:.4g}, {ours['epsilon_upper']:.4g}]{odds}, "
                f"{reference} certified [{other['epsilon_lower']:.4g}, {other['epsilon_upper']:.4g}]")
        return interval_gap(ours, other), note
    return measure


def _largest_band(frame: pd.DataFrame) -> int:
    """k, the band of the Gaussian reference (written only when k is among the bands)."""
    rows = frame[frame["sampler"] == GAUSSIAN_REFERENCE]
    if rows.empty:
        raise Missing("b = k is not among the bands: no deterministic b-min-sep point")
    return int(rows["bands"].iloc[0])


def _cyclic_against_poisson(frame):
    cyclic, poisson = _row(frame, CYCLIC_POISSON.name, 1, CERTIFIED), _row(frame, POISSON_REFERENCE, 1, CERTIFIED)
    return (abs(float(cyclic["epsilon_upper"]) - float(poisson["epsilon_upper"])),
            f"cyclic Poisson b = 1 ({cyclic['reduction']}): {cyclic['epsilon_upper']:.6g}; Poisson engine "
            f"({poisson['reduction']}): {poisson['epsilon_upper']:.6g}")


GAP = "distance between the eps intervals (0: they meet)"
CLAIMS = [
    Claim(f"{EXPERIMENT_ID}_ballsbins_b1", EXPERIMENT_ID, f"balls-and-bins, b = 1 (DP-SGD), Monte Carlo vs certified: "
          f"{GAP}", "~", "0", _against(BALLS_AND_BINS.name, MONTE_CARLO, lambda frame: 1, BALLS_AND_BINS.name),
          result_file=TABLE, tolerance=0.0),
    Claim(f"{EXPERIMENT_ID}_bminsep_b1", EXPERIMENT_ID, f"b-min-sep, b = 1 (Poisson, rate 1/k), Monte Carlo vs "
          f"certified: {GAP}", "~", "0", _against(B_MIN_SEP.name, MONTE_CARLO, lambda frame: 1, B_MIN_SEP.name),
          result_file=TABLE, tolerance=0.0),
    Claim(f"{EXPERIMENT_ID}_bminsep_bk", EXPERIMENT_ID, f"b-min-sep, b = k (p = 1), Monte Carlo vs the Gaussian "
          f"mechanism of sensitivity sqrt(E): {GAP}", "~", "0",
          _against(B_MIN_SEP.name, MONTE_CARLO, _largest_band, GAUSSIAN_REFERENCE), result_file=TABLE, tolerance=0.0),
    Claim(f"{EXPERIMENT_ID}_cyclic_bk", EXPERIMENT_ID, f"cyclic Poisson, b = k (rate 1), certified (Poisson engine) "
          f"vs the Gaussian mechanism of sensitivity sqrt(E) (closed form): {GAP}", "~", "0",
          _against(CYCLIC_POISSON.name, CERTIFIED, _largest_band, GAUSSIAN_REFERENCE), result_file=TABLE, tolerance=0.0),
    Claim(f"{EXPERIMENT_ID}_cyclic_b1", EXPERIMENT_ID,
          "|cyclic Poisson certified eps at b = 1 - Poisson engine eps at ceil(T/1) = T steps, rate 1/k|", "~", "0",
          _cyclic_against_poisson, result_file=TABLE, tolerance=0.0),
]


# --- the cost model entry -----------------------------------------------------------------------

def _units(spec: dict) -> float:
    """Monte Carlo work: samples x 2 directions x sum over b of T b (the kernels are O(T b) per sample)."""
    steps = spec["steps_per_epoch"] * spec["epochs"]
    return float(2 * spec["samples"] * len(MONTE_CARLO_SAMPLERS) * sum(steps * b for b in spec["bands"]))


CALIBRATION_UNITS = 2e7
"""Work timed by a calibration: about 2 CPU s (enough samples that the per-call costs do not dominate)."""


def bands_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Its cost model entry: the Monte Carlo (samples x steps x bands); the rate from a previous run
    of the same config (its benchmarks: Monte Carlo and table), else timed at the config's k, E and
    largest b on min(samples, max(200, CALIBRATION_UNITS / (T b))) samples per direction (a fixed
    size of work, about 2e7 units: the paper estimate's budget)."""
    spec = config["bandmf26"]["bands"]
    rate = rates.measured(experiment, TABLE, lambda parameters: _units(parameters["spec"]),
                          comparable=lambda parameters: parameters.get("spec") == spec)
    if rate is None:
        largest, steps = max(spec["bands"]), spec["steps_per_epoch"] * spec["epochs"]
        samples = int(min(spec["samples"], max(200, CALIBRATION_UNITS // (steps * largest))))
        small = dict(spec, samples=samples, bands=[largest])

        def timing():
            seconds = sum(cpu_seconds(lambda s=sampler: monte_carlo_points(
                monte_carlo_parameters(small, 0, s), progress=lambda m: None)) for sampler in MONTE_CARLO_SAMPLERS)
            return seconds, _units(small)
        rate = rates.calibrate(f"{experiment} ({samples:,} samples per direction, b = {largest})", timing)
    return Work(experiment, _units(spec), "samples x directions x steps x bands", *rate)


EXPERIMENT = Experiment(EXPERIMENT_ID, __name__, RULES, SCRIPTS, TESTS,
                        outputs=lambda config: [f"results/{EXPERIMENT_ID}/eps.{s}" for s in ("parquet", "csv")]
                        + figure_files(EXPERIMENT_ID), claims=tuple(CLAIMS), cost=bands_work)
