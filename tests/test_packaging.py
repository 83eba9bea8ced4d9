"""Packaging: environment.yml lists the same packages and ranges as pyproject.toml, and what a
default run needs is installed by the main command (`pip install -e .`), not only by the test extra."""

import re
import tomllib
from importlib import metadata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*([^#;]*)")


def _parse(requirement: str) -> tuple[str, str]:
    name, spec = REQUIREMENT.match(requirement).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _environment() -> dict[str, str]:
    entries = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    flat = []
    for entry in entries:
        flat += entry["pip"] if isinstance(entry, dict) else [entry]
    return {name: spec for name, spec in map(_parse, flat) if name not in ("python", "pip")}


def test_environment_yml_lists_the_same_packages_and_ranges_as_pyproject():
    project = _pyproject()
    wanted = dict(_parse(r) for r in project["dependencies"])
    for extra in ("test", "cluster"):
        wanted.update(_parse(r) for r in project["optional-dependencies"][extra])
    assert _environment() == wanted


def _closure(requirements: list[str]) -> set[str]:
    """Names of the installed distributions that ``requirements`` pull in (markers with extras skipped)."""
    seen, queue = set(), [_parse(r)[0] for r in requirements]
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        queue += [_parse(r)[0] for r in requires if "extra ==" not in r]
    return seen


def test_the_main_install_brings_what_snakemake_report_needs():
    # snakemake --report (part of the default run) imports pygments without declaring it; pytest
    # pulls it in for the test extra, so only this check catches its absence from the main install.
    assert "pygments" in _closure(_pyproject()["dependencies"])
