"""chua25's stated privacy numbers (Figs. 2-4, App. C) and properties, with their criteria.

Monte Carlo claims are judged with their confidence bounds (UCB at the configured beta), never
with point values alone. Qualitative statements get a stated criterion:

- Fig. 2 "UCB on delta_B below delta_P except where delta_P < 1e-7": per panel, the number of
  grid eps with delta_P >= 1e-7 at which UCB_B >= delta_P (max direction); the paper's statement
  means 0. delta_P is the PLD upper bound, which moves by < 0.1% when the interval shrinks 20x,
  while the PLD lower bound converges to it slowly over tens of thousands of compositions; the
  count against the lower bound is in the note.
- Fig. 2, the same statement judged with the certified upper bound on delta_B (PLD of the
  random-allocation pair) in place of the UCB: the number of grid eps with delta_P >= 1e-7 at
  which the certified upper bound on delta_B >= delta_P (PLD upper); 0 means the statement holds
  with certainty at every such eps. It has no Monte Carlo floor log(1/beta)/m, so the quick
  config can answer it. The note counts the eps where even the certified *lower* bound on delta_B
  is >= delta_P's PLD upper bound, i.e. where delta_B > delta_P is certain.
- Fig. 2 "delta_S lower bound far above both": per panel, the smallest ratio of the E_C lower
  bound on delta_S to max(PLD upper bound of delta_P, MC mean of delta_B) over the grid eps where
  that maximum is <= 0.01, i.e. wherever an order of magnitude fits below delta_S <= 1; "far
  above" read as >= 10. (Revised after a first run: the first criterion, >= 10 at every eps,
  cannot hold at eps = 0, where delta_P is 0.1-0.3 and delta_S at most 1.)
- Fig. 2 "B lower bound close to the MC mean": per panel, the largest ratio MC mean / bound (6)
  over the grid eps where the mean's relative standard error is <= 0.1; "close" read as <= 2
  (the mean is from order statistics, itself pessimistic).
- Fig. 3 "IS much tighter at similar running time": UCB without / with importance sampling at
  eps = 12 >= 10, and sampling time of one importance eps point / naive time (same m, both
  directions) <= 2 (either way).
- Fig. 4 timings: per panel, (OS time / naive time) at the paper's sample counts (our per-sample
  CPU times, which are linear in m, scaled to them) < 0.9, i.e. order statistics with 10x (300x)
  more samples is faster by more than timing noise, as the paper reports (66 s vs 268 s;
  203 s vs 245 s, ratio 0.83).
- chua25_props, certified bracket (``checks.py``): the number of grid points where bound (6) >
  certified lower bound (the chain bound (6) <= certified lower as stated; not a contradiction
  when it fails), where the certified bounds contradict themselves or bound (6), and where the MC
  mean lies outside [certified lower, certified upper] by more than its error (z = 4.5 where the
  mean is resolved, KL confidence bounds at beta elsewhere).
- chua25_b_vs_p (not a paper claim; App. D leaves it open): the number of grid points where
  delta_B is certifiably above delta_P (certified lower bound on delta_B > PLD upper bound on
  delta_P). No number is stated, so it is recorded as a finding (relation ``finding``), never as
  reproduced or not.
- chua25_props, Thm 3.4: among the (panel, eps) where the PLD lower bound of delta_P exceeds
  delta_D (so delta_B <= delta_D < delta_P there) and log(1/beta)/m, the smallest UCB m samples
  can give (so that Monte Carlo can certify it at all), the number where UCB_B is not below it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from dpsampling.accountants import ballsbins as bb
from dpsampling.accountants.truncation import truncation_delta
from dpsampling.papers.chua25.b_vs_p import CLASSES, P_BETTER
from dpsampling.papers.chua25.privacy import CERTIFIED_METHOD
from dpsampling.pipeline.claims.base import Claim, Missing

FIG2_ORDERS = {"pctr_b1024": "739", "pctr_b8192": "589", "search_b1024": "609", "search_b8192": "589"}
FIG4_ORDERS = {"left": "590", "right": "590"}
PAPER_SETTINGS = {  # (experiment, panel) -> the paper's parameters; claims are judged only on these
    ("chua25_fig2", "pctr_b1024"): {"steps": 36133, "orders": "1..500,510..1000/10,1100..19900/100"},
    ("chua25_fig2", "pctr_b8192"): {"steps": 4517, "orders": "1..500,510..1000/10,1050..2950/50"},
    ("chua25_fig2", "search_b1024"): {"steps": 12497, "orders": "1..500,510..1000/10,1100..6900/100"},
    ("chua25_fig2", "search_b8192"): {"steps": 1563, "orders": "1..500,510..990/10"},
    ("chua25_fig3", "left"): {"sigma": 0.4, "steps": 5000},
    ("chua25_fig3", "right"): {"sigma": 0.35, "steps": 10000},
    ("chua25_fig4", "left"): {"sigma": 0.32, "steps": 100000,
                              "orders": "1..400,410..1000/10,1100..10000/100,11000..50000/1000"},
    ("chua25_fig4", "right"): {"sigma": 0.25, "steps": 1000000,
                               "orders": "1..300,310..1000/10,1100..10000/100,11000..100000/1000,110000..500000/10000"},
}
TRUNC_SETTINGS = {"pctr": 37_000_000, "search": 12_796_151}
F2, F3, F4 = "chua25_fig2", "chua25_fig3", "chua25_fig4"
FIG4_PAPER = {"left": {"naive": 10000, "order_statistics": 100000, "seconds": (268, 66)},
              "right": {"naive": 1000, "order_statistics": 300000, "seconds": (245, 203)}}
TRUNC_PAPER = {"pctr": [1328, 2469, 4681, 9007, 17520, 34355, 67754, 134172, 266475],
               "search": [1320, 2458, 4665, 8984, 17488, 34309, 67687, 134071, 266317]}
TRUNC_BATCHES = [1024 * 2**k for k in range(9)]


def _require_paper_setting(frame, experiment, panel):
    """Missing unless the panel was run at the paper's parameters (a toy config is not judged)."""
    rows = frame[frame["panel"] == panel]
    if rows.empty:
        raise Missing(f"panel {panel} is not in the results (not configured)")
    for key, value in PAPER_SETTINGS[(experiment, panel)].items():
        if key == "orders":
            given = rows.loc[rows["orders"].fillna("") != "", "orders"]
            ours = given.iloc[0] if not given.empty else ""
            same = bool(ours) and bb.parse_orders(ours).tolist() == bb.parse_orders(value).tolist()
        else:
            ours = rows[key].iloc[0]
            same = bool(np.isclose(float(ours), float(value)))
        if not same:
            raise Missing(f"panel {panel} was run with {key} = {ours}, not the paper's {value}: not judged")


