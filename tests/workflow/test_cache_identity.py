"""Cache identity: cached results (Monte Carlo shards, training runs) are keyed by their parameters
and their algorithm's version, never by code paths or file contents; cheap rules follow the code
their scripts import (dpsampling.versions, dpsampling.pipeline.code_inputs, profiles/default)."""

import os
import re
import shutil
from pathlib import Path

import pytest
from workflow_runs import ROOT, TINY, copy_workflow, jobs_in, snakemake

from dpsampling.io import read_metadata

pytestmark = pytest.mark.workflow
EXPENSIVE_RULES = {"sample_chua25_losses", "sample_lebeda24_losses", "sample_bandmf26_bands", "train_chua25_fig1"}


def test_every_cheap_rule_takes_its_code_as_input():
    """Every rule that runs a script, but the expensive ones (identified by parameters and algorithm
    versions; each runs the script named after it), lists its import closure as an input
    (``code=code_of...``): else editing the code it runs would not rerun it."""
    text = "".join(path.read_text() for path in sorted((ROOT / "workflow/rules").glob("*.smk")))
    scripts = {}
    for block in re.split(r"^(?=rule\b)", text, flags=re.MULTILINE):
        script = re.search(r"^    script:\n\s+\"[./]*/scripts/(\w+)\.py\"", block, re.MULTILINE)
        if block.startswith("rule") and script:
            scripts[script.group(1)] = bool(re.search(r"^        code=code_of", block, re.MULTILINE))
    assert len(scripts) > 20 and EXPENSIVE_RULES <= set(scripts)
    assert sorted(name for name, has_code in scripts.items() if not has_code and name not in EXPENSIVE_RULES) == []


def _package_copy(directory: Path, edit=None) -> dict:
    """Copy the package under ``directory``/src, apply ``edit(path, text) -> text`` to every module,
    and return the environment that imports that copy instead of the installed one."""
    source = Path(__import__("dpsampling").__file__).parent
    target = directory / "src" / "dpsampling"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    for path in target.rglob("*.py"):
        if edit is not None:
            path.write_text(edit(path, path.read_text()))
    return {**os.environ, "PYTHONPATH": str(directory / "src")}


def _dry_run(directory: Path, env=None) -> list[tuple[str, str]]:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "2", "--configfile", TINY],
                            cwd=directory, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return jobs_in(result.stdout)


def _copy_results(source: Path, target: Path, metadata: bool) -> None:
    for name in ("results", "figures", "logs", "benchmarks") + ((".snakemake",) if metadata else ()):
        if (source / name).exists():
            shutil.copytree(source / name, target / name, symlinks=True,
                            ignore=shutil.ignore_patterns("locks", "local-cluster", "log"))


def test_results_copied_into_another_checkout_plan_no_sampling(tiny_full_run, tmp_path):
    """A checkout at another path, with the results copied in (file times kept, no Snakemake
    metadata): nothing expensive is planned."""
    second = copy_workflow(tmp_path / "elsewhere" / "checkout")
    _copy_results(tiny_full_run, second, metadata=False)
    planned = {rule for rule, _ in _dry_run(second)}
    assert not planned & EXPENSIVE_RULES, planned


def test_a_comment_in_every_library_file_reruns_no_sampling_but_the_cheap_rules(tiny_full_run, tmp_path):
    """A comment appended to every module of the package (and an install at another path): no
    sampling or training job; the cheap rules downstream do rerun (their code inputs changed)."""
    second = copy_workflow(tmp_path / "checkout")
    _copy_results(tiny_full_run, second, metadata=True)
    env = _package_copy(second, edit=lambda path, text: text + "\n# a comment\n")
    planned = {rule for rule, _ in _dry_run(second, env)}
    assert not planned & EXPENSIVE_RULES, planned
    assert {"merge_chua25_delta", "compute_chua24_bounds", "claims"} <= planned


def test_bumping_one_kernel_version_plans_exactly_its_shards(tiny_full_run, tmp_path):
    """ballsbins.naive version 1 -> 2: every naive shard and nothing else expensive is planned."""
    second = copy_workflow(tmp_path / "checkout")
    _copy_results(tiny_full_run, second, metadata=True)

    def bump(path, text):
        if path.name != "versions.py":
            return text
        bumped = re.sub(r'("ballsbins\.naive": AlgorithmVersion\()1,', r"\g<1>2,", text)
        assert bumped != text
        return bumped

    env = _package_copy(second, edit=bump)
    planned = {(rule, wildcards) for rule, wildcards in _dry_run(second, env) if rule in EXPENSIVE_RULES}
    shards = set()
    for rule, wildcards in planned:
        assert rule == "sample_chua25_losses", (rule, wildcards)
        values = dict(item.split("=", 1) for item in wildcards.split(", "))
        shards.add("results/{experiment}/samples/{panel}/{direction}/{series}/shard-{shard}.parquet".format(**values))
    naive = {str(path.relative_to(tiny_full_run)) for path in tiny_full_run.glob("results/chua25_*/samples/**/*.parquet")
             if read_metadata(path)["parameters"]["method"] == "naive"}
    assert naive and shards == naive


def test_a_shard_of_another_algorithm_version_is_refused_by_name(tiny_full_run, tmp_path):
    """A shard file recorded with another version than the rule asks for: the merge names it."""
    second = copy_workflow(tmp_path / "checkout")
    _copy_results(tiny_full_run, second, metadata=True)
    shard = next((second / "results" / "chua25_props" / "samples").glob("**/shard-0.parquet"))
    from dpsampling.io import read_table, write_table

    frame, document = read_table(shard)
    write_table(frame, shard, dict(document["parameters"], algorithm_version=99))
    result = snakemake(second, "chua25_props", "--cores", "2", "--configfile", TINY)
    assert result.returncode != 0
    log = (second / "logs" / "chua25_props" / "merge_delta.log").read_text()
    assert re.search(rf"{re.escape(str(shard.relative_to(second)))} was computed with other parameters "
                     r"\(algorithm_version: file has 99, requested 1\)", log), log[-2000:]
