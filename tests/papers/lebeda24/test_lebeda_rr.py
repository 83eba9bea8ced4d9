"""Appendix B.1: randomized-response counterexample, exact fractions (the paper's claims)."""

from fractions import Fraction

import pytest

from dpsampling.papers.lebeda24.randomized_response import hockey_stick_discrete, randomized_response_divergences


def test_paper_fractions_rate_half_two_runs():
    rows = {row["alpha"]: row for row in randomized_response_divergences(rate=Fraction(1, 2), runs=2)}
    assert rows[Fraction(4, 3)]["H_P_Q"] == Fraction(11, 48)
    assert rows[Fraction(4, 3)]["H_Q_P"] == Fraction(1, 6)
    assert rows[Fraction(2)]["H_P_Q"] == Fraction(1, 16)
    assert rows[Fraction(2)]["H_Q_P"] == Fraction(1, 8)
    # the point of the example: the larger direction switches between the two alphas
    assert rows[Fraction(4, 3)]["H_P_Q"] > rows[Fraction(4, 3)]["H_Q_P"]
    assert rows[Fraction(2)]["H_P_Q"] < rows[Fraction(2)]["H_Q_P"]


def test_single_run_has_a_worst_case_direction():
    # one run: M_sub(D') is uniform; (Q, P) is the larger direction at both alphas (no switch)
    rows = randomized_response_divergences(runs=1)
    assert all(row["H_Q_P"] >= row["H_P_Q"] for row in rows)


def test_hockey_stick_discrete_basics():
    p = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert hockey_stick_discrete(p, p, 1) == 0
    assert hockey_stick_discrete(p, p, 0) == 1
    with pytest.raises(ValueError, match="alpha must be non-negative; got"):
        hockey_stick_discrete(p, p, -1)
    with pytest.raises(ValueError, match="sampling_rate must be in \\(0, 1\\]; got"):
        randomized_response_divergences(rate=Fraction(3, 2))