def _rows(frame, experiment, panel, sampler, method, bound, direction="max"):
    _require_paper_setting(frame, experiment, panel)
    rows = frame[(frame["panel"] == panel) & (frame["sampler"] == sampler) & (frame["method"] == method)
                 & (frame["bound"] == bound) & (frame["direction"] == direction)]
    if rows.empty:
        raise Missing(f"{panel}: {sampler} {method} {bound} is not in the results (panel not configured)")
    return rows.set_index("epsilon").sort_index()


def _n_orders(experiment, panel):
    def measure(frame):
        rows = _rows(frame, experiment, panel, "balls_and_bins", "MC order statistics", "upper", "remove")
        return float(rows["n_orders"].iloc[0]), f"orders {rows['orders'].iloc[0]}"
    return measure


def _ucb_floor(rows) -> float:
    return math.log(1 / float(rows["error_prob"].iloc[0])) / float(rows["samples"].iloc[0])


def _fig2_ucb_below_p(panel):
    def measure(frame):
        ucb = _rows(frame, F2, panel, "balls_and_bins", "MC order statistics", "upper")
        mean = _rows(frame, F2, panel, "balls_and_bins", "MC order statistics", "estimate")["delta"].reindex(ucb.index)
        p_lower = _rows(frame, F2, panel, "poisson", "pld", "lower")["delta"].reindex(ucb.index)
        p_upper = _rows(frame, F2, panel, "poisson", "pld", "upper")["delta"].reindex(ucb.index)
        relevant = p_upper >= 1e-7
        above = relevant & (ucb["delta"] >= p_upper)
        floor = _ucb_floor(ucb)
        resolvable = relevant & (p_upper >= 10 * floor)
        mean_above = relevant & (mean >= p_upper)
        where = ", ".join(f"{e:g}" for e in mean_above[mean_above].index) or "none"
        note = (f"{int(above.sum())} of {int(relevant.sum())} eps with delta_P >= 1e-7 have UCB_B >= delta_P "
                f"(PLD upper; vs PLD lower: {int(((p_lower >= 1e-7) & (ucb['delta'] >= p_lower)).sum())}); "
                f"{int((above & resolvable).sum())} of {int(resolvable.sum())} where delta_P >= 10 x the UCB floor "
                f"log(1/beta)/m = {floor:.2g} ({int(ucb['samples'].iloc[0]):,} samples per direction); even the MC mean "
                f"is >= delta_P at eps = {where} (B and P are incomparable, chua25 Thm D.1)")
        return float(above.sum()), note
    return measure


