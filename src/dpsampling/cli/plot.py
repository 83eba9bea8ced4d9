"""``dpsampling compare --plot FILE``: eps against sigma for every sampler of the run, the user's
sigma marked; each point is ``compare_epsilons`` at that sigma (the relation's row). The file is
written whole or not at all (``io.atomic_paths``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dpsampling import progress
from dpsampling.accountants.compare import compare_epsilons
from dpsampling.io import atomic_paths
from dpsampling.pipeline.plotting import SAMPLER_COLOR, plt
from dpsampling.samplers import SAMPLERS

PLOT_SUFFIXES = (".png", ".pdf")
POINTS = 9
SPAN = 2.5
"""sigma from sigma / SPAN to sigma * SPAN (not below any sampler's smallest sigma)."""


def plot_comparison(sigma: float, delta: float, relation: str, accuracy: float, run: dict, path: Path,
                    points: int = POINTS) -> dict:
    """Draw the figure to ``path``; returns the sigmas and each sampler's (lower, upper) curves."""
    smallest = max(spec.min_sigma for spec in SAMPLERS.values())
    sigmas = np.geomspace(max(sigma / SPAN, smallest), max(sigma * SPAN, 2 * smallest), points)
    curves: dict[str, list] = {}
    for value in progress.steps(sigmas, "plot: eps vs sigma"):
        frame = compare_epsilons(float(value), delta, relation=relation, accuracy=accuracy, **run)
        rows = frame[frame["direction"] == frame.attrs["headline"]]
        for row in rows.itertuples():
            curves.setdefault(row.sampler, []).append((row.epsilon_lower, row.epsilon_upper))
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for sampler, values in curves.items():
        spec = SAMPLERS[sampler]
        lower, upper = np.array(values).T
        label = f"{spec.letter} ({sampler})"
        if spec.tight:
            ax.plot(sigmas, upper, color=SAMPLER_COLOR[sampler], label=f"{label}: upper bound (tight pair)")
        else:
            ax.fill_between(sigmas, lower, upper, color=SAMPLER_COLOR[sampler], alpha=0.25)
            ax.plot(sigmas, upper, color=SAMPLER_COLOR[sampler], label=f"{label}: upper bound")
            ax.plot(sigmas, lower, color=SAMPLER_COLOR[sampler], ls="--", label=f"{label}: lower bound")
    ax.axvline(sigma, color="gray", ls=":", label=f"your sigma = {sigma:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("noise multiplier sigma")
    ax.set_ylabel(f"epsilon at delta = {delta:g} ({relation})")
    ax.set_title(", ".join(f"{k} = {v}" for k, v in run.items()), fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    with atomic_paths(path) as (temporary,):
        fig.savefig(temporary, dpi=150)
    plt.close(fig)
    return {"sigmas": sigmas.tolist(), "curves": {k: np.array(v).tolist() for k, v in curves.items()}}
