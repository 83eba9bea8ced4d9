"""Tests in this folder run under Numba's CUDA simulator unless the caller set
NUMBA_ENABLE_CUDASIM (e.g. NUMBA_ENABLE_CUDASIM=0 on a machine with a GPU).

numba-cuda chooses between the simulator and the driver once, when ``numba.cuda`` is first
imported, reading NUMBA_ENABLE_CUDASIM through Numba's configuration. So this conftest, which
pytest imports before the test modules of this folder, sets the variable, reloads Numba's
configuration if other tests imported numba already, imports numba.cuda, and then puts the
environment back, so that subprocesses started by later tests (Snakemake, the CLI) do not
inherit the simulator. If numba.cuda had been imported earlier without the simulator and no
GPU is visible, the tests skip (see ``test_ballsbins_cuda.py``).
"""

import importlib.util
import os
import sys

if importlib.util.find_spec("numba_cuda") is not None:
    _previous = os.environ.get("NUMBA_ENABLE_CUDASIM")
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    try:
        if "numba" in sys.modules:
            from numba.core import config

            config.reload_config()
        import numba.cuda  # noqa: F401 - fixes the mode for this process
    finally:
        if _previous is None:
            del os.environ["NUMBA_ENABLE_CUDASIM"]
            if "numba" in sys.modules:
                from numba.core import config

                config.reload_config()