def _fig2_certified_below_p(panel):
    def measure(frame):
        upper = _rows(frame, F2, panel, "balls_and_bins", CERTIFIED_METHOD, "upper")["delta"]
        lower = _rows(frame, F2, panel, "balls_and_bins", CERTIFIED_METHOD, "lower")["delta"].reindex(upper.index)
        p_lower = _rows(frame, F2, panel, "poisson", "pld", "lower")["delta"].reindex(upper.index)
        p_upper = _rows(frame, F2, panel, "poisson", "pld", "upper")["delta"].reindex(upper.index)
        relevant = p_upper >= 1e-7
        above = relevant & (upper >= p_upper)
        certain = relevant & (lower > p_upper)
        where = ", ".join(f"{e:g}" for e in above[above].index) or "none"
        note = (f"{int(above.sum())} of {int(relevant.sum())} eps with delta_P >= 1e-7 have certified upper delta_B >= "
                f"delta_P (PLD upper), at eps = {where}; vs PLD lower: "
                f"{int(((p_lower >= 1e-7) & (upper >= p_lower)).sum())}; certified lower delta_B > delta_P (PLD upper), "
                f"i.e. delta_B > delta_P for certain, at {int(certain.sum())} of them")
        return float(above.sum()), note
    return measure


def _fig2_shuffle_far_above(panel):
    def measure(frame):
        s_lower = _rows(frame, F2, panel, "shuffle", "E_C sets", "lower")["delta"]
        p_upper = _rows(frame, F2, panel, "poisson", "pld", "upper")["delta"].reindex(s_lower.index)
        b_mean = _rows(frame, F2, panel, "balls_and_bins", "MC order statistics", "estimate")["delta"].reindex(s_lower.index)
        others = np.fmax(p_upper, b_mean.fillna(0.0))
        keep = others <= 0.01
        if not keep.any():
            raise Missing(f"{panel}: no eps with delta_P and delta_B <= 0.01 in the grid")
        ratio = (s_lower / others)[keep]
        eps = ratio.idxmin()
        return float(ratio.min()), (f"smallest ratio at eps = {eps:g} (delta_S >= {s_lower[eps]:.3g}, delta_P <= "
                                    f"{p_upper[eps]:.3g}, B mean {b_mean[eps]:.3g}) over the {int(keep.sum())} eps where "
                                    f"both are <= 0.01; at eps = {s_lower.index[0]:g} the ratio is "
                                    f"{s_lower.iloc[0] / others.iloc[0]:.3g}")
    return measure


