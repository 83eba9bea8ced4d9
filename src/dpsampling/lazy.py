"""Modules imported at first use: a module-level name that costs nothing until it is read.

dp-accounting takes about a second to import and only the reference paths need it; declaring it
with ``lazy_import("dp_accounting")`` at the top of the module that uses it keeps the import
visible where a reader looks for it, and off every default path. The same for the package's own
heavy modules (the engine, the kernels, the training code): a job that never reads them never runs
them, and a rule's code inputs still list them (``pipeline.code_inputs`` reads these calls).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys


def lazy_import(name: str):
    """The module ``name``, executed when one of its attributes is first read. A dotted name
    (``"matplotlib.pyplot"``) imports its parent packages at once, as any import of it would, and
    defers only the module itself: use it where the parents are cheap and the module is not."""
    if name in sys.modules:
        return sys.modules[name]
    parent, _, child = name.rpartition(".")
    spec = importlib.util.find_spec(name)  # imports the parents of a dotted name
    if spec is None:
        raise ModuleNotFoundError(f"No module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    if parent:  # as the import system does: the submodule is an attribute of its package
        setattr(sys.modules[parent], child, module)
    return module


def lazy_attributes(package: str, sources: dict[str, tuple[str, str]]):
    """(``__getattr__``, ``__dir__``) of a package whose names load with their module on first
    use (PEP 562): ``sources`` maps each name to (the module that holds it, its name there). The
    package's own code imports those modules directly, never through the package (tests/test_layout.py)."""

    def __getattr__(name):
        if name in sources:
            module, attribute = sources[name]
            return getattr(importlib.import_module(module), attribute)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted([*vars(sys.modules[package]), *sources])

    return __getattr__, __dir__

