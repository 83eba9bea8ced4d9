"""docs/EXPERIMENTS.md against the registry: one row per experiment, naming its module, its config
block, its rule file, its scripts (with the module at most five files) and every test file of it, all
of which exist."""

import re
from pathlib import Path

import yaml

from dpsampling.papers.registry import DOCS_HEADER, EXPERIMENTS, docs_rows

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "EXPERIMENTS.md"


def _documented_rows() -> list[str]:
    text = DOCS.read_text()
    assert DOCS_HEADER in text, "docs/EXPERIMENTS.md has no experiments table"
    rows = []
    for line in text[text.index(DOCS_HEADER) + len(DOCS_HEADER):].splitlines()[1:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_docs_table_is_the_registry():
    """Regenerate it with: python -c 'from dpsampling.papers.registry import docs_rows; print(*docs_rows(), sep="\\n")'."""
    assert _documented_rows() == docs_rows()


def test_each_row_names_at_most_five_code_files_its_tests_and_they_exist():
    for experiment in EXPERIMENTS.values():
        files = experiment.files()
        assert len(files) - len(experiment.tests) <= 5, (experiment.id, files)
        assert experiment.tests and all(t.startswith("tests/") for t in experiment.tests), experiment.id
        missing = [f for f in files if not (ROOT / f).is_file()]
        assert not missing, (experiment.id, missing)


def test_each_module_holds_its_experiment_and_its_rule_file_runs_its_scripts():
    for experiment in EXPERIMENTS.values():
        source = (ROOT / experiment.module_path).read_text()
        assert re.search(r"^EXPERIMENT = ", source, re.MULTILINE), experiment.module_path
        assert len(source.splitlines()) <= 500, experiment.module_path
        rules = (ROOT / experiment.rules).read_text()
        for script in experiment.scripts:
            assert f'"../../{script}"' in rules, (experiment.id, script, experiment.rules)


def test_each_config_block_exists_and_has_a_schema_entry():
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    for experiment in EXPERIMENTS.values():
        paper, name = experiment.config_block.split(".")
        assert isinstance(config[paper][name], dict), experiment.config_block
        assert name in schema["properties"][paper]["properties"], experiment.config_block


def test_the_registry_gives_one_distinct_row_per_experiment():
    rows = docs_rows()
    assert len(rows) == len(EXPERIMENTS) and len(set(rows)) == len(rows)
    assert all(f"`{e.id}`" in row and f"`{e.module_path}`" in row for e, row in zip(EXPERIMENTS.values(), rows))


def _readme_ids(text: str) -> set[str]:
    """Experiment ids the README lists, with its ranges (`chua24_fig1` ... `chua24_fig7`) expanded."""
    listed = text[text.index("Experiment ids:"):text.index("and `claims`")]
    ids = set(re.findall(r"`([a-z0-9]+_[a-z0-9_]+)`", listed))
    for paper, first, last in re.findall(r"`([a-z0-9]+)_fig(\d+)` \.\.\. `[a-z0-9]+_fig(\d+)`", listed):
        ids |= {f"{paper}_fig{i}" for i in range(int(first), int(last) + 1)}
    return ids


def test_the_readme_lists_every_experiment_and_the_claim_count_of_the_registry():
    from dpsampling.papers.registry import CLAIMS

    readme = (ROOT / "README.md").read_text()
    assert _readme_ids(readme) == set(EXPERIMENTS)
    count = re.search(r"A quick run checks (\d+) claims", readme)
    assert count and int(count.group(1)) == len(CLAIMS)
    reproduction = (ROOT / "docs" / "REPRODUCTION.md").read_text()
    assert re.search(r"run checks (\d+) claims", reproduction).group(1) == count.group(1)


def test_the_readme_check_would_catch_a_missing_experiment():
    assert "chua25_b_vs_p" not in _readme_ids("Experiment ids: `chua24_fig1` ... `chua24_fig3`, `chua25_trunc`; and `claims`")
    assert _readme_ids("Experiment ids: `chua24_fig1` ... `chua24_fig3`; and `claims`") == {
        "chua24_fig1", "chua24_fig2", "chua24_fig3"}
