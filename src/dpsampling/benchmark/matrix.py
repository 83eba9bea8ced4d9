"""Ours vs jax-privacy 2.0 for DP-BandMF (issue 44): ``python -m dpsampling.benchmark.matrix``.

Monte Carlo settings (samplers jax-privacy's ``experimental.monte_carlo`` supports: balls-in-bins,
i.e. our ``fixed_balls_and_bins``, and b-min-sep without truncation), remove direction at one eps:
jax-privacy's ``get_privacy_loss_sample``, our plain ``sample_losses`` and our ``importance_estimate``
(eps_0 = eps) each draw m samples. Every row reports wall time, samples per second, the estimate and
its Bernoulli-KL interval at beta (``agrees``: our interval meets jax-privacy's), the event mass W
(1 for plain Monte Carlo), and the samples needed for a relative ``width`` two ways: ``samples_kl``
for the KL upper bound (which gains 1/W from importance sampling, not variance) and ``samples_clt``
= (z_beta sd / (width delta))^2 (which sees variance reduction), each with its time at the
measured rate. Cyclic Poisson is certified on both sides: jax-privacy's ``amplified_bandmf_event``
through dp_accounting's PLD accountant versus our ``certified_phases`` through ``Accountant``.
jax-privacy is optional (``pip install jax-privacy==2.0.0``); without it only our rows are produced.
Balls-and-bins with a fresh bin per epoch has no jax-privacy counterpart: ours only.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from datetime import UTC, datetime

import numpy as np
import pandas as pd
from scipy import special

from dpsampling.accountants.ballsbins.estimates import estimate_delta, required_samples
from dpsampling.accountants.matrix import (
    MatrixRun,
    certified_phases,
    effective_sigma,
    importance_estimate,
    sample_losses,
)
from dpsampling.accountants.matrix.montecarlo import _lower_confidence_bound
from dpsampling.integrations.jax_privacy import jax_privacy_strategy
from dpsampling.samplers import B_MIN_SEP, BALLS_AND_BINS, CYCLIC_POISSON, FIXED_BALLS_AND_BINS

BANDS4 = [1.0, 0.6, 0.35, 0.15]
SETTINGS = {
    "fixed_bins_T10_k10_b2": MatrixRun([1.0, 0.5], FIXED_BALLS_AND_BINS.name, 0.7, 10, cycle_length=10),
    "fixed_bins_T200_k20_b4": MatrixRun(BANDS4, FIXED_BALLS_AND_BINS.name, 2.5, 200, cycle_length=20),
    "bminsep_T200_b4_p0.05": MatrixRun(BANDS4, B_MIN_SEP.name, 1.2, 200, min_separation=4, sampling_rate=0.05),
    "bminsep_T200_b2_p0.1_warm": MatrixRun([1.0, 0.6], B_MIN_SEP.name, 1.5, 200, min_separation=2, sampling_rate=0.1,
                                           warm_start=True),
    "epoch_bins_T100_k20_b4": MatrixRun(BANDS4, BALLS_AND_BINS.name, 1.0, 100, cycle_length=20),  # ours only
}
CERTIFIED_SETTINGS = {
    "cyclic_poisson_T200_k4_b4_q0.1": MatrixRun(BANDS4, CYCLIC_POISSON.name, float(np.linalg.norm(BANDS4)), 200,
                                                cycle_length=4, sampling_rate=0.1),
}


def jax_privacy_losses(run: MatrixRun, samples: int, *, seed: int = 0, direction: str = "remove") -> np.ndarray:
    """``samples`` losses from jax-privacy 2.0's Monte Carlo (remove: positive sample; add: negative)."""
    from jax_privacy.experimental.monte_carlo import sample_generation

    losses, _ = sample_generation.get_privacy_loss_sample(
        jax_privacy_strategy(run), run.sigma, np.asarray(run.coefficients), seed=seed,
        positive_sample=direction == "remove", num_samples=samples)
    return np.asarray(losses, dtype=np.float64)


def _row(name, who, draw, samples, beta, width):
    """One timed estimate: ``draw()`` returns a DeltaEstimate at one eps."""
    start = time.perf_counter()
    estimate = draw()
    seconds = time.perf_counter() - start
    weight = float(np.exp(estimate.log_weight))
    mean = float(estimate.mean()[0])
    spread = float(estimate.standard_error()[0]) * np.sqrt(samples)
    kl = required_samples(beta, width, mean / weight) if mean > 0 else np.nan
    clt = float(np.ceil((special.ndtri(1 - beta) * spread / (width * mean)) ** 2)) if mean > 0 else np.nan
    return {"setting": name, "implementation": who, "samples": samples, "seconds": round(seconds, 3),
            "samples_per_second": round(samples / seconds), "delta_estimate": mean,
            "delta_lower": float(_lower_confidence_bound(estimate.mean() / weight, estimate.count, beta)[0]) * weight,
            "delta_upper": float(estimate.upper_confidence_bound(beta)[0]), "event_mass": weight,
            "samples_kl": kl, "seconds_kl": round(kl * seconds / samples, 2),
            "samples_clt": clt, "seconds_clt": round(clt * seconds / samples, 2)}


