"""Imports as on the GPU machine of scripts/gpu_check.sh: with this folder first on PYTHONPATH,
Python refuses to import any package outside the standard library but numpy, scipy, pandas,
pyarrow, numba, numba-cuda, matplotlib, pyyaml and their own dependencies (no pytest,
dp-accounting, jsonschema, snakemake, tqdm, ...)."""

import sys

ALLOWED = {"numpy", "scipy", "pandas", "pyarrow", "numba", "numba_cuda", "llvmlite", "matplotlib",
           "yaml", "dpsampling", "cuda", "packaging", "dateutil", "pytz", "tzdata", "six"}


class GpuMachineImports:
    """A meta path finder raising ImportError for every other top-level package."""

    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names or top in ALLOWED or top.startswith("_"):
            return None
        raise ImportError(f"{name} is not installed on the GPU machine (tests/benchmark/gpu_machine)")


sys.meta_path.insert(0, GpuMachineImports())
