"""Ours vs jax-privacy 2.0's Monte Carlo for DP-MF (issue 44): ``python -m dpsampling.benchmark.matrix``.

For each setting both draw m privacy-loss samples in the remove direction (jax-privacy's
``get_privacy_loss_sample``; ours ``matrix.sample_losses``), both sets go through the same
estimator (``ballsbins.estimates``: mean and Bernoulli-KL upper bound at beta), and the table
reports wall time, samples per second, the two estimates and bounds, and the samples (and time)
each needs for the upper bound to be within ``width`` (relative) of the estimate. Both are plain
Monte Carlo of the same law, so the samples needed agree up to noise; the difference is throughput.
jax-privacy is optional (``pip install jax-privacy==2.0.0``). Only settings both support are run:
fixed balls-and-bins (jax-privacy's balls-in-bins) and b-min-sep without truncation.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from dpsampling.accountants.ballsbins.estimates import estimate_delta, required_samples
from dpsampling.accountants.matrix import MatrixRun, sample_losses
from dpsampling.integrations.jax_privacy import jax_privacy_strategy

SETTINGS = {
    "fixed_bins_T200_k20_b4": MatrixRun([1.0, 0.6, 0.35, 0.15], "fixed_balls_and_bins", 2.5, 200, cycle_length=20),
    "bminsep_T200_b4_p0.05": MatrixRun([1.0, 0.6, 0.35, 0.15], "b_min_sep", 1.2, 200, min_separation=4,
                                       sampling_rate=0.05),
}


def jax_privacy_losses(run: MatrixRun, samples: int, *, seed: int = 0, direction: str = "remove") -> np.ndarray:
    """``samples`` losses from jax-privacy 2.0's Monte Carlo (remove: positive sample; add: negative)."""
    from jax_privacy.experimental.monte_carlo import sample_generation

    losses, _ = sample_generation.get_privacy_loss_sample(
        jax_privacy_strategy(run), run.sigma, np.asarray(run.coefficients), seed=seed,
        positive_sample=direction == "remove", num_samples=samples)
    return np.asarray(losses, dtype=np.float64)


def _row(name, who, run, draw, samples, epsilon, beta, width):
    start = time.perf_counter()
    losses = draw(run, samples)
    seconds = time.perf_counter() - start
    estimate = estimate_delta(losses, [epsilon])
    mean = float(estimate.mean()[0])
    needed = required_samples(beta, width, mean) if mean > 0 else np.nan
    return {"setting": name, "implementation": who, "samples": samples, "seconds": round(seconds, 3),
            "samples_per_second": round(samples / seconds), "epsilon": epsilon, "delta_estimate": mean,
            "delta_upper": float(estimate.upper_confidence_bound(beta)[0]),
            "samples_for_width": needed, "seconds_for_width": round(needed * seconds / samples, 2)}


def run_benchmark(samples: int = 20_000, epsilon: float = 2.0, beta: float = 1e-3, width: float = 0.1,
                  seed: int = 0) -> pd.DataFrame:
    rows = []
    for name, run in SETTINGS.items():
        sample_losses(run, 16, seed=seed)  # compile the kernels outside the timing
        rows.append(_row(name, "dpsampling", run, lambda r, m: sample_losses(r, m, seed=seed), samples,
                         epsilon, beta, width))
        try:
            rows.append(_row(name, "jax-privacy 2.0", run, lambda r, m: jax_privacy_losses(r, m, seed=seed),
                             samples, epsilon, beta, width))
        except ImportError:
            pass
    table = pd.DataFrame(rows)
    table.attrs.update({"date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": platform.processor()
                        or platform.machine(), "cpus": os.cpu_count(), "load": os.getloadavg(), "beta": beta,
                        "relative_width": width})
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