def monte_carlo_rows(name: str, run: MatrixRun, samples: int, epsilon: float, beta: float, width: float,
                     seed: int) -> list[dict]:
    """Plain, importance and (where installed) jax-privacy rows for one setting; ``agrees`` per our row."""
    sample_losses(run, 16, seed=seed)  # compile the kernels and warm both paths outside the timing
    importance_estimate(run, [epsilon], samples=16, epsilon0=epsilon, seed=seed)
    rows = [
        _row(name, "dpsampling plain", lambda: estimate_delta(sample_losses(run, samples, seed=seed), [epsilon]),
             samples, beta, width),
        _row(name, "dpsampling importance", lambda: importance_estimate(run, [epsilon], samples=samples,
                                                                         epsilon0=epsilon, seed=seed),
             samples, beta, width)]
    try:
        theirs = _row(name, "jax-privacy 2.0", lambda: estimate_delta(
            jax_privacy_losses(run, samples, seed=seed), [epsilon]), samples, beta, width)
    except (ImportError, ValueError):  # not installed, or no jax-privacy strategy (fresh bin per epoch)
        return rows
    for row in rows:
        row["agrees"] = row["delta_lower"] <= theirs["delta_upper"] and theirs["delta_lower"] <= row["delta_upper"]
    return [*rows, theirs]


def certified_rows(name: str, run: MatrixRun, epsilon: float) -> list[dict]:
    """Cyclic Poisson: our certified bracket (remove, add, max) vs jax-privacy's event under PLD."""
    from dpsampling import Accountant

    start = time.perf_counter()
    bounds = Accountant(certified_phases(run)).delta_bounds([epsilon]).set_index("direction")
    seconds = time.perf_counter() - start
    rows = [{"setting": name, "implementation": "dpsampling certified", "seconds": round(seconds, 3),
             "delta_lower": float(bounds.loc["max", "delta_lower"]),
             "delta_upper": float(bounds.loc["max", "delta_upper"])}]
    try:
        import dp_accounting
        from jax_privacy.experimental import accounting
    except ImportError:
        return rows
    start = time.perf_counter()
    event = accounting.amplified_bandmf_event(effective_sigma(run), run.steps, num_bands=run.cycle_length,
                                              sampling_prob=run.sampling_rate)
    pld = dp_accounting.pld.PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_SPECIAL)
    delta = pld.compose(event).get_delta(epsilon)
    rows.append({"setting": name, "implementation": "jax-privacy 2.0 (PLD)",
                 "seconds": round(time.perf_counter() - start, 3), "delta_estimate": delta,
                 "agrees": rows[0]["delta_lower"] <= delta <= rows[0]["delta_upper"]})
    return rows


def run_benchmark(samples: int = 20_000, epsilon: float = 2.0, beta: float = 1e-3, width: float = 0.1,
                  seed: int = 0, settings=None) -> pd.DataFrame:
    settings = SETTINGS if settings is None else settings
    rows = [row for name, run in settings.items()
            for row in monte_carlo_rows(name, run, samples, epsilon, beta, width, seed)]
    rows += [row for name, run in CERTIFIED_SETTINGS.items() for row in certified_rows(name, run, epsilon)]
    table = pd.DataFrame(rows)
    table.attrs.update({"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": platform.processor()
                        or platform.machine(), "cpus": os.cpu_count(), "load": os.getloadavg(), "beta": beta,
                        "epsilon": epsilon, "relative_width": width, "direction": "remove"})
    return table


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dpsampling.benchmark.matrix", description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--epsilon", type=float, default=2.0)
    parser.add_argument("--beta", type=float, default=1e-3)
    parser.add_argument("--width", type=float, default=0.1, help="relative width of the upper bound")
    arguments = parser.parse_args(argv)
    table = run_benchmark(arguments.samples, arguments.epsilon, arguments.beta, arguments.width)
    print(table.attrs)
    print(table.to_markdown(index=False) if _has_tabulate() else table.to_string(index=False))


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
