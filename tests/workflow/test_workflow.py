"""The Snakemake workflow: lint, a dry run of the whole DAG, config validation, a tiny real run."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from snakemake.utils import update_config
from workflow_runs import ROOT, copy_workflow

from dpsampling.io import read_table
from dpsampling.papers.registry import CLAIMS
from dpsampling.pipeline.claims import CLAIM_COLUMNS
from dpsampling.pipeline.config import ConfigError, check_config

pytestmark = pytest.mark.workflow


def _snakemake(directory: Path, *args, check=False):
    return subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", *args], cwd=directory,
                          capture_output=True, text=True, check=check)


@pytest.fixture(scope="module")
def tiny_run(tiny_full_run):
    """The shared run of the default target on the tiny test config (tests/conftest.py)."""
    return tiny_full_run


def test_lint_is_clean():
    result = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Lints for" not in result.stdout + result.stderr


def test_dry_run_of_the_whole_dag_schedules_every_experiment(tmp_path):
    directory = copy_workflow(tmp_path)
    result = _snakemake(directory, "-n")
    assert result.returncode == 0, result.stderr
    for figure in ("fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "fig7", "thm41"):
        assert f"experiment=chua24_{figure}" in result.stdout
    for panel in ("nonprivate", "dp_b1024", "dp_b8192"):
        assert f"panel={panel}" in result.stdout
    assert "rule claims:" in result.stdout


BAD_CONFIGS = [
    ("chua24: {fig1: {steps: 0}}", "config chua24.fig1.steps: must be >= 1; got 0"),
    ("chua24: {fig3: {sigma: -0.5}}", "config chua24.fig3.sigma: must be > 0; got -0.5"),
    ("chua24: {fig1: {delta: 1.5}}", "config chua24.fig1.delta: must be < 1; got 1.5"),
    ("chua24: {fig2: {samplers: [uniform]}}", "config chua24.fig2.samplers[0]: must be one of deterministic, shuffle, poisson, wor; got 'uniform'"),
    ("pld: {relative_acuracy: 0.01}", "config pld: unknown key 'relative_acuracy'; allowed keys: relative_accuracy"),
    ("sede: 3", "config (top level): unknown key 'sede'"),
    ("seed: three", "config seed: must be of type integer; got 'three'"),
    ("shuffle: {c_grid: {step: 0.01}}", "config (top level): unknown key 'shuffle'"),
    ("chua25: {fig1: {clip_norm: 0}}", "config chua25.fig1.clip_norm: must be > 0; got 0"),
    ("chua25: {fig1: {data: {source: criteo_pctr}}}", "config chua25.fig1.data.path: must be of type string; got None"),
    ("chua25: {fig1: {optimizer: rmsprop}}", "config chua25.fig1.optimizer: must be one of sgd, adam; got 'rmsprop'"),
    ("chua25: {fig1: {model: forest}}", "config chua25.fig1.model: must be one of logistic, mlp; got 'forest'"),
]
SNAKEMAKE_CASES = BAD_CONFIGS[::4]  # each costs a Snakemake start (~3 s); its check is check_config, as below


@pytest.mark.parametrize("bad, message", BAD_CONFIGS)
def test_bad_config_is_refused_by_the_snakefiles_check(bad, message):
    """The Snakefile's own check (check_config on config/config.yaml updated with the --configfile,
    as Snakemake merges them), in this process."""
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    update_config(config, yaml.safe_load(bad))
    with pytest.raises(ConfigError) as error:
        check_config(config, ROOT / "workflow/schemas/config.schema.yaml")
    assert message in str(error.value)


@pytest.mark.parametrize("bad, message", SNAKEMAKE_CASES)
def test_bad_config_stops_before_any_job(tmp_path, bad, message):
    directory = copy_workflow(tmp_path)
    (directory / "bad.yaml").write_text(bad + "\n")
    result = _snakemake(directory, "--configfile", "bad.yaml")
    assert result.returncode != 0
    assert message in result.stderr
    assert not (directory / "results").exists()


def test_tiny_run_writes_every_result_with_metadata(tiny_run):
    for figure in ("fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "fig7"):
        frame, document = read_table(tiny_run / "results" / f"chua24_{figure}" / "bounds.parquet")
        assert not frame.empty
        assert document["parameters"]["experiment"] == f"chua24_{figure}"
        assert document["versions"]["dp-accounting"]
        assert set(frame["direction"]) == {"max", "remove", "add"}
        for suffix in ("pdf", "png"):
            assert (tiny_run / "figures" / f"chua24_{figure}.{suffix}").stat().st_size > 1000
    theorem, _ = read_table(tiny_run / "results" / "chua24_thm41" / "bounds.parquet")
    assert theorem["holds"].all()


def test_tiny_run_trains_every_utility_point(tiny_run):
    runs, document = read_table(tiny_run / "results" / "chua25_fig1" / "auc.parquet")
    assert document["parameters"]["panels"] == ["nonprivate", "dp_b512"]
    # 2 non-private batch sizes + 2 sigmas, 3 generators, 1 learning rate, 2 seeds
    assert len(runs) == (2 + 2) * 3 * 1 * 2 and runs["selected"].all()
    assert runs["test_auc"].between(0, 1).all()
    assert (tiny_run / "figures" / "chua25_fig1.png").stat().st_size > 1000


def test_tiny_run_claims_table_lists_every_claim(tiny_run):
    table = pd.read_csv(tiny_run / "results" / "claims.csv")
    assert list(table.columns) == CLAIM_COLUMNS
    assert list(table["claim_id"]) == [c.claim_id for c in CLAIMS]
    verdicts = table.set_index("claim_id")["verdict"]
    # the tiny config runs randomized response and Thm 4.1 as the papers state them: exact fractions
    # and a property over the grid, which must reproduce
    for claim in ("lebeda24_rr_h43_pq", "lebeda24_rr_h43_qp", "lebeda24_rr_h2_pq", "lebeda24_rr_h2_qp", "chua24_thm41"):
        assert verdicts[claim] == "reproduced", claim
    # it leaves most claimed parameters out of its grids: those are not_run, each with a reason
    not_run = table["verdict"] == "not_run"
    assert 0 < not_run.sum() < len(table) and (table.loc[not_run, "note"].str.len() > 0).all()
    # a judged claim carries our value, or a note saying why there is none (e.g. Fig. 4's T, which
    # the numbers may fit at neither or at both T values evaluated)
    judged = table.loc[~not_run]
    assert (judged["our_value"].notna() | (judged["note"].fillna("").str.len() > 0)).all()
    assert (tiny_run / "results" / "claims.md").read_text().startswith("# Claims")


def test_rerun_is_a_no_op(tiny_run):
    result = _snakemake(tiny_run, "chua24", "chua25_fig1", "claims", "-n", "--configfile", ".test/config/config.yaml")
    assert "Nothing to be done" in result.stdout + result.stderr
