"""Certified balls-and-bins bounds in the chua25 pipeline: the certified rows of the bounds table
against Monte Carlo, the property checks on them, the Fig. 2 claim judged with the certified upper
bound, and chua25_b_vs_p (classification, a tiny real grid checked against Monte Carlo, its
finding, its map).

Monte Carlo comparisons use a one-sided z = 4.5 (false failure <= 3.4e-6 per comparison)."""

import numpy as np
import pandas as pd
import pytest

from dpsampling.accountants import ballsbins as bb
from dpsampling.io import write_table
from dpsampling.papers.chua25 import b_vs_p, epochs, fig2, props
from dpsampling.papers.chua25 import privacy as chua25_privacy
from dpsampling.papers.registry import CLAIMS
from dpsampling.pipeline.claims import check_claims

Z = 4.5
SIGMA, STEPS = 0.5, 10  # the tiny config's props setting
EPS = np.array([0.0, 1.0, 2.0, 4.0])
SETTINGS = {"pld": {"relative_accuracy": 0.01},
            "certified": {"accuracy": 0.01, "max_grid_points": 40000}}
SETTING = [{"panel": f"sigma{SIGMA:g}_T{STEPS}", "sigma": SIGMA, "steps": STEPS, "epochs": 1}]


@pytest.fixture(scope="module")
def bounds():
    return chua25_privacy.bounds_table(props.CURVES, SETTING, EPS, SETTINGS)


@pytest.fixture(scope="module")
def monte_carlo():
    """(mean, standard error) per direction at EPS from 200,000 naive samples."""
    out = {}
    for seed, direction in enumerate(("remove", "add")):
        estimate = bb.estimate_delta(bb.sample_naive_losses(SIGMA, STEPS, 200_000, direction, seed=seed), EPS)
        out[direction] = (estimate.mean(), estimate.standard_error())
    return out


def _certified(frame, bound, direction):
    rows = frame[(frame["method"] == chua25_privacy.CERTIFIED_METHOD) & (frame["bound"] == bound)
                 & (frame["direction"] == direction)]
    return rows.sort_values("epsilon")["delta"].to_numpy()


def test_bounds_table_has_certified_rows_with_their_record(bounds):
    rows = bounds[bounds["method"] == chua25_privacy.CERTIFIED_METHOD]
    assert set(rows["sampler"]) == {"balls_and_bins"}
    assert set(zip(rows["bound"], rows["direction"])) == {(b, d) for b in ("upper", "lower")
                                                          for d in ("remove", "add", "max")}
    assert len(rows) == 6 * EPS.size
    for direction in ("remove", "add"):
        assert (_certified(bounds, "lower", direction) <= _certified(bounds, "upper", direction)).all()
    np.testing.assert_array_equal(_certified(bounds, "upper", "max"),
                                  np.maximum(_certified(bounds, "upper", "remove"), _certified(bounds, "upper", "add")))
    [record] = bounds.attrs["certified"]
    assert record["panel"] == SETTING[0]["panel"] and record["accuracy_requested"] == 0.01
    assert record["converged"] and record["accuracy_reached"] <= 0.01 and record["engine_version"] >= 1
    assert {"grid_step_top", "grid_step_bottom", "grid_points_largest", "refinements"} <= set(record)


def test_certified_bounds_bracket_the_monte_carlo_mean(bounds, monte_carlo):
    """Within z = 4.5 standard errors where the mean is resolved (relative error <= 0.1, the
    normal approximation holds), and certified lower <= KL UCB (beta = 1e-6) everywhere."""
    for direction, (mean, error) in monte_carlo.items():
        lower, upper = _certified(bounds, "lower", direction), _certified(bounds, "upper", direction)
        resolved = (mean > 0) & (error <= 0.1 * mean)
        assert resolved.sum() >= 3
        assert (mean - Z * error <= upper)[resolved].all(), (direction, mean, error, upper)
        assert (mean + Z * error >= lower)[resolved].all(), (direction, mean, error, lower)
        assert (lower <= bb.kl_upper_confidence_bound(mean, 200_000, 1e-6)).all()
        # and the bracket is tight enough to be tested: narrower than the MC error bar at eps = 0
        assert upper[0] - lower[0] < Z * error[0]


