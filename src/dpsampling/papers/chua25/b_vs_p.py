"""chua25_b_vs_p (beyond the paper): where balls-and-bins is certifiably better or worse than Poisson.

chua25 App. D (Thm D.1) shows that neither of delta_B and delta_P dominates the other in
general and leaves open where delta_B > delta_P. Here every point (sigma, T, epochs, eps) of a
grid is classified with certified bounds on both sides, max over the two adjacency directions:

- B certifiably better: certified upper bound on delta_B < PLD lower bound on delta_P;
- P certifiably better: certified lower bound on delta_B > PLD upper bound on delta_P;
- undecided: the two brackets overlap;
- below floor: both upper bounds are below ``DELTA_FLOOR`` = 1e-12 plus the tails the certified
  engine charges to every delta of the run (``computation["excess"]``: tails moved or cut and
  their rounding, ``certified.rounding``), where the engine's accuracy is not measured (its bounds
  stay valid, but a comparison there says nothing about the mechanisms).

delta_B: the face's balls-and-bins phase (``privacy.certified_bounds``: T steps, K epochs);
delta_P: Poisson with rate 1/T over K T steps (``papers.accounting.delta_table``, as
``privacy.bounds_table`` does), the certified engine's upper and lower bounds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.papers.accounting import delta_table, paper_phase
from dpsampling.papers.chua25.cost import CERTIFIED_COARSENING, GRID_THINNINGS, coarse_certified, spread
from dpsampling.papers.chua25.privacy import certified_bounds, certified_settings, epsilon_grid
from dpsampling.papers.chua25.workflow import PRIVACY_RULES, chua25_tests
from dpsampling.papers.experiment import Experiment, figure_files
from dpsampling.pipeline.claims.base import Claim
from dpsampling.pipeline.estimate import (
    PLD_ACCURACY_EXPONENT,
    Rates,
    Work,
    cpu_seconds,
    first_use_seconds,
    in_proportion,
    power_law,
)
from dpsampling.samplers import POISSON

B_BETTER, P_BETTER, UNDECIDED, BELOW_FLOOR = ("B certifiably better", "P certifiably better", "undecided",
                                              "below floor")
CLASSES = (B_BETTER, P_BETTER, UNDECIDED, BELOW_FLOOR)
COLORS = {B_BETTER: "tab:green", P_BETTER: "tab:red", UNDECIDED: "lightgrey", BELOW_FLOOR: "white"}
DELTA_FLOOR = 1e-12


def classify(b_lower, b_upper, p_lower, p_upper, floor: float = DELTA_FLOOR) -> np.ndarray:
    """The class of every point (see module docstring) from the four bound arrays."""
    b_lower, b_upper, p_lower, p_upper = (np.asarray(v, dtype=float) for v in (b_lower, b_upper, p_lower, p_upper))
    out = np.full(b_upper.shape, UNDECIDED, dtype=object)
    out[b_upper < p_lower] = B_BETTER
    out[b_lower > p_upper] = P_BETTER
    out[np.fmax(b_upper, p_upper) < floor] = BELOW_FLOOR
    return out


def settings(spec: dict) -> list[dict]:
    """(sigma, steps, epochs) of every grid setting."""
    return [{"sigma": float(sigma), "steps": int(steps), "epochs": int(epochs)}
            for sigma in spec["sigmas"] for steps in spec["steps"] for epochs in spec.get("epochs", [1])]


def poisson_bounds(sigma: float, steps: int, epochs: int, eps, accuracy: float):
    """delta_P's certified bounds (max over the directions) at rate 1/T over K T steps."""
    return delta_table(paper_phase(POISSON.name, sigma, steps, epochs), eps, accuracy=accuracy)


