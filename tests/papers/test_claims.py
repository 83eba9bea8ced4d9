"""The claims machinery: tolerances read from the stated digits, verdicts, and missing results."""

import math

import pandas as pd
import pytest

from dpsampling.io import write_table
from dpsampling.papers.chua24.curves import sign_changes
from dpsampling.papers.registry import CLAIMS
from dpsampling.pipeline.claims import check_claims, claims_markdown
from dpsampling.pipeline.claims.base import rounding_tolerance, verdict


@pytest.mark.parametrize("text, tolerance", [("1.96", 0.005), ("3", 0.0), ("0.01", 0.0), ("7.5e-5", 5e-7),
                                             ("10.994", 5e-4), ("9.873e-9", 5e-13), ("0.004", 0.0)])
def test_rounding_tolerance_is_half_a_unit_of_the_last_stated_digit(text, tolerance):
    assert rounding_tolerance(text) == pytest.approx(tolerance, rel=1e-12, abs=0)


@pytest.mark.parametrize("relation, paper, ours, tolerance, expected", [
    ("<", 1.96, 1.953, 0.005, True), ("<", 1.96, 1.97, 0.005, False), (">=", 0.226, 0.2255, 0.0005, True),
    (">=", 0.226, 0.2254, 0.0005, False), ("~", 10.997, 10.9972, 0.0005, True), ("~", 10.997, 10.998, 0.0005, False),
])
def test_verdicts(relation, paper, ours, tolerance, expected):
    assert verdict(relation, paper, ours, tolerance) is expected


def test_claim_ids_are_unique_and_every_chua24_experiment_has_claims():
    ids = [c.claim_id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    experiments = {c.experiment for c in CLAIMS}
    assert {f"chua24_fig{i}" for i in range(1, 8)} | {"chua24_thm41"} <= experiments


def test_missing_results_are_not_run_with_a_reason(tmp_path):
    table = check_claims(CLAIMS, tmp_path)
    assert (table["verdict"] == "not_run").all()
    assert table["note"].str.contains("not found").all()
    assert table["our_value"].isna().all()


def test_a_claim_checked_against_a_hand_made_table(tmp_path):
    rows = [dict(sigma=0.5, steps=10000, delta=1e-6, sampler="poisson", method="pld", bound="upper", direction="max",
                 epsilon=value) for value in [1.97]]
    write_table(pd.DataFrame(rows), tmp_path / "chua24_fig1" / "bounds.parquet", {"experiment": "chua24_fig1", "spec": {"delta": 1e-6, "steps": 10000}})
    table = check_claims(CLAIMS, tmp_path, experiments={"chua24_fig1"}).set_index("claim_id")
    assert table.loc["chua24_fig1_pld_sigma0.5", "verdict"] == "not_reproduced"
    assert table.loc["chua24_fig1_pld_sigma0.5", "our_value"] == 1.97
    assert table.loc["chua24_fig1_rdp_sigma0.5", "verdict"] == "not_run"
    assert "| chua24_fig1_pld_sigma0.5 |" in claims_markdown(table.reset_index())


def test_sign_changes():
    eps = [0, 1, 2, 3, 4]
    assert sign_changes(eps, [-1, -1, 1, 1, 1]) == [1.5]
    assert sign_changes(eps, [-1, 1, -1, 1, 1]) == [0.5, 1.5, 2.5]
    assert sign_changes(eps, [1, 1, 1, 1, 1]) == []
    assert not math.isnan(sign_changes(eps, [-1, 0, 0, 0, 1])[0])


def test_an_inequality_that_holds_only_because_ours_is_far_smaller_is_not_reproduced(tmp_path):
    rows = [dict(sigma=0.8, steps=1000, epsilon=1.0, sampler="poisson", method="rdp", bound="upper", direction="max",
                 delta=value) for value in [3.0e-7]]
    write_table(pd.DataFrame(rows), tmp_path / "chua24_fig6" / "bounds.parquet", {"experiment": "chua24_fig6", "spec": {"sigma": 0.8, "steps": 1000}})
    table = check_claims(CLAIMS, tmp_path, experiments={"chua24_fig6"}).set_index("claim_id")
    assert table.loc["chua24_fig6_rdp_eps1", "verdict"] == "not_reproduced"
    assert "the stated inequality holds" in table.loc["chua24_fig6_rdp_eps1", "note"]


def _overlaid_fig4(overlay: dict) -> tuple[dict, dict]:
    """chua24 Fig. 4's spec from config/config.yaml with ``overlay`` on top (a config overlay), at
    two claimed sigmas and a coarse accuracy so that the test stays fast."""
    import yaml

    config = yaml.safe_load(open("config/config.yaml"))
    spec = dict(config["chua24"]["fig4"], **overlay, sigmas=[0.4, 1.3], compare_steps=[])
    settings = {"pld": {"relative_accuracy": 0.05}}
    return spec, settings


@pytest.mark.parametrize("overlay, off", [({"delta": 1.0e-5}, True), ({}, False)])
def test_claims_run_off_the_papers_setting_are_reported_as_such_never_as_not_reproduced(tmp_path, overlay, off):
    """issue 24.7: with chua24.fig4.delta = 1e-5 in an overlay, every Fig. 4 claim says it ran at
    delta = 1e-5 where the paper has 1e-6 (verdict not_at_paper_setting), and the figure's footer
    names the departure; at the paper's delta none does."""
    from dpsampling.papers.chua24.plots import setting_text
    from dpsampling.papers.registry import load_experiment
    from dpsampling.pipeline.claims.base import NOT_AT_SETTING

    module = load_experiment("chua24_fig4")
    spec, settings = _overlaid_fig4(overlay)
    frame = module.compute(spec, settings)
    parameters = {"experiment": "chua24_fig4", "kind": module.KIND, "spec": spec, **settings}
    write_table(frame, tmp_path / "chua24_fig4" / "bounds.parquet", parameters)
    table = check_claims(CLAIMS, tmp_path, ["chua24_fig4"])
    footer = setting_text(parameters, module.PAPER)
    if off:
        assert (table["verdict"] == NOT_AT_SETTING).all(), table[["claim_id", "verdict", "note"]]
        assert table["note"].str.contains("spec.delta = 1e-05").all() and table["note"].str.contains("1e-06").all()
        assert table.loc[table["claim_id"] == "chua24_fig4_pld_sigma0.4", "our_value"].notna().all()
        assert "DEPARTS from the paper: delta = 1e-05 (the paper's 1e-06)" in footer
    else:
        assert not (table["verdict"] == NOT_AT_SETTING).any()
        assert set(table["verdict"]) <= {"reproduced", "not_reproduced"}
        assert "the paper's setting" in footer and "DEPARTS" not in footer
