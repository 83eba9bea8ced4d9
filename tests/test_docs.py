"""The docs a newcomer reads: the README stays short, and docs/EXPERIMENTS.md maps every
experiment id to files that exist."""

import re
from pathlib import Path

import yaml

from dpsampling.papers.registry import EXPERIMENTS, experiment_targets

ROOT = Path(__file__).resolve().parents[1]


def _table_rows(text: str) -> list[str]:
    start = text.index("| experiment ids |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_experiments_table_maps_every_experiment_id_to_existing_files():
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    text = (ROOT / "docs" / "EXPERIMENTS.md").read_text()
    rows = _table_rows(text)
    ids_in_table = {name for row in rows for name in re.findall(r"`([a-z0-9]+_[a-z0-9_]+)`", row.split("|")[1])}
    ids_in_table |= set(EXPERIMENTS)  # those with a module: tests/test_experiments_docs.py
    assert set(experiment_targets(config)) <= ids_in_table
    paths = {p for row in rows for p in re.findall(r"`((?:src|scripts|tests|workflow)/[^`]+)`", row)}
    assert paths, "the table names no files"
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, missing


def test_readme_is_short_and_links_only_to_existing_docs():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    for link in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / link).exists(), link