def b_vs_p_grid(spec: dict, certified: dict, progress=None) -> pd.DataFrame:
    """One row per (sigma, T, epochs, eps) with both certified brackets (max direction; P to the same
    accuracy as B) and the class; ``attrs['certified']``: how each B curve was computed."""
    eps = epsilon_grid(spec)
    frames, records = [], []
    for setting in settings(spec):
        sigma, steps, epochs = setting["sigma"], setting["steps"], setting["epochs"]
        b, record = certified_bounds(sigma, steps, epochs, eps, certified)
        p = poisson_bounds(sigma, steps, epochs, eps, float(certified["accuracy"]))
        records.append(dict(setting, **record))
        frame = pd.DataFrame(dict(setting, epsilon=eps, delta_B_lower=b["lower"]["max"], delta_B_upper=b["upper"]["max"],
                                  delta_P_lower=p["delta_lower"], delta_P_upper=p["delta_upper"],
                                  pld_accuracy=p["pld_accuracy"]))
        # the engine charges its tails (and their rounding) to both upper bounds: below DELTA_FLOOR
        # plus that charge neither curve is resolved
        floor = DELTA_FLOOR + p.attrs["computation"].get("excess", 0.0)
        frame["classification"] = classify(frame["delta_B_lower"], frame["delta_B_upper"], frame["delta_P_lower"],
                                           frame["delta_P_upper"], floor)
        frames.append(frame)
        if progress:
            counts = frame["classification"].value_counts().to_dict()
            progress(f"sigma={sigma:g}, T={steps}, epochs={epochs}: {counts}; certified accuracy reached "
                     f"{record['accuracy_reached']:.3g}")
    table = pd.concat(frames, ignore_index=True)
    table.attrs["certified"] = records
    return table


def b_vs_p_markdown(table: pd.DataFrame) -> str:
    """Counts per setting, then the eps ranges of each class per setting."""
    lines = ["# Balls-and-bins vs Poisson, certified (chua25_b_vs_p)", "",
             "Per (sigma, T, epochs): how many grid eps fall in each class (max over remove/add). B certifiably "
             "better: certified upper bound on delta_B < PLD lower bound on delta_P; P certifiably better: certified "
             "lower bound on delta_B > PLD upper bound on delta_P; below floor: both upper bounds < "
             f"{DELTA_FLOOR:g} + the engine's charged tails. Poisson: rate 1/T, same sigma, K T steps.", "",
             "| sigma | T | epochs | " + " | ".join(CLASSES) + " | eps where P certifiably better |",
             "|---|---|---|" + "---|" * (len(CLASSES) + 1)]
    for (sigma, steps, epochs), rows in table.groupby(["sigma", "steps", "epochs"], sort=True):
        counts = rows["classification"].value_counts()
        worse = rows.loc[rows["classification"] == P_BETTER, "epsilon"]
        lines.append(f"| {sigma:g} | {steps} | {epochs} | " + " | ".join(str(int(counts.get(c, 0))) for c in CLASSES)
                     + f" | {', '.join(f'{e:g}' for e in worse) or '-'} |")
    total = table["classification"].value_counts()
    lines += ["", f"{len(table)} points: " + ", ".join(f"{int(total.get(c, 0))} {c}" for c in CLASSES) + "."]
    return "\n".join(lines) + "\n"


