"""What importing a module executes (issue 41: every Snakemake job is a fresh process that pays its
imports, and the Snakefile imports the registry on every call, dry runs included).

``accountants.ballsbins`` is a lazy package (its modules load on first use); Numba, SciPy's
optimize/stats/integrate, the certified engine and the training code load where they run, not
where a module names a law, parses an order list or declares an experiment."""

import importlib
import json
import subprocess
import sys

import pytest

from dpsampling.accountants import ballsbins

HEAVY = ("numba", "scipy.optimize", "scipy.stats", "scipy.integrate", "dpsampling.accountants.certified.engine",
         "dpsampling.accountants.ballsbins._kernels", "dpsampling.training.model")


def _executed(*modules: str) -> set[str]:
    """The modules of HEAVY that a fresh interpreter has executed (not merely declared with
    ``lazy_import``) after importing ``modules``."""
    code = (f"import importlib, json, sys\nfor name in {list(modules)!r}: importlib.import_module(name)\n"
            f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules "
            "and type(sys.modules[m]).__name__ != '_LazyModule']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(result.stdout))


def test_every_name_of_the_package_is_its_module_s():
    for name in ballsbins.__all__:
        module, attribute = ballsbins._SOURCE[name]
        held = importlib.import_module(f"dpsampling.accountants.ballsbins.{module}")
        assert getattr(ballsbins, name) is getattr(held, attribute), name
    assert ballsbins.sample_losses_on is importlib.import_module("dpsampling.accountants.ballsbins.device").sample_losses


def test_an_unknown_name_of_the_package_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'sample_loses'"):
        ballsbins.sample_loses  # noqa: B018


def test_the_registry_executes_none_of_the_heavy_modules():
    assert _executed("dpsampling.papers.registry") == set()


def test_a_merge_job_s_modules_execute_no_kernel_nor_engine():
    """The merge and summary jobs read statistics (``privacy``, ``samples``, ``storage``): Numba
    loads with the first draw or reduction, the engine with the certified bounds job."""
    assert _executed("dpsampling.papers.chua25.privacy", "dpsampling.papers.chua25.samples",
                     "dpsampling.accountants.ballsbins.device") == set()


def test_a_draw_executes_the_kernels():
    """The check above could fail: drawing loads Numba and the kernels."""
    code = ("from dpsampling.accountants.ballsbins.sampling import LossLaw, sample_losses\n"
            "sample_losses(LossLaw('naive', 1.0, 3, 'remove'), 4)")
    result = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('numba' in sys.modules, "
                             "'dpsampling.accountants.ballsbins._kernels' in sys.modules)"],
                            capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["True", "True"]
