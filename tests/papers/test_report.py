"""results/REPORT.md and the HTML report's captions, from the files on disk (no Snakemake run)."""

from pathlib import Path

import pandas as pd
import pytest
import yaml
from docutils.core import publish_parts

from dpsampling.cli.main import main
from dpsampling.io import write_table
from dpsampling.papers.chua24 import curves as chua24
from dpsampling.pipeline.report import ExperimentSummary, benchmark_totals, experiment_targets, flatten, report_markdown

ROOT = Path(__file__).resolve().parents[2]
TINY = yaml.safe_load((ROOT / ".test/config/config.yaml").read_text())
HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


SPEC, SETTINGS = TINY["chua24"]["fig2"], {"pld": TINY["pld"]}


@pytest.fixture(scope="module")
def fig2_bounds():
    return chua24.delta_vs_epsilon(SPEC, SETTINGS)


@pytest.fixture()
def partial_run(tmp_path, fig2_bounds):
    """chua24_fig2 computed for real at the tiny config (two benchmark files); nothing else."""
    spec, settings = SPEC, SETTINGS
    write_table(fig2_bounds, tmp_path / "results/chua24_fig2/bounds.parquet",
                {"experiment": "chua24_fig2", "kind": "delta_vs_epsilon", "spec": spec, **settings})
    (tmp_path / "figures").mkdir()
    for suffix in ("png", "pdf"):
        (tmp_path / f"figures/chua24_fig2.{suffix}").write_bytes(b"figure")
    bench = tmp_path / "benchmarks/chua24_fig2"
    bench.mkdir(parents=True)
    (bench / "compute_bounds.tsv").write_text(HEADER + "10.5\t0:00:10\t200.0\t0\t0\t0\t0\t0\t50\t6.25\n")
    (bench / "plot.tsv").write_text(HEADER + "2.0\t0:00:02\t300.0\t0\t0\t0\t0\t0\t50\t1.75\n")
    return tmp_path


TARGETS = {"chua24_fig2": ["results/chua24_fig2/bounds.parquet", "figures/chua24_fig2.pdf", "figures/chua24_fig2.png"],
           "chua24_fig3": ["results/chua24_fig3/bounds.parquet", "figures/chua24_fig3.png"]}
CLAIMS = pd.DataFrame([
    {"claim_id": "a_ok", "experiment": "chua24_fig2", "quantity": "q1", "relation": "<", "paper_value": "1.5",
     "our_value": 1.2, "tolerance": 0.05, "verdict": "reproduced", "note": ""},
    {"claim_id": "b_bad", "experiment": "chua24_fig2", "quantity": "q2", "relation": ">", "paper_value": "3",
     "our_value": 2.0, "tolerance": 0.0, "verdict": "not_reproduced", "note": "the paper's T is another"},
    {"claim_id": "c_missing", "experiment": "chua24_fig3", "quantity": "q3", "relation": "~", "paper_value": "7",
     "our_value": float("nan"), "tolerance": 0.0, "verdict": "not_run", "note": "not found"},
])


def test_benchmark_totals_sum_every_job(partial_run):
    totals = benchmark_totals(partial_run / "benchmarks", "chua24_fig2")
    assert totals["jobs"] == 2
    assert totals["wall_s"] == pytest.approx(12.5) and totals["cpu_s"] == pytest.approx(8.0)
    assert totals["max_rss_mb"] == 300.0
    assert benchmark_totals(partial_run / "benchmarks", "chua24_fig3")["jobs"] == 0


def test_a_damaged_benchmark_file_is_named(partial_run):
    bad = partial_run / "benchmarks/chua24_fig2/broken.tsv"
    bad.write_text("no\tseconds\n1\t2\n")
    with pytest.raises(ValueError, match="broken.tsv is not a Snakemake benchmark file"):
        benchmark_totals(partial_run / "benchmarks", "chua24_fig2")