def _fig2_lower_close_to_mean(panel):
    def measure(frame):
        mean = _rows(frame, F2, panel, "balls_and_bins", "MC order statistics", "estimate")
        lower = _rows(frame, F2, panel, "balls_and_bins", "bound (6)", "lower")["delta"].reindex(mean.index)
        resolved = (mean["delta"] > 0) & (mean["standard_error"] <= 0.1 * mean["delta"])
        if not resolved.any():
            raise Missing(f"{panel}: no eps with an MC mean resolved to 10%")
        ratio = (mean["delta"] / lower)[resolved]
        below = (lower > mean["delta"] + 4.5 * mean["standard_error"])[resolved]
        return float(ratio.max()), (f"largest mean / bound (6) at eps = {ratio.idxmax():g} over {int(resolved.sum())} "
                                    f"eps with relative standard error <= 0.1; bound (6) above mean + 4.5 se at "
                                    f"{int(below.sum())} of them")
    return measure


def _importance_weight(panel, epsilon):
    def measure(frame):
        _require_paper_setting(frame, F3, panel)
        rows = frame[(frame["panel"] == panel) & (frame["method"] == "MC importance") & (frame["direction"] == "remove")
                     & np.isclose(frame["importance_epsilon"], epsilon)]
        if rows.empty:
            raise Missing(f"{panel}: no importance sample set at eps = {epsilon} (add it to importance_epsilons)")
        sigma, steps = float(rows["sigma"].iloc[0]), int(rows["steps"].iloc[0])
        weight = math.exp(float(rows["log_weight"].iloc[0]))
        notes = [f"P_1(E_eps) = 1 - Phi(C/sigma)^T, remove event of Section 4, sigma = {sigma:g}, T = {steps}"]
        for stated in (3.75e-3, 1.66e-4):
            solved = brentq(lambda e, stated=stated: bb.log_importance_probability(sigma, steps, e, "remove") - math.log(stated), 0, 50)
            notes.append(f"it equals {stated:g} at eps = {solved:.4f}")
        return weight, "; ".join(notes)
    return measure


def _mc(frame, experiment, panel, method, epsilon=None):
    _require_paper_setting(frame, experiment, panel)
    rows = frame[(frame["panel"] == panel) & (frame["method"] == method) & (frame["direction"] == "max")
                 & (frame["bound"] == "upper")]
    if epsilon is not None:
        rows = rows[np.isclose(rows["epsilon"], epsilon)]
    if rows.empty:
        raise Missing(f"{panel}: {method} at eps = {epsilon} is not in the results")
    return rows.iloc[0]


def _fig3_tighter(panel, epsilon=12.0):
    def measure(frame):
        naive, importance = _mc(frame, F3, panel, "MC naive", epsilon), _mc(frame, F3, panel, "MC importance", epsilon)
        return float(naive["delta"] / importance["delta"]), (
            f"UCB at eps = {epsilon:g}: naive {naive['delta']:.3g} ({int(naive['samples']):,} samples), importance "
            f"{importance['delta']:.3g} ({int(importance['samples']):,} samples); criterion >= 10")
    return measure


def _fig3_time(panel, epsilon=12.0):
    def measure(frame):
        naive, importance = _mc(frame, F3, panel, "MC naive", epsilon), _mc(frame, F3, panel, "MC importance", epsilon)
        per_naive = naive["sampling_cpu_seconds"] / naive["samples"]
        per_importance = importance["sampling_cpu_seconds"] / importance["samples"]
        ratio = per_importance / per_naive
        return float(max(ratio, 1 / ratio)), (
            f"per sample and eps point: importance {1e6 * per_importance:.0f} us, naive {1e6 * per_naive:.0f} us "
            f"(both directions, one thread; naive serves every eps at once, importance one eps per set); "
            f"criterion: within a factor 2")
    return measure


