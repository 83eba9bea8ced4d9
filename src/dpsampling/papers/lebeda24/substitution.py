"""lebeda24 Fig. 3 (Section 7): the three substitution divergences H(PxP||QxQ), H(QxQ||PxP) and
H(PxQ||QxP) of the WOR Laplace example, exactly (config ``lebeda24.substitution``).

Computed: ``substitution_laplace``; plot: ``plot``; claim: each is the largest on some eps interval.
"""

from __future__ import annotations

import pandas as pd

from dpsampling.papers.lebeda24 import substitution_curves as substitution
from dpsampling.papers.lebeda24.cost import whole_work
from dpsampling.papers.lebeda24.grids import grid
from dpsampling.papers.lebeda24.workflow import lebeda24_experiment
from dpsampling.pipeline.claims.base import Claim
from dpsampling.pipeline.estimate import Rates, Work
from dpsampling.pipeline.plotting import departures_text, plt, save_figure

EXPERIMENT_ID = "lebeda24_substitution"
RESULTS = ["curves.parquet"]
PLOT_INPUTS = {"curves": f"results/{EXPERIMENT_ID}/curves.parquet"}


def substitution_laplace(spec: dict) -> pd.DataFrame:
    """Section 7, Fig. 3: H(PxP||QxQ), H(QxQ||PxP), H(PxQ||QxP) over eps, and the largest."""
    frame = substitution.laplace_substitution_curves(grid(spec["epsilon_grid"]), spec["laplace_scale"],
                                                     spec["sampling_rate"])
    frame["laplace_scale"] = spec["laplace_scale"]
    frame["sampling_rate"] = spec["sampling_rate"]
    return frame


def plot(tables, pdf, png) -> None:
    """Fig. 3: the three substitution divergences of the WOR Laplace example."""
    frame, meta = tables["curves"]
    spec = meta["parameters"]["spec"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    labels = {"H_PxP_QxQ": "H(PxP || QxQ)", "H_QxQ_PxP": "H(QxQ || PxP)", "H_PxQ_QxP": "H(PxQ || QxP)"}
    for name, label in labels.items():
        ax.plot(frame.epsilon, frame[name], label=f"{label}: exact")
    ax.set_yscale("log")
    ax.set_xlabel("eps")
    ax.set_ylabel("hockey-stick divergence")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8)
    paper = {"laplace_scale": 2.0, "sampling_rate": 0.5}
    footer = (departures_text([f"{k} = {spec[k]:g} (the paper's {v:g})" for k, v in paper.items() if spec[k] != v])
              + f"lebeda24_substitution: WOR, n = 2, batch 1 (rate {spec['sampling_rate']}), Laplace scale "
              f"{spec['laplace_scale']}, 2 queries; P = .5 Lap(-1) + .5 Lap(1), Q = Lap(-1). Exact (atoms + quadrature).")
    save_figure(fig, footer, pdf, png)


def _largest_count(frame):
    names = ["H_PxP_QxQ", "H_QxQ_PxP", "H_PxQ_QxP"]
    notes, count = [], 0
    for name in names:
        others = frame[[n for n in names if n != name]].max(axis=1)
        where = frame.loc[frame[name] > others + 1e-8, "epsilon"]
        if not where.empty:
            count += 1
            notes.append(f"{name} largest on eps in [{where.min():g}, {where.max():g}] ({len(where)} grid points)")
        else:
            notes.append(f"{name} never largest")
    return float(count), "; ".join(notes)


CLAIMS = [
    Claim("lebeda24_substitution_each_largest", "lebeda24_substitution",
          "how many of H(PxP||QxQ), H(QxQ||PxP), H(PxQ||QxP) are the largest on some eps interval", "~", "3",
          _largest_count, result_file="curves.parquet", tolerance=0.0),
]


def substitution_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Its cost model entry (see dpsampling.papers.lebeda24.cost)."""
    spec = config["lebeda24"]["substitution"]
    return whole_work(experiment, spec, rates, "curves.parquet", lambda: substitution_laplace(spec), "evaluations")


EXPERIMENT = lebeda24_experiment(__name__, RESULTS, CLAIMS, substitution_work, figure=True)