def _props_inputs(bounds, monte_carlo):
    """The delta table of the props merge and the summary, from the MC above (one panel)."""
    panel = SETTING[0]["panel"]
    rows = []
    for direction, (mean, error) in monte_carlo.items():
        ucb = bb.kl_upper_confidence_bound(mean, 200_000, 1e-6)
        rows.append(pd.DataFrame({"panel": panel, "series": "naive", "method": "naive", "direction": direction,
                                  "sigma": SIGMA, "steps": STEPS, "epochs": 1, "epsilon": EPS, "count": 200_000,
                                  "mean": mean, "standard_error": error, "ucb": ucb, "log_weight": 0.0,
                                  "error_prob": 1e-6}))
    delta = pd.concat(rows, ignore_index=True)
    remove, add = (delta[delta["direction"] == d].reset_index(drop=True) for d in ("remove", "add"))
    larger = add["mean"] > remove["mean"]
    maximum = remove.assign(direction="max", mean=np.fmax(remove["mean"], add["mean"]),
                            standard_error=np.where(larger, add["standard_error"], remove["standard_error"]),
                            ucb=np.fmax(remove["ucb"], add["ucb"]), log_weight=np.nan)
    delta = pd.concat([delta, maximum], ignore_index=True)
    return chua25_privacy.summary_table(delta.assign(samples=200_000, n_orders=0, orders="", importance_epsilon=np.nan,
                                                     sampling_seconds=0.0, sampling_cpu_seconds=0.0), bounds), delta


def test_property_checks_of_the_certified_bracket(bounds, monte_carlo):
    summary, delta = _props_inputs(bounds, monte_carlo)
    table = props.property_checks(summary, delta)
    assert table["delta_B_cert_upper"].notna().all() and table["delta_B_cert_lower"].notna().all()
    for column in ("lower6_above_cert_upper", "cert_lower_above_upper", "cert_lower_above_mc", "cert_upper_below_mc"):
        assert not table[column].any(), table.loc[table[column], ["direction", "epsilon"]]
    markdown = props.property_markdown(table)
    assert "cert_upper_below_mc" in markdown and "4.5 standard errors" in markdown
    # a wrong certified upper bound (halved) is caught by the MC, and so is a wrong lower one (doubled)
    certified = summary["method"] == chua25_privacy.CERTIFIED_METHOD
    halved = summary.copy()
    halved.loc[certified & (summary["bound"] == "upper"), "delta"] *= 0.5
    assert props.property_checks(halved, delta)["cert_upper_below_mc"].sum() >= 3
    doubled = summary.copy()
    doubled.loc[certified & (summary["bound"] == "lower"), "delta"] *= 2.0
    flagged = props.property_checks(doubled, delta)
    assert flagged["cert_lower_above_mc"].sum() >= 3 and flagged["cert_lower_above_upper"].sum() >= 3
    # bound (6) above the certified lower bound is flagged by the chain check
    raised = summary.copy()
    raised.loc[(summary["method"] == "bound (6)"), "delta"] *= 1.5
    assert props.property_checks(raised, delta)["lower6_above_cert_lower"].any()


def test_props_claims_of_the_certified_bracket(tmp_path, bounds, monte_carlo):
    summary, delta = _props_inputs(bounds, monte_carlo)
    write_table(props.property_checks(summary, delta), tmp_path / "chua25_props" / "checks.parquet", {})
    table = check_claims(CLAIMS, tmp_path, ["chua25_props"]).set_index("claim_id")
    for claim in ("chua25_props_cert_consistent", "chua25_props_cert_lower_mc", "chua25_props_cert_upper_mc"):
        assert table.loc[claim, "verdict"] == "reproduced" and table.loc[claim, "our_value"] == 0
    assert table.loc["chua25_props_cert_lower6", "verdict"] in ("reproduced", "not_reproduced")
    halved = summary.copy()
    halved.loc[(summary["method"] == chua25_privacy.CERTIFIED_METHOD) & (summary["bound"] == "upper"), "delta"] *= 0.5
    write_table(props.property_checks(halved, delta), tmp_path / "chua25_props" / "checks.parquet", {})
    table = check_claims(CLAIMS, tmp_path, ["chua25_props"]).set_index("claim_id")
    assert table.loc["chua25_props_cert_upper_mc", "verdict"] == "not_reproduced"
    assert table.loc["chua25_props_cert_upper_mc", "our_value"] >= 3