def plot_b_vs_p(table: pd.DataFrame, parameters: dict, path_pdf, path_png) -> None:
    """One panel per (sigma, epochs): eps on x, T on y (one row per T), a colour per class."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from dpsampling.pipeline.plotting import departures_text, plt, save_figure

    keys = list(dict.fromkeys(zip(table["sigma"], table["epochs"])))
    columns = min(len(keys), 3)
    rows_of_panels = -(-len(keys) // columns)
    fig, axes = plt.subplots(rows_of_panels, columns, figsize=(4.2 * columns, 3.0 * rows_of_panels + 1.0),
                             squeeze=False)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    cmap = ListedColormap([COLORS[c] for c in CLASSES])
    codes = {c: i for i, c in enumerate(CLASSES)}
    for ax, (sigma, epochs) in zip(axes.flat, keys):
        rows = table[(table["sigma"] == sigma) & (table["epochs"] == epochs)]
        steps = sorted(rows["steps"].unique())
        eps = np.sort(rows["epsilon"].unique())
        grid = (rows.assign(code=rows["classification"].map(codes))
                .pivot(index="steps", columns="epsilon", values="code").reindex(index=steps, columns=eps))
        edges = np.concatenate([[eps[0] - 0.5 * (eps[1] - eps[0]) if eps.size > 1 else eps[0] - 0.5],
                                0.5 * (eps[1:] + eps[:-1]),
                                [eps[-1] + 0.5 * (eps[-1] - eps[-2]) if eps.size > 1 else eps[0] + 0.5]])
        ax.pcolormesh(edges, np.arange(len(steps) + 1), grid.to_numpy(dtype=float), cmap=cmap, vmin=-0.5,
                      vmax=len(CLASSES) - 0.5, edgecolors="white", linewidth=0.3)
        ax.set_yticks(np.arange(len(steps)) + 0.5, [f"{s:,}" for s in steps])
        ax.set_xlabel("epsilon")
        ax.set_ylabel("T (steps per epoch)")
        ax.set_title(f"sigma = {sigma:g}, {epochs} epoch{'s' if epochs > 1 else ''}", fontsize=9)
    handles = [Patch(facecolor=COLORS[c], edgecolor="black", linewidth=0.5, label=c) for c in CLASSES]
    fig.legend(handles=handles, loc="upper center", ncol=len(CLASSES), fontsize=7.5, frameon=False)
    records = parameters.get("certified", [])
    reached = max((float(r["accuracy_reached"]) for r in records), default=float("nan"))
    footer = (departures_text([], "chua25 App. D leaves open where delta_B > delta_P; no figure in the paper")
              + "chua25_b_vs_p. Max over remove/add. "
              "B better: certified upper delta_B < certified lower delta_P; P better: certified lower delta_B > certified upper "
              f"delta_P; below floor: both < {DELTA_FLOOR:g} + the engine's charged tails. B: dpsampling.Accountant (relative gap "
              f"reached <= {reached:.2g}); P: Poisson rate 1/T, the same certified engine "
              "(dpsampling.accountants.certified).")
    save_figure(fig, footer, path_pdf, path_png, rect=(0, 0.08, 1, 0.94))


# --- the claim (a finding: no number stated) ---------------------------------------------------
# - chua25_b_vs_p (not a paper claim; App. D leaves it open): the number of grid points where
#   delta_B is certifiably above delta_P (certified lower bound on delta_B > PLD upper bound on
#   delta_P). No number is stated, so it is recorded as a finding (relation ``finding``), never as
#   reproduced or not.


def _p_better_finding(frame):
    counts = frame["classification"].value_counts()
    worse = frame[frame["classification"] == P_BETTER]
    where = "; ".join(f"sigma {r.sigma:g}, T {r.steps}, K {r.epochs}, eps {r.epsilon:g}"
                      for r in worse.head(5).itertuples())

    def values(column):
        return ", ".join(f"{v:g}" for v in sorted(frame[column].unique()))

    note = (f"{len(frame)} grid points (sigma {values('sigma')}; T {values('steps')}; epochs {values('epochs')}; "
            f"{frame['epsilon'].nunique()} eps in [{frame['epsilon'].min():g}, {frame['epsilon'].max():g}]): "
            + ", ".join(f"{counts.get(c, 0)} {c}" for c in CLASSES)
            + (f"; first P-better points: {where}" if where else ""))
    return float(len(worse)), note


CLAIMS = [
    Claim("chua25_b_vs_p_p_better", "chua25_b_vs_p", "grid points where delta_B is certifiably above delta_P "
          "(certified lower bound of B > PLD upper bound of P; no number stated, App. D leaves it open)",
          "finding", "none stated", _p_better_finding, result_file="grid.parquet"),
]

DEAR_COARSENINGS = (16.0, 4.0, 1.0)  # the dearest setting probed at 16x, 4x coarser accuracy, ... (b_vs_p_work)


def dearest_setting(grid: list[dict]) -> dict:
    """The grid's setting whose curves cost most by the privacy at stake: the smallest sigma at the
    most steps T x epochs (quick grid: sigma 0.5, T 1000, 16.9 of the job's 21 CPU s, 2026-11-29)."""
    return min(grid, key=lambda s: (s["sigma"], -s["steps"] * s["epochs"]))


def _engine_first_use(rates: Rates, certified: dict) -> float:
    """CPU seconds the engines' first use costs the job (``first_use_seconds`` of the cheapest
    setting on two eps: 1.0 of its 1.1 CPU s in a new process, 2026-11-29); run here too, untimed,
    so that no probe pays it (x 4 on the first probe made the quick estimate right by luck)."""
    call = (f"certified_bounds(1.0, 2, 1, [0.0, 1.0], {certified!r}); "
            f"poisson_bounds(1.0, 2, 1, [0.0, 1.0], {certified['accuracy']!r})")
    setup = "from dpsampling.papers.chua25.b_vs_p import certified_bounds, poisson_bounds"

    def timing():
        certified_bounds(1.0, 2, 1, [0.0, 1.0], certified)
        poisson_bounds(1.0, 2, 1, [0.0, 1.0], certified["accuracy"])
        return first_use_seconds(setup, call), 1.0

    return rates.calibrate("chua25_engine_first_use (b_vs_p, in a process of its own)", timing)[0]


def b_vs_p_work(experiment: str, config: dict, rates: Rates) -> Work:
    """Its cost model entry. Units: grid settings (sigma, T, epochs), each on its whole eps grid.
    The dearest setting (``dearest_setting``) on a ladder of its own: at 16x, then (budget allowing)
    4x coarser accuracy and whole, ``PLD_ACCURACY_EXPONENT`` back; the spread probes never reached the quick
    grid's (sigma 0.5, T 1000: 16.9 of the job's 21 CPU s) and said 0.29x. The others at a 4x
    coarser certified accuracy (B and P), scaled by 4: all when the probing budget allows, otherwise
    in proportion from settings spread over them (``spread``: 1/16, 1/8, ...). + the engines' first
    use in the job. The whole eps grid, not a few eps: one eps can cost 30x the others (P at sigma
    0.5, T 1000: eps 0.5 takes 7 CPU s at accuracy 0.04, each other eps 0.2 s; measured 2026-11-29),
    and 2 eps made the quick estimate 0.19x the run."""
    spec = config["chua25"]["b_vs_p"]
    certified = coarse_certified(config, spec)
    target = certified_settings(config["chua25"], spec)["accuracy"]
    eps = epsilon_grid(spec)
    grid = settings(spec)
    dear = dearest_setting(grid)
    others = [s for s in grid if s is not dear]
    first_use = _engine_first_use(rates, certified)

    def seconds_of(some: list[dict]) -> float:
        b = cpu_seconds(lambda: [certified_bounds(s["sigma"], s["steps"], s["epochs"], eps, certified) for s in some])
        p = cpu_seconds(lambda: [poisson_bounds(s["sigma"], s["steps"], s["epochs"], eps, certified["accuracy"])
                                 for s in some])
        return (b + p) * CERTIFIED_COARSENING

    def dear_seconds_at(coarsening: float) -> float:  # the dearest setting at a coarser accuracy, unscaled
        accuracy = {**certified, "accuracy": min(target * coarsening, 0.5)}
        return cpu_seconds(lambda: (certified_bounds(dear["sigma"], dear["steps"], dear["epochs"], eps, accuracy),
                                    poisson_bounds(dear["sigma"], dear["steps"], dear["epochs"], eps,
                                                   accuracy["accuracy"])))

    name = f"sigma {dear['sigma']:g}, T {dear['steps']}, epochs {dear['epochs']}"
    dear_seconds, dear_source = rates.probed(f"{experiment} dearest setting ({name}, certified accuracy {target:g})",
                                             dear_seconds_at, DEAR_COARSENINGS, power_law(PLD_ACCURACY_EXPONENT))
    seconds, source = rates.probed(f"{experiment} ({len(others)} other settings, certified accuracy "
                                   f"{certified['accuracy']:g})", lambda c: seconds_of(spread(others, c)),
                                   GRID_THINNINGS, in_proportion(lambda c: float(len(spread(others, c))))) \
        if others else (0.0, "calibration: none")
    source = (f"{dear_source} for {name}; the other {len(others)}: {source.removeprefix('calibration: ')}; "
              f"+ {first_use:.2g} s the engines' first use in its job")
    return Work(experiment, float(len(grid)), "grid settings (sigma, T, epochs)",
                (dear_seconds + seconds + first_use) / len(grid), source)


EXPERIMENT = Experiment("chua25_b_vs_p", __name__, PRIVACY_RULES,
                        ("scripts/compute_chua25_b_vs_p.py", "scripts/plot_chua25_b_vs_p.py"),
                        chua25_tests("test_chua25_certified.py", "test_chua25_privacy.py", "test_chua25_workflow.py"),
                        outputs=lambda config: ["results/chua25_b_vs_p/grid.parquet", "results/chua25_b_vs_p/grid.md",
                                                *figure_files("chua25_b_vs_p")],
                        claims=tuple(CLAIMS), cost=b_vs_p_work)