def _fig4_time(panel):
    def measure(frame):
        paper = FIG4_PAPER[panel]
        seconds = {}
        notes = []
        for method, key in (("MC naive", "naive"), ("MC order statistics", "order_statistics")):
            row = _mc(frame, F4, panel, method)
            seconds[key] = row["sampling_cpu_seconds"] / row["samples"] * paper[key]
            notes.append(f"{key}: {row['sampling_cpu_seconds']:.1f} s for {int(row['samples']):,} samples "
                         f"-> {seconds[key]:.0f} s at the paper's {paper[key]:,} (CPU time)")
        naive_paper, os_paper = paper["seconds"]
        notes.append(f"paper: {os_paper} s (OS) vs {naive_paper} s (naive), ratio {os_paper / naive_paper:.2f}; "
                     "ours: both directions, one thread")
        return float(seconds["order_statistics"] / seconds["naive"]), "; ".join(notes)
    return measure


def _props_count(columns, detail):
    def measure(frame):
        flagged = frame[columns].any(axis=1)
        where = frame.loc[flagged, ["panel", "direction", "epsilon"]].head(5).to_dict("records")
        return float(flagged.sum()), detail(frame) + (f"; first: {where}" if where else "")
    return measure


def _props_contradictions_detail(frame):
    certified = int(frame["certifies_b_below_s"].sum())
    maxima = int((frame["direction"] == "max").sum())
    return (f"{len(frame)} points (panel, direction, eps); delta_B <= delta_S certified (UCB_B < E_C lower bound "
            f"of delta_S) at {certified} of {maxima} max-direction points; it cannot be contradicted by our bounds "
            "(no upper bound on delta_S but delta_D)")


def _thm34(frame):
    floor = np.log(1 / frame["error_prob"]) / frame["count"]
    beyond = (frame["direction"] == "max") & (frame["delta_P_lower"] > frame["delta_D"])
    rows = frame[beyond & (frame["delta_P_lower"] > floor)]
    if rows.empty:
        raise Missing("no grid point where delta_P's PLD lower bound exceeds delta_D and the UCB floor (extend the "
                      "props grid: small T, large eps)")
    failing = rows[~rows["certifies_b_below_p"]]
    panels = sorted(set(frame["panel"]) - set(rows["panel"]))
    note = (f"{len(rows)} (panel, eps) points where delta_P's PLD lower bound exceeds delta_D (so delta_B <= delta_D "
            f"< delta_P there, Thm 3.4's argument) and the UCB floor log(1/beta)/m = {floor.max():.2g}; UCB_B below "
            f"it at {len(rows) - len(failing)}; {int(beyond.sum()) - len(rows)} more such points are below the floor; "
            f"panels without any: {', '.join(panels) or 'none'}; B certified below P at "
            f"{int(frame['certifies_b_below_p'].sum())} max-direction points in all")
    return float(len(failing)), note


def _ordering_detail(frame):
    beta = float(frame["error_prob"].iloc[0])
    points = len(frame)
    return (f"{points} points; false-failure probability <= {points} x (beta = {beta:g} + 3.4e-6) "
            f"= {points * (beta + 3.4e-6):.2g} (union bound; bound (6) vs UCB at beta, vs mean by a one-sided z = 4.5)")


def _cert_detail(frame):
    points = len(frame)
    resolved = int(((frame["mean"] > 0) & (frame["standard_error"] <= 0.1 * frame["mean"])).sum())
    gap = ((frame["delta_B_cert_upper"] - frame["delta_B_cert_lower"]) / frame["delta_B_cert_upper"])[
        frame["delta_B_cert_upper"] > 1e-12]
    return (f"{points} points (panel, direction, eps), {resolved} with the MC mean resolved to 10% (z = 4.5 test there, "
            f"one-sided, 3.4e-6 per point; KL confidence bounds at beta = {float(frame['error_prob'].iloc[0]):g} "
            f"everywhere); largest relative gap of the certified bracket {gap.max():.3g}")


