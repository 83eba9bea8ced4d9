"""lebeda24 in the workflow: a tiny real run (metadata, figures, claims, no-op rerun), config errors,
and the claim readers that are not plain lookups."""

import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dpsampling.io import read_metadata, read_table
from dpsampling.papers.lebeda24.addremove import sample_size
from dpsampling.papers.lebeda24.sigma_vs_rate import hinge_sigma
from dpsampling.papers.registry import CLAIMS
from dpsampling.pipeline.claims import check_claims
from dpsampling.pipeline.config import ConfigError, check_config

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = ROOT / "workflow/schemas/config.schema.yaml"
TINY = ".test/config/config.yaml"
EXPERIMENTS = ["lebeda24_addremove", "lebeda24_pld_cdf", "lebeda24_sigma_vs_rate", "lebeda24_table1",
               "lebeda24_substitution", "lebeda24_subst_gaussian", "lebeda24_rr", "lebeda24_conj12"]


def _snakemake(directory: Path, *args):
    return subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", *args], cwd=directory,
                          capture_output=True, text=True)


def _copy_workflow(target: Path) -> Path:
    for name in ("Snakefile", "workflow", "scripts", "config", ".test"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target / name)
    return target


@pytest.fixture(scope="module")
def tiny(tiny_full_run):
    """The shared run of the whole DAG on the tiny config (tests/conftest.py), which holds lebeda24's."""
    return tiny_full_run


@pytest.mark.workflow
def test_tiny_run_writes_every_result_and_figure(tiny):
    config = yaml.safe_load((ROOT / TINY).read_text())["lebeda24"]
    shard = tiny / "results/lebeda24_addremove/samples/wor/add/k2/shard-1.parquet"
    document = read_metadata(shard)
    assert document["parameters"]["shard"] == 1 and document["parameters"]["samples"] == 10_000
    assert document["parameters"]["seed_spawn_key"] == [1, 1, 2, 1] and document["versions"]["numpy"]
    mc, meta = read_table(tiny / "results/lebeda24_addremove/delta_mc.parquet")
    assert meta["parameters"]["spec"]["samples"] == config["addremove"]["samples"]
    assert (mc["n_samples"] == 20_000).all() and (mc["shards"] == 2).all()
    assert (np.abs(mc["delta_mc"] - mc["delta_exact"]) <= mc["alpha"]).all()  # k = 2 is exact too
    table = (tiny / "results/lebeda24_table1/table1.md").read_text()
    assert "| 1e-06 |" in table and "eps WOR (paper)" in table
    assert "11/48" in (tiny / "results/lebeda24_rr/rr.md").read_text()
    for experiment in EXPERIMENTS:
        for path in (tiny / "results" / experiment).glob("*.parquet"):
            assert read_metadata(path)["parameters"]["experiment"] == experiment
    for figure in ("addremove", "pld_cdf", "sigma_vs_rate", "substitution", "subst_gaussian", "conj12"):
        for suffix in ("pdf", "png"):
            assert (tiny / "figures" / f"lebeda24_{figure}.{suffix}").stat().st_size > 1000


@pytest.mark.workflow
def test_tiny_run_gives_every_lebeda24_claim_a_verdict_or_a_reason(tiny):
    table = check_claims(CLAIMS, tiny / "results", EXPERIMENTS)
    assert list(table["claim_id"]) == [c.claim_id for c in CLAIMS if c.experiment in EXPERIMENTS]
    assert set(table["verdict"]) <= {"reproduced", "not_reproduced", "not_run", "not_at_paper_setting"}
    assert (table.loc[table["verdict"] == "not_run", "note"].str.len() > 0).all()
    verdicts = table.set_index("claim_id")["verdict"]
    # the tiny config runs Table 1 and Fig. 2 at 100 steps (the paper: 10,000): never judged there (issue 24.7)
    off = table[table["experiment"].isin(["lebeda24_table1", "lebeda24_sigma_vs_rate"])]
    assert (off["verdict"] == "not_at_paper_setting").all() and off["note"].str.contains("spec.steps = 100[,;]").all()
    for claim in ("lebeda24_rr_h43_pq", "lebeda24_rr_h2_qp", "lebeda24_substitution_each_largest",
                  "lebeda24_addremove_k2_crossing_exact_wor", "lebeda24_pld_cdf_atom"):
        assert verdicts[claim] == "reproduced"
    assert verdicts["lebeda24_addremove_sample_size"] == "not_reproduced"


