"""The code a rule's result depends on, computed rather than listed by hand.

Cheap rules (merge, bounds, plots, claims, reports) take as inputs their script and the package
modules it imports, transitively (the import closure within ``dpsampling``, parent packages
included), as paths relative to the working directory: editing any of them reruns the rule, and
a moved checkout or another install path changes nothing Snakemake compares.

Expensive cached results (Monte Carlo shards, training runs) take no code inputs at all: they are
identified by their parameters and by the version of the algorithm that determines their numbers
(``dpsampling.versions``), passed to the rule as a param and recorded in the file's metadata.
"""

from __future__ import annotations

import ast
import os
from functools import cache
from pathlib import Path

PACKAGE = "dpsampling"
PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def module_file(module: str) -> Path | None:
    """The source file of ``dpsampling.x.y`` (a module or a package's ``__init__.py``), or None."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = PACKAGE_ROOT.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> tuple[str, bool]:
    """(dotted name, is a package) of a file inside the package."""
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def imported_modules(path: Path, name: str | None = None, is_package: bool = False) -> set[str]:
    """Every ``dpsampling`` module that the file at ``path`` imports (at any depth in its body),
    with the submodules named by ``from package import submodule`` and the modules it declares with
    ``lazy_import("dpsampling...")`` (``dpsampling.lazy``: loaded at first use, run all the same)."""
    tree = ast.parse(Path(path).read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if _lazy_import_name(node):
            found.add(_lazy_import_name(node))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if name is None:
                    continue
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    modules = set()
    for module in found:
        parts = module.split(".")
        if parts[0] != PACKAGE:
            continue
        for depth in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ too
            if module_file(".".join(parts[:depth])) is not None:
                modules.add(".".join(parts[:depth]))
    return modules


def _lazy_import_name(node) -> str | None:
    """The module a ``lazy_import("name")`` call names (a string constant), else None."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
        return None
    function = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    return node.args[0].value if function == "lazy_import" and isinstance(node.args[0].value, str) else None


@cache
def _imported_files(path: Path) -> tuple[Path, ...]:
    """The package files that the file at ``path`` imports directly, read and parsed once per
    process (a dry run asks for the closures of about 50 scripts and experiment modules, which
    share most of their files: parsed again for each, they were most of a dry run's CPU time)."""
    name, is_package = _module_name(path) if path.is_relative_to(PACKAGE_ROOT) else (None, False)
    return tuple(module_file(module) for module in imported_modules(path, name, is_package))


@cache
def _closure(path: Path) -> frozenset[Path]:
    seen: set[Path] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo.extend(_imported_files(current))
    return frozenset(seen)


def import_closure(script, base=".") -> list[str]:
    """``script`` (a path relative to ``base``) and the package files it imports, transitively, as
    paths relative to the working directory."""
    return sorted(os.path.relpath(file) for file in _closure((Path(base) / script).resolve()))