def test_report_of_a_partial_run(partial_run):
    text = report_markdown(partial_run / "results/REPORT.md", partial_run, TARGETS, CLAIMS, ["config/x.yaml"])
    rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines() if line.startswith("| chua24_")}
    assert "| complete | 1/1/0 | 2 | 0:00:12 | 8 | 300 | [chua24_fig2.png](../figures/chua24_fig2.png) |" in rows["chua24_fig2"]
    assert "| not run | 0/0/1 | 0 |" in rows["chua24_fig3"]
    assert "2 experiments: 1 complete, 0 partial, 1 not run." in text
    assert "3 claims: 1 reproduced, 1 not_reproduced, 1 not_run." in text
    # the discrepancy with its note, and the explanations linked relative to results/
    assert "- `b_bad` (q2): paper > 3, ours 2. the paper's T is another" in text
    assert "[REPRODUCTION.md](../docs/REPRODUCTION.md)" in text
    # parameters as recorded in the file, not as configured
    assert f"| `spec.sigma` | {TINY['chua24']['fig2']['sigma']} |" in text
    assert "| `pld.relative_accuracy` | 0.2 |" in text
    assert "Versions: python " in text and "dp-accounting " in text
    assert "Missing: `results/chua24_fig3/bounds.parquet`, `figures/chua24_fig3.png`." in text
    assert "(config: `config/x.yaml`)" in text


def test_a_damaged_result_file_is_named(partial_run):
    path = partial_run / "results/chua24_fig2/bounds.parquet"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match=r"chua24_fig2/bounds\.parquet is not a readable Parquet file"):
        report_markdown(partial_run / "results/REPORT.md", partial_run, TARGETS, CLAIMS)


def test_caption_text_is_valid_restructuredtext(partial_run):
    summary = ExperimentSummary("chua24_fig2", ["results/chua24_fig2/bounds.parquet"], str(partial_run), _claims=CLAIMS)
    html = publish_parts(str(summary), writer="html", settings_overrides={"halt_level": 2})["body"]
    assert "b_bad" in html and "not_reproduced" in html and "spec.epsilon_grid.num" in html
    assert repr(summary) == "ExperimentSummary('chua24_fig2')"  # what Snakemake shows among a job's params
    assert summary.status() == "complete"
    assert ExperimentSummary("chua24_fig3", TARGETS["chua24_fig3"], str(partial_run)).status() == "not run"


def test_experiment_targets_are_rules_named_like_experiments():
    class Rule:
        def __init__(self, name, input, output=()):
            self.name, self.input, self.output = name, input, list(output)

    rules = [Rule("chua24_fig2", ["b", "a"]), Rule("chua24", ["x"]), Rule("all", ["y"]),
             Rule("compute_chua24_bounds", [], ["z"]), Rule("chua25_fig1", ["c"]), Rule("chua24_fig9", [], ["out"])]
    assert experiment_targets(rules) == {"chua24_fig2": ["a", "b"], "chua25_fig1": ["c"]}


def test_flatten_names_nested_parameters():
    assert flatten({"spec": {"grid": {"num": 3}, "sigmas": [0.5, 1]}, "seed": 1}) == \
        {"spec.grid.num": "3", "spec.sigmas": "[0.5, 1]", "seed": "1"}


def test_the_command_reports_whatever_has_run(partial_run, capsys):
    """dpsampling report on a folder where only chua24_fig2 ran: claims checked on the spot, the
    experiments of the registry and of config/config.yaml that did not run listed as such."""
    (partial_run / "config").mkdir()
    (partial_run / "config/config.yaml").write_text(yaml.safe_dump(TINY))
    assert main(["report", "--directory", str(partial_run)]) == 0
    assert "REPORT.md" in capsys.readouterr().out
    text = (partial_run / "results/REPORT.md").read_text()
    assert "| chua24_fig2 | complete | 2/0/0 |" in text  # the two fig2 claims (one crossing each bound)
    assert "| chua25_fig1 | not run |" in text and "| chua24_thm41 | not run |" in text


def test_every_experiment_has_a_reading_and_the_agreement_follows_the_verdicts():
    """The report's per-figure reading (papers/messages.py): one (paper, ours) pair per registered
    experiment, and 'says what the paper says' only when no claim of the figure failed."""
    from dpsampling.papers.messages import MESSAGES
    from dpsampling.papers.registry import EXPERIMENTS
    from dpsampling.pipeline.report import agreement

    assert set(MESSAGES) == set(EXPERIMENTS)
    assert all(paper and ours for paper, ours in MESSAGES.values())
    assert agreement(["reproduced", "reproduced"]).startswith("says what the paper says (")
    assert agreement(["reproduced", "not_reproduced"]).startswith("says what the paper says in part")
    assert agreement(["not_reproduced"]).startswith("does not say")
    assert agreement(["reproduced", "undecided_at_this_scale"]).startswith("says what the paper says where decided")
    assert agreement(["reproduced", "not_at_paper_setting"]).startswith("run off the paper's setting")
    assert agreement([]) == "no claims checked"
