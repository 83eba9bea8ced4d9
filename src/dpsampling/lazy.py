"""Modules imported at first use: a module-level name that costs nothing until it is read.

dp-accounting takes about a second to import and only the reference paths need it; declaring it
with ``lazy_import("dp_accounting")`` at the top of the module that uses it keeps the import
visible where a reader looks for it, and off every default path.
"""

from __future__ import annotations

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