def _lower6_detail(frame):
    flagged = frame["lower6_above_cert_lower"]
    measured = flagged & (frame["delta_B_cert_upper"] > 1e-12)  # the certified engine's accuracy floor
    excess = ((frame["delta_B_lower"] - frame["delta_B_cert_lower"]) / frame["delta_B_cert_upper"])[measured]
    return (f"{len(frame)} points; bound (6) exceeds the certified lower bound at {int(measured.sum())} points with "
            f"delta > 1e-12, by at most {excess.max() if measured.any() else 0.0:.2g} of the certified upper bound "
            f"(inside the certified bracket), and at {int((flagged & ~measured).sum())} below 1e-12 (certified lower "
            f"0 there); bound (6) above the certified upper bound at {int(frame['lower6_above_cert_upper'].sum())} "
            "points")


def _b_vs_p_finding(frame):
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


def _trunc(dataset, index):
    def measure(frame):
        rows = frame[(frame["dataset"] == dataset) & (frame["batch_size"] == TRUNC_BATCHES[index])]
        if rows.empty:
            raise Missing(f"{dataset} b = {TRUNC_BATCHES[index]} is not in the table")
        row = rows.iloc[0]
        if int(row["n"]) != TRUNC_SETTINGS[dataset] or float(row["epsilon"]) != 10.0 or float(row["delta_target"]) != 1e-10:
            raise Missing(f"{dataset} was computed with n = {int(row['n'])}, eps = {row['epsilon']}, delta = "
                          f"{row['delta_target']}, not App. C's: not judged")
        paper = TRUNC_PAPER[dataset][index]
        at_paper = truncation_delta(int(row["n"]), int(row["batch_size"]), paper, int(row["steps"]), float(row["epsilon"]))
        return float(row["max_batch_size"]), (f"n = {int(row['n']):,}, T = {int(row['steps'])}: delta'(ours) = "
                                              f"{row['delta_prime']:.3g}, delta'(paper's B) = {at_paper:.3g}")
    return measure


PCTR_WHY = ("with App. C's n = 37,000,000 and T = ceil(n/b) the smallest admissible B is 3 to 56 below the paper's; the "
            "paper's values give delta' ~ 3.6-4.0e-11 (admissible, not minimal) and are what (1 + e^eps) T replaced by "
            "~5.5e4 T (2.5x larger, e.g. eps ~ 10.9) would give; we could not find the n, T or eps behind them")
SEARCH_WHY = ("with App. C's n = 12,796,151 and T = ceil(n/b) the smallest admissible B is 0 to 9 above the paper's; at "
              "the paper's values delta' = 1.0-1.15e-10, slightly above the stated 1e-10 (they match a constant ~1.9e4 = "
              "0.86 (1 + e^10))")
UCB_FLOOR_WHY = ("at the configured sample count the UCB cannot fall below log(1/beta)/m (see note); the paper used "
                 "5e8 samples per direction (floor 1.4e-8): run config/paper.yaml")
LEFT_WEIGHT_WHY = ("Section 4's remove event gives P(E_12) = 4.62e-6 for T = 5000, sigma = 0.4; 3.75e-3 is its value at "
                   "eps = 9.0 (see note), while the right panel's 1.66e-4 matches at eps = 12: the left number belongs to "
                   "eps ~ 9 (or to other parameters), not to eps = 12")

