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
    write_table(pd.DataFrame(rows), tmp_path / "chua24_fig1" / "bounds.parquet", {"experiment": "chua24_fig1"})
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
    write_table(pd.DataFrame(rows), tmp_path / "chua24_fig6" / "bounds.parquet", {"experiment": "chua24_fig6"})
    table = check_claims(CLAIMS, tmp_path, experiments={"chua24_fig6"}).set_index("claim_id")
    assert table.loc["chua24_fig6_rdp_eps1", "verdict"] == "not_reproduced"
    assert "the stated inequality holds" in table.loc["chua24_fig6_rdp_eps1", "note"]
