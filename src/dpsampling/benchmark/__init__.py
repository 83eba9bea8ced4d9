"""Throughput benchmark of the balls-and-bins Monte Carlo estimators (issue 3, item 6).

``python -m dpsampling.benchmark`` times ``dpsampling.accountants.ballsbins`` against the Balls-and-Bins
authors' implementation (``BnBAccountant`` of the PyPI package random-allocation, optional:
``pip install --no-deps random-allocation==1.0.5``) on the cases of ``cases.CASES``, checks that
both estimates agree, and writes results/benchmarks/mc_throughput.csv plus a JSON sidecar.
See docs/BENCHMARKS.md.
"""

from dpsampling.benchmark.cases import CASE_NAMES, CASES, Case
from dpsampling.benchmark.reference import INSTALL_COMMAND, load_reference
from dpsampling.benchmark.runner import COLUMNS, BenchmarkDisagreement, agreement, run_benchmark, write_outputs

__all__ = ["CASES", "CASE_NAMES", "COLUMNS", "INSTALL_COMMAND", "BenchmarkDisagreement", "Case",
           "agreement", "load_reference", "run_benchmark", "write_outputs"]
