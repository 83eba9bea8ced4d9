"""One bisection in log scale (issue 45): ``accountants.bisection.log_bisection``, which every
calibration (sigma, the sampling rate, Monte Carlo sigma) calls; none keeps a copy of its own."""

import math
import pathlib

import pytest

from dpsampling.accountants.bisection import log_bisection

ACCOUNTANTS = pathlib.Path(__file__).parents[2] / "src" / "dpsampling" / "accountants"


@pytest.mark.parametrize("rtol", [1e-1, 1e-3, 1e-9])
def test_the_bracket_holds_the_threshold_within_rtol(rtol):
    seen = []

    def upper_side(x: float) -> bool:
        seen.append(x)
        return x >= math.pi

    low, high = log_bisection(upper_side, 1e-3, 1e4, rtol)
    assert low < math.pi <= high and high / low - 1.0 <= rtol
    assert seen[0] == math.sqrt(1e-3 * 1e4)  # the geometric mean first


def test_a_bracket_already_narrow_is_returned_untested():
    assert log_bisection(lambda x: pytest.fail("tested"), 1.0, 1.005, 0.01) == (1.0, 1.005)


@pytest.mark.parametrize("module", ["calibrate.py", "knobs.py", "matrix/bisection.py"])
def test_every_calibration_calls_the_one_bisection(module):
    source = (ACCOUNTANTS / module).read_text()
    assert "log_bisection(" in source and "sqrt(low * high)" not in source and "sqrt(a * b)" not in source
