"""Modules imported at first use: a module-level name that costs nothing until it is read.

dp-accounting takes about a second to import and only the reference paths need it; declaring it
with ``lazy_import("dp_accounting")`` at the top of the module that uses it keeps the import
visible where a reader looks for it, and off every default path.
"""

from __future__ import annotations

import importlib.util
import sys


def lazy_import(name: str):
    """The top-level package ``name``, executed when one of its attributes is first read (a dotted
    name would import its parents at once: read submodules as attributes of the package)."""
    if "." in name:
        raise ValueError(f"name must be a top-level package; got {name!r}")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None:
        raise ModuleNotFoundError(f"No module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
