"""The docs a newcomer reads: the README stays short and links to docs that exist (docs/EXPERIMENTS.md
against the registry: tests/test_experiments_docs.py)."""

import ast
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


SRC = ROOT / "src"
PACKAGES = ("accountants", "certified", "closed_form", "reference", "ballsbins", "papers", "pipeline", "cli",
            "integrations", "benchmark", "training")
PATH_MENTION = re.compile(r"(?<![\w/.-])((?:src/dpsampling|tests|scripts|workflow)/[\w/.-]*\w\.(?:py|smk))")
DOTTED = re.compile(r"(?<![\w.])(dpsampling(?:\.\w+)+)")
RELATIVE = re.compile(r"``((?:" + "|".join(PACKAGES) + r")(?:\.\w+)+)")


def _texts():
    """(name, text) of every doc, README and source file a reader may follow a module path from."""
    files = [*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md"), *(ROOT / "config").rglob("*.md"),
             *SRC.rglob("*.py"), *(ROOT / "scripts").rglob("*.py"), *(ROOT / "workflow").rglob("*.smk"),
             *(ROOT / "workflow").rglob("*.py"), ROOT / "Snakefile", *(ROOT / "tests").rglob("*.py")]
    return [(path.relative_to(ROOT).as_posix(), path.read_text()) for path in files
            if path.is_file() and path != Path(__file__).resolve()]


def _top_level_names(module: Path) -> set[str]:
    tree = ast.parse(module.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` (dpsampling.a.b[.name...]) names a module of src/, or a top-level name in one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = SRC.joinpath(*parts[:cut])
        module = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if module.is_file():
            rest = parts[cut:]
            if not rest:
                return True
            names = _top_level_names(module)
            if base.is_dir():
                names |= {p.stem for p in base.iterdir()}
            return rest[0] in names or (module.name == "__init__.py" and "__getattr__" in names)
    return False


def test_resolver_tells_a_module_from_a_deleted_one():
    assert resolves("dpsampling.accountants.accountant.Accountant")
    assert resolves("dpsampling.accountants.certified.engine")
    assert not resolves("dpsampling.accountants.ballsbins_pld")
    assert not resolves("dpsampling.accountants.accountant.NoSuchThing")


def test_every_module_path_named_in_docs_and_docstrings_exists():
    """A doc, docstring or comment that names a file (src/..., tests/..., scripts/...) or a module
    (``dpsampling.x.y``, or ``accountants.x`` / ``certified.x`` ... inside double backticks) names
    one that exists."""
    missing = set()
    for name, text in _texts():
        for path in PATH_MENTION.findall(text):
            if not (ROOT / path).exists() and "*" not in path:
                missing.add(f"{name}: {path}")
        for dotted in DOTTED.findall(text):
            if not resolves(dotted.rstrip(".")):
                missing.add(f"{name}: {dotted}")
        for dotted in RELATIVE.findall(text):
            candidates = (f"dpsampling.{dotted}", f"dpsampling.accountants.{dotted}", f"dpsampling.papers.{dotted}")
            if not any(resolves(c) for c in candidates):
                missing.add(f"{name}: ``{dotted}``")
    assert not missing, "\n".join(sorted(missing))