@pytest.mark.workflow
def test_rerun_is_a_no_op(tiny):
    result = _snakemake(tiny, "lebeda24", "-n", "--configfile", TINY)
    assert "Nothing to be done" in result.stdout + result.stderr


@pytest.mark.workflow
def test_bad_config_stops_before_any_job(tmp_path):
    directory = _copy_workflow(tmp_path)
    (directory / "bad.yaml").write_text("lebeda24: {addremove: {sampling_rate: 0}}\n")
    result = _snakemake(directory, "lebeda24", "--configfile", "bad.yaml")
    assert result.returncode != 0
    assert "config lebeda24.addremove.sampling_rate: must be > 0; got 0" in result.stderr
    assert not (directory / "results").exists()


@pytest.mark.parametrize("bad, message", [
    ({"addremove": {"sampling_rate": 1.5}}, "config lebeda24.addremove.sampling_rate: must be <= 1; got 1.5"),
    ({"addremove": {"laplace_scale": {"wor": 0}}}, "config lebeda24.addremove.laplace_scale.wor: must be > 0; got 0"),
    ({"addremove": {"compositions": [0]}}, "config lebeda24.addremove.compositions[0]: must be >= 1; got 0"),
    ({"addremove": {"samplers": ["shuffle"]}}, "config lebeda24.addremove.samplers[0]: must be one of poisson, wor; "
                                               "got 'shuffle'"),
    ({"table1": {"sampling_rate": 0}}, "config lebeda24.table1.sampling_rate: must be > 0; got 0"),
    ({"sigma_vs_rate": {"rates": [0.01, 2.0]}}, "config lebeda24.sigma_vs_rate.rates[1]: must be <= 1; got 2.0"),
    ({"subst_gaussian": {"sigma": -1}}, "config lebeda24.subst_gaussian.sigma: must be > 0; got -1"),
    ({"rr": {"runs": 0}}, "config lebeda24.rr.runs: must be >= 1; got 0"),
    ({"conj12": {"relation": "add"}}, "config lebeda24.conj12: unknown key 'relation'"),
])
def test_bad_lebeda24_config_is_one_line(bad, message):
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    for block, values in bad.items():
        for key, value in values.items():
            if isinstance(value, dict):
                config["lebeda24"][block][key].update(value)
            else:
                config["lebeda24"][block][key] = value
    with pytest.raises(ConfigError) as error:
        check_config(config, SCHEMA)
    assert message in str(error.value)


def test_paper_config_uses_the_papers_sample_size():
    config = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    check_config(config, SCHEMA)
    assert config["lebeda24"]["addremove"]["samples"] == 3_342_306
    assert config["lebeda24"]["addremove"]["epsilon_grid"]["num"] == 40


def test_stated_sample_size_against_its_formula():
    frame = sample_size({"samples": 400_000, "beta": 0.01, "epsilon_grid": {"num": 40}}).set_index("case")
    assert frame.loc["formula at the paper's alpha, beta, |E|", "n_samples"] == math.ceil(math.log(8000) / 2e-6)
    assert frame.loc["beta = 0.1 (10x the stated)", "n_samples"] == 3_342_306
    assert frame.loc["|E| = 4 (1/10 of the stated)", "n_samples"] == 3_342_306


def test_hinge_is_where_the_log_log_slope_is_one_half():
    # sigma(q) = sqrt(1 + (100 q)^2): slope (100q)^2 / (1 + (100q)^2) = 1/2 at q = 0.01, sigma = sqrt(2)
    rates = np.logspace(-4, 0, 161)
    rows = pd.DataFrame({"sigma": np.sqrt(1 + (100 * rates) ** 2)}, index=rates)
    assert hinge_sigma(rows) == pytest.approx(math.sqrt(2), rel=1e-3)
    flat = pd.DataFrame({"sigma": np.ones(5)}, index=np.logspace(-4, 0, 5))
    assert math.isnan(hinge_sigma(flat))
