"""Issue 42.1: a printed bound never claims more than what is proven. The formatter against exact
decimal arithmetic, and the "Report:" sentence of random runs parsed back against the frame."""

from __future__ import annotations

import math
import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsampling import Accountant, Phase, statement
from dpsampling.accountants import printed
from dpsampling.auditing.check import rounded

FINITE = st.floats(allow_nan=False, allow_infinity=False)
DIGITS = st.integers(1, 8)
QUICK = settings(max_examples=300, deadline=None, derandomize=True)


@QUICK
@given(FINITE, DIGITS)
def test_the_upper_text_is_at_least_the_float_and_the_lower_text_at_most(value, digits):
    up, down = printed.upper(value, digits), printed.lower(value, digits)
    assert Decimal(up) >= Decimal(value) >= Decimal(down)
    assert len(Decimal(up).normalize().as_tuple().digits) <= digits
    assert f"{value:.{digits}g}" in (up, down)  # the same digits as %g where that is already outward


@QUICK
@given(FINITE, st.integers(0, 6))
def test_the_fixed_point_texts_round_outward(value, places):
    assert Decimal(printed.upper_places(value, places)) >= Decimal(value) >= Decimal(printed.lower_places(value, places))


@QUICK
@given(st.floats(min_value=1e-300, max_value=1e300))
def test_the_audit_rounds_outward_exactly(value):
    assert Decimal(rounded(value, True)) >= Decimal(value) >= Decimal(rounded(value, False))


def test_the_issue_cases():
    assert printed.upper(2.0000018, 4) == "2.001"
    assert printed.upper(1.3254852, 4) == "1.326" and printed.lower(1.3254852, 4) == "1.325"
    assert printed.upper(0.000271126, 4) == "0.0002712"
    assert printed.upper(math.inf) == "inf" and printed.given(1e-10, 3) == "1e-10"
    assert rounded(0.29000000000000004, True) == "0.291"  # a float product would round it to 0.290


RUNS = st.builds(lambda s, sigma, q, n: Phase(s, sigma, sampling_rate=q, steps=n), st.sampled_from(["poisson", "wor"]),
                st.sampled_from([0.7, 1.0, 2.3]), st.floats(1e-4, 0.2), st.integers(1, 200))
DETERMINISTIC = st.builds(lambda s, sigma, t, k: Phase(s, sigma, steps_per_epoch=t, epochs=k),
                          st.sampled_from(["deterministic", "shuffle"]), st.floats(0.5, 5), st.integers(1, 50),
                          st.integers(1, 5))
PAIR = re.compile(r"Report: \(([^,]+), ([^)]+)\)-DP")


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.one_of(RUNS, DETERMINISTIC), st.sampled_from([1e-5, 1.23456e-7, 0.000271126]), st.floats(0.05, 5))
def test_the_report_sentence_of_random_runs_states_at_least_the_certified_bounds(phase, delta, epsilon):
    frame = Accountant(phase).epsilon_bounds([delta])
    eps, said_delta = PAIR.search(statement(frame)).groups()
    row = next(r for r in frame.to_dict("records") if r["direction"] == frame.attrs["headline"])
    assert Decimal(eps) >= Decimal(row["epsilon_upper"]) and float(said_delta) >= delta
    frame = Accountant(phase).delta_bounds([epsilon])
    said_eps, said = PAIR.search(statement(frame)).groups()
    row = next(r for r in frame.to_dict("records") if r["direction"] == frame.attrs["headline"])
    assert Decimal(said) >= Decimal(row["delta_upper"]) and float(said_eps) >= epsilon


@pytest.mark.parametrize("key, value, text", [("epsilon_upper", 1.3254852, "1.32549"),
                                              ("epsilon_lower", 1.3254859, "1.32548"),
                                              ("sigma_sufficient", 0.8906999, "0.8907"),
                                              ("accuracy", 1.3254852, None)])
def test_a_table_rounds_its_bound_columns_outward(key, value, text):
    assert printed.cell(key, value) == text
