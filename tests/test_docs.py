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
