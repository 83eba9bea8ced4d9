"""Tests in this folder run under Numba's CUDA simulator unless the caller set
NUMBA_ENABLE_CUDASIM (e.g. NUMBA_ENABLE_CUDASIM=0 on a machine with a GPU).

numba-cuda reads NUMBA_ENABLE_CUDASIM when ``numba.cuda`` is first imported, so it is set
here, when pytest imports this conftest (before the test modules of this folder); if numba
itself was already imported by other tests, its configuration is reloaded so that the later
first import of numba.cuda sees the variable. If numba.cuda was already imported without it,
the tests skip (see ``test_ballsbins_cuda.py``).
"""

import os
import sys

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
if "numba" in sys.modules:
    from numba.core import config

    config.reload_config()