def _fig2_summary(b_upper, b_lower, p_upper, p_lower, eps):
    """A Fig. 2 summary of panel search_b8192 at the paper's T and orders with the four curves."""
    setting = fig2.PAPER_PANELS["search_b8192"]
    rows = []
    for sampler, method, bound, values in (("balls_and_bins", chua25_privacy.CERTIFIED_METHOD, "upper", b_upper),
                                           ("balls_and_bins", chua25_privacy.CERTIFIED_METHOD, "lower", b_lower),
                                           ("poisson", "pld", "upper", p_upper), ("poisson", "pld", "lower", p_lower)):
        rows.append(pd.DataFrame({"panel": "search_b8192", "sigma": 0.3, "steps": setting["steps"],
                                  "orders": setting["orders"], "sampler": sampler, "method": method, "bound": bound,
                                  "direction": "max", "epsilon": eps, "delta": values}))
    return pd.concat(rows, ignore_index=True)


def _sibling(tmp_path, *curves):
    write_table(_fig2_summary(*curves, eps=np.array([0.0, 5.0, 10.0, 15.0])),
                tmp_path / "chua25_fig2" / "summary.parquet", {})
    return check_claims(CLAIMS, tmp_path, ["chua25_fig2"]).set_index("claim_id").loc[
        "chua25_fig2_certified_below_P_search_b8192"]


def test_fig2_claim_judged_with_the_certified_upper_bound(tmp_path):
    p_upper = np.array([0.3, 1e-3, 1e-6, 1e-9])
    p_lower = 0.99 * p_upper
    # B certified below P everywhere: reproduced
    row = _sibling(tmp_path, 0.5 * p_upper, 0.4 * p_upper, p_upper, p_lower)
    assert row["verdict"] == "reproduced" and row["our_value"] == 0
    # certified upper above P only where delta_P < 1e-7 (eps = 15): still reproduced (the paper's exception)
    b_upper = np.array([0.1, 1e-4, 1e-7, 1e-8])
    row = _sibling(tmp_path, b_upper, 0.9 * b_upper, p_upper, p_lower)
    assert row["verdict"] == "reproduced" and row["our_value"] == 0
    # certified upper above P at eps = 0 where delta_P = 0.3, and even its lower bound: not reproduced
    b_upper = np.array([0.5, 1e-4, 1e-7, 1e-10])
    row = _sibling(tmp_path, b_upper, 0.9 * b_upper, p_upper, p_lower)
    assert row["verdict"] == "not_reproduced" and row["our_value"] == 1
    assert "at eps = 0" in row["note"] and "for certain, at 1 of them" in row["note"]


def test_classification_on_a_constructed_case():
    b_lower = np.array([0.10, 0.40, 0.20, 1e-14, 0.0])
    b_upper = np.array([0.11, 0.41, 0.31, 2e-14, 1e-13])
    p_lower = np.array([0.20, 0.30, 0.25, 1.0e-3, 0.0])
    p_upper = np.array([0.21, 0.35, 0.26, 1.1e-3, 5e-13])
    assert list(b_vs_p.classify(b_lower, b_upper, p_lower, p_upper)) == [
        b_vs_p.B_BETTER, b_vs_p.P_BETTER, b_vs_p.UNDECIDED, b_vs_p.B_BETTER, b_vs_p.BELOW_FLOOR]


TINY = {"sigmas": [0.5], "steps": [2, 10], "epochs": [1], "epsilon_grid": {"start": 0.0, "stop": 4.0, "num": 5}}


@pytest.fixture(scope="module")
def grid():
    return b_vs_p.b_vs_p_grid(TINY, {"accuracy": 0.01, "max_grid_points": 40000})


