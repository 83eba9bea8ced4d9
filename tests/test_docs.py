"""The docs a newcomer reads: the README stays short and links to docs that exist (docs/EXPERIMENTS.md
against the registry: tests/test_experiments_docs.py)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_is_short_and_links_only_to_existing_docs():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    for link in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / link).exists(), link


def test_ci_runs_exactly_the_readme_test_command_with_the_workflow_lint():
    readme = [line for line in (ROOT / "README.md").read_text().splitlines()
              if line.startswith("python3 -m venv") and "pytest" in line]
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if "pytest" in line]
    assert len(readme) == 1 and ci == readme
    assert "ruff check . && .venv/bin/snakemake --lint && " in readme[0]