CHUA25_PRIVACY_CLAIMS = [
    *[Claim(f"chua25_fig2_orders_{panel}", F2, f"number of orders, {panel} (App. C)", "~", count, _n_orders(F2, panel),
            result_file="summary.parquet", tolerance=0.0,
            why=("the list (1..500, 510..990/10) has 500 + 49 = 549 orders; 549/1563 = 35% matches the paper's "
                 "'about 35% of the steps', 589 does not (37.7%): the stated count is off") if panel == "search_b8192" else "")
      for panel, count in FIG2_ORDERS.items()],
    *[Claim(f"chua25_fig2_ucb_below_P_{panel}", F2, f"eps with delta_P >= 1e-7 where UCB_B >= delta_P (PLD upper), {panel}",
            "~", "0", _fig2_ucb_below_p(panel), result_file="summary.parquet", tolerance=0.0, why=UCB_FLOOR_WHY)
      for panel in FIG2_ORDERS],
    *[Claim(f"chua25_fig2_certified_below_P_{panel}", F2, f"eps with delta_P >= 1e-7 where the certified upper bound "
            f"on delta_B >= delta_P (PLD upper), {panel}", "~", "0", _fig2_certified_below_p(panel),
            result_file="summary.parquet", tolerance=0.0,
            why="the certified upper bound on delta_B is not below delta_P at every eps with delta_P >= 1e-7: where it "
                "is not, the note says whether even the certified lower bound is above delta_P (delta_B > delta_P for "
                "certain; at the quick config this happens at the smallest eps, 0 to 1.5, in every panel, as chua25 "
                "App. D allows): 'except where delta_P < 1e-7' does not describe those exceptions")
      for panel in FIG2_ORDERS],
    *[Claim(f"chua25_fig2_S_far_above_{panel}", F2, f"min over eps of delta_S lower / max(delta_P upper, B mean), {panel}",
            ">=", "1e1", _fig2_shuffle_far_above(panel), result_file="summary.parquet", tolerance=0.0,
            why="the E_C lower bound on delta_S is not an order of magnitude above delta_P and delta_B at every eps")
      for panel in FIG2_ORDERS],
    *[Claim(f"chua25_fig2_lower_close_{panel}", F2, f"max over resolved eps of B MC mean / bound (6), {panel}",
            "<=", "2", _fig2_lower_close_to_mean(panel), result_file="summary.parquet", tolerance=0.0,
            why="the MC mean (order statistics) is more than twice bound (6) somewhere")
      for panel in FIG2_ORDERS],
    Claim("chua25_fig3_weight_left", F3, "P(E_eps) of the importance set at eps=12, T=5000, sigma=0.4", "~", "3.75e-3",
          _importance_weight("left", 12.0), result_file="summary.parquet", why=LEFT_WEIGHT_WHY),
    Claim("chua25_fig3_weight_right", F3, "P(E_eps) of the importance set at eps=12, T=10000, sigma=0.35", "~", "1.66e-4",
          _importance_weight("right", 12.0), result_file="summary.parquet"),
    *[Claim(f"chua25_fig3_tighter_{panel}", F3, f"UCB naive / UCB importance at eps=12, {panel} (criterion >= 10)",
            ">=", "1e1", _fig3_tighter(panel), result_file="summary.parquet", tolerance=0.0,
            why="importance sampling is not an order of magnitude tighter here") for panel in ("left", "right")],
    *[Claim(f"chua25_fig3_similar_time_{panel}", F3, f"sampling time ratio importance / naive per eps point, {panel} "
            "(criterion within 2x)", "<=", "2", _fig3_time(panel), result_file="summary.parquet", tolerance=0.0,
            why="at equal m one importance eps point costs more than twice the naive run here: a timing, so the "
                "verdict can change between machines and runs near the factor 2; the add direction draws each "
                "coordinate below C by rejection, about 1/Phi(C/sigma) normals per coordinate (2.3 at eps = 12, "
                "T = 5000, sigma = 0.4)") for panel in ("left", "right")],
    *[Claim(f"chua25_fig4_orders_{panel}", F4, f"number of orders, Fig. 4 {panel}", "~", count, _n_orders(F4, panel),
            result_file="summary.parquet", tolerance=0.0) for panel, count in FIG4_ORDERS.items()],
    *[Claim(f"chua25_fig4_time_{panel}", F4, f"time OS / time naive at the paper's sample counts, {panel} (paper "
            f"{FIG4_PAPER[panel]['seconds'][1]} s / {FIG4_PAPER[panel]['seconds'][0]} s; criterion < 0.9)", "<", "0.9",
            _fig4_time(panel), result_file="summary.parquet", tolerance=0.0,
            why="our order-statistics sampler is not faster than naive sampling beyond timing noise at the paper's "
                "sample counts: per sample, an order statistic (an exponential spacing and an inverse normal CDF) "
                "costs several times a naive coordinate (a ziggurat normal and an exp)")
      for panel in ("left", "right")],
    Claim("chua25_props_prop33", "chua25_props", "grid points where our bounds contradict delta_B <= delta_S <= delta_D "
          "(Prop. 3.3)", "~", "0", _props_count(["contradicts_b_s_d"], _props_contradictions_detail),
          result_file="checks.parquet", tolerance=0.0, why="a lower bound on delta_B or delta_S exceeds delta_D"),
    Claim("chua25_props_thm34", "chua25_props", "grid points with delta_P > delta_D and delta_P > the UCB floor where "
          "UCB_B is not below delta_P (Thm 3.4)", "~", "0", _thm34, result_file="checks.parquet", tolerance=0.0,
          why="the Monte Carlo upper bound does not certify delta_B < delta_P there (sample size)"),
    Claim("chua25_props_ordering", "chua25_props", "grid points violating bound (6) <= MC mean <= UCB", "~", "0",
          _props_count(["lower_above_mean", "lower_above_ucb", "mean_above_ucb"], _ordering_detail),
          result_file="checks.parquet", tolerance=0.0, why="bound (6), the MC mean and the UCB are out of order"),
    Claim("chua25_props_cert_lower6", "chua25_props", "grid points where bound (6) > the certified lower bound of B "
          "(chain bound (6) <= certified lower)", "~", "0", _props_count(["lower6_above_cert_lower"], _lower6_detail),
          result_file="checks.parquet", tolerance=0.0,
          why="bound (6) is above the certified (PLD) lower bound at some points: both are valid lower bounds, so this "
              "is no contradiction; there bound (6) is the tighter one (the certified lower bound is within its "
              "accuracy of delta_B, and bound (6) is closer still at large eps)"),
    Claim("chua25_props_cert_consistent", "chua25_props", "grid points where the certified bounds of B contradict "
          "themselves or bound (6) (certified lower > upper, or bound (6) > certified upper)", "~", "0",
          _props_count(["cert_lower_above_upper", "lower6_above_cert_upper"], _cert_detail),
          result_file="checks.parquet", tolerance=0.0, why="a certified bound or bound (6) is wrong"),
    Claim("chua25_props_cert_lower_mc", "chua25_props", "grid points where the certified lower bound of B is above "
          "the MC mean beyond its error (certified lower <= MC mean)", "~", "0",
          _props_count(["cert_lower_above_mc"], _cert_detail), result_file="checks.parquet", tolerance=0.0,
          why="the Monte Carlo and the certified lower bound disagree beyond the MC error"),
    Claim("chua25_props_cert_upper_mc", "chua25_props", "grid points where the certified upper bound of B is below "
          "the MC mean beyond its error (MC mean <= certified upper)", "~", "0",
          _props_count(["cert_upper_below_mc"], _cert_detail), result_file="checks.parquet", tolerance=0.0,
          why="the Monte Carlo and the certified upper bound disagree beyond the MC error"),
    Claim("chua25_b_vs_p_p_better", "chua25_b_vs_p", "grid points where delta_B is certifiably above delta_P "
          "(certified lower bound of B > PLD upper bound of P; no number stated, App. D leaves it open)",
          "finding", "none stated", _b_vs_p_finding, result_file="grid.parquet"),
    *[Claim(f"chua25_trunc_{dataset}_b{TRUNC_BATCHES[i]}", "chua25_trunc", f"max batch size B, {dataset}, b = "
            f"{TRUNC_BATCHES[i]} (delta' <= 1e-10 at eps = 10)", "~", str(value), _trunc(dataset, i),
            result_file="table.parquet", tolerance=0.0, why=PCTR_WHY if dataset == "pctr" else SEARCH_WHY)
      for dataset, values in TRUNC_PAPER.items() for i, value in enumerate(values)],
]