def test_b_vs_p_on_a_tiny_real_grid(grid):
    assert len(grid) == 2 * 5 and set(grid["steps"]) == {2, 10}
    assert (grid["delta_B_lower"] <= grid["delta_B_upper"]).all() and (grid["delta_P_lower"] <= grid["delta_P_upper"]).all()
    floor = b_vs_p.DELTA_FLOOR  # plus the engine's charged tails, ~1e-16 here: no row lies between
    np.testing.assert_array_equal(grid["classification"], b_vs_p.classify(
        grid["delta_B_lower"], grid["delta_B_upper"], grid["delta_P_lower"], grid["delta_P_upper"], floor))
    at = grid.set_index(["steps", "epsilon"])["classification"]
    # T = 2: P is certifiably better at eps = 0 (delta_B(0) ~ 0.60 > delta_P(0) <= 0.50) and B at eps = 4
    assert at[(2, 0.0)] == b_vs_p.P_BETTER and at[(2, 4.0)] == b_vs_p.B_BETTER
    assert len(grid.attrs["certified"]) == 2
    # the P-better point checked independently by Monte Carlo: delta_B(0) (max over directions) is above P's upper bound
    mean = max(bb.estimate_delta(bb.sample_naive_losses(0.5, 2, 100_000, d, seed=7), [0.0]).mean()[0]
               - Z * bb.estimate_delta(bb.sample_naive_losses(0.5, 2, 100_000, d, seed=7), [0.0]).standard_error()[0]
               for d in ("remove", "add"))
    p_upper = grid.set_index(["steps", "epsilon"]).loc[(2, 0.0), "delta_P_upper"]
    assert mean > p_upper


def test_b_vs_p_finding_markdown_and_map(tmp_path, grid):
    write_table(grid, tmp_path / "chua25_b_vs_p" / "grid.parquet", {})
    row = check_claims(CLAIMS, tmp_path, ["chua25_b_vs_p"]).set_index("claim_id").loc["chua25_b_vs_p_p_better"]
    assert row["verdict"] == "finding"
    assert row["our_value"] == int((grid["classification"] == b_vs_p.P_BETTER).sum()) > 0
    assert "P certifiably better" in row["note"]
    markdown = b_vs_p.b_vs_p_markdown(grid)
    assert "| 0.5 | 2 | 1 |" in markdown and f"{len(grid)} points" in markdown
    pdf, png = tmp_path / "map.pdf", tmp_path / "map.png"
    b_vs_p.plot_b_vs_p(grid, {"certified": grid.attrs["certified"]}, pdf, png)
    assert pdf.stat().st_size > 1000 and png.stat().st_size > 1000


def test_fig2_figure_with_certified_curves(tmp_path, bounds, monte_carlo):
    summary, _ = _props_inputs(bounds, monte_carlo)
    summary = summary.assign(method=summary["method"].replace({"MC naive": "MC order statistics"}))
    pdf, png = tmp_path / "fig2.pdf", tmp_path / "fig2.png"
    fig2.plot(summary, {"settings": SETTINGS, "certified": bounds.attrs["certified"]}, pdf, png)
    assert pdf.stat().st_size > 1000 and png.stat().st_size > 1000


def test_epochs_figure_with_certified_curves(tmp_path):
    """One panel, k = 2: certified rows for k > 1 (bound (6) has none), drawn with one shared legend."""
    setting = [{"panel": "sigma0.8", "sigma": 0.8, "steps": 10, "epochs": 2}]
    bounds = chua25_privacy.bounds_table(epochs.CURVES, setting, EPS, SETTINGS)
    assert (bounds.loc[bounds["method"] == chua25_privacy.CERTIFIED_METHOD, "epochs"] == 2).all()
    assert "bound (6)" not in set(bounds["method"])
    rows = []
    for seed, direction in enumerate(("remove", "add", "max")):
        estimate = bb.estimate_delta(bb.sample_naive_losses(0.8, 10, 2000, "add" if direction == "add" else "remove",
                                                            epochs=2, seed=seed), EPS)
        rows.append(pd.DataFrame({"panel": "sigma0.8", "series": "naive_k2", "method": "naive", "direction": direction,
                                  "sigma": 0.8, "steps": 10, "epochs": 2, "epsilon": EPS, "count": 2000,
                                  "samples": 2000, "n_orders": 0, "orders": "", "importance_epsilon": np.nan,
                                  "log_weight": 0.0, "sampling_seconds": 0.0, "sampling_cpu_seconds": 0.0,
                                  "error_prob": 1e-3, "mean": estimate.mean(), "standard_error": estimate.standard_error(),
                                  "ucb": estimate.upper_confidence_bound(1e-3)}))
    summary = chua25_privacy.summary_table(pd.concat(rows, ignore_index=True), bounds)
    pdf, png = tmp_path / "epochs.pdf", tmp_path / "epochs.png"
    epochs.plot(summary, {"settings": SETTINGS, "certified": bounds.attrs["certified"]}, pdf, png)
    assert pdf.stat().st_size > 1000 and png.stat().st_size > 1000
