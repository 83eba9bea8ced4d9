"""Poisson vs WOR subsampled Gaussian (Prop. 9, Table 1, Conjecture 12) and input checks."""

import numpy as np
import pytest

from dpsampling.papers.lebeda24.gaussian_search import (
    SigmaSearch,
    calibrate_sigma_at_rate,
    conjecture12_search,
    delta_at,
    delta_for_epsilon,
    epsilon_for_delta,
    gaussian_pld,
)
from dpsampling.papers.lebeda24.subsampled import ACCOUNTANT_RELATIONS, check_relation

# Table 1 of the paper: sigma = 0.8, rate 0.001, 10,000 steps; eps (Poisson, WOR) per delta.
TABLE1 = {1e-7: (1.19, 17.48), 1e-6: (0.96, 15.26), 1e-5: (0.80, 12.98), 1e-4: (0.64, 10.62)}
# Stated to two decimals: a value reproduces if our PLD upper bound rounds to it (|diff| <= 0.005).
# Values that do NOT reproduce (ours: pessimistic connect-the-dots PLD at 1e-4, converged: the same
# to 1e-4 at discretization 2e-5): every paper value lies between our eps and it + 0.02. The paper
# used Opacus' PRV accountant, which returns an upper bound with slack eps_error (default 0.01):
# Opacus 1.4-1.6 gives 1.1809 0.9573 0.7925 0.6387 / 17.4740 15.2626 12.9870 10.6281 (WOR as
# Poisson at sigma/2), matching 3 of 8 cells; no single eps_error matches all 8 (docs/REPRODUCTION.md).
NOT_REPRODUCED = {
    ("poisson", 1e-7): "ours 1.1709 (Opacus PRV upper 1.1809)",
    ("poisson", 1e-6): "ours 0.9473 (Opacus PRV upper 0.9573)",
    ("poisson", 1e-5): "ours 0.7825 (Opacus PRV upper 0.7925)",
    ("poisson", 1e-4): "ours 0.6287 (Opacus PRV upper 0.6387)",
    ("wor", 1e-7): "ours 17.4630 (Opacus PRV upper 17.4740)",
    ("wor", 1e-6): "ours 15.2515 (Opacus PRV upper 15.2626)",
}


@pytest.fixture(scope="module")
def table1():
    return {s: epsilon_for_delta(list(TABLE1), s, 0.8, 0.001, 10_000, 1e-4, bounds=("upper",)) for s in ("poisson", "wor")}


def _cases():
    for delta in TABLE1:
        for i, sampler in enumerate(("poisson", "wor")):
            reason = NOT_REPRODUCED.get((sampler, delta))
            marks = [pytest.mark.xfail(strict=True, reason=f"does not reproduce: {reason}")] if reason else []
            yield pytest.param(sampler, delta, TABLE1[delta][i], marks=marks, id=f"{sampler}-{delta:g}")


@pytest.mark.parametrize("sampler,delta,paper", list(_cases()))
def test_table1_to_stated_precision(table1, sampler, delta, paper):
    row = table1[sampler].set_index("delta").loc[delta]
    assert abs(row["epsilon_upper"] - paper) <= 0.005


def test_table1_paper_values_not_below_our_upper_bound_minus_precision(table1):
    # the weaker statement that does hold: no paper value is below the true eps (which is at most
    # our upper bound), and the WOR/Poisson gap (eps ~ 1 vs > 10) is there.
    for i, sampler in enumerate(("poisson", "wor")):
        frame = table1[sampler].set_index("delta")
        for delta, papers in TABLE1.items():
            assert papers[i] >= frame.loc[delta, "epsilon_upper"] - 0.005
    assert (table1["wor"]["epsilon_upper"] > 10).all()
    assert (table1["poisson"]["epsilon_upper"] < 1.2).all()


def test_directions_and_bounds_consistent():
    frame = delta_for_epsilon([0.0, 0.5, 1.0, 2.0], "wor", 1.0, 0.05, 20, 1e-3)
    for bound in ("upper", "lower"):
        assert np.allclose(frame[f"delta_{bound}"], np.maximum(frame[f"delta_remove_{bound}"], frame[f"delta_add_{bound}"]))
    assert (frame["delta_lower"] <= frame["delta_upper"] + 1e-12).all()
    # our per-direction maximum (round-off corrected, reference.pld_bounds) equals dp_accounting's
    # public answer up to that round-off
    pld = gaussian_pld("wor", 1.0, 0.05, 20, True, 1e-3)
    assert np.allclose([pld.get_delta_for_epsilon(e) for e in frame["epsilon"]], frame["delta_upper"], rtol=1e-9,
                       atol=1e-12)


@pytest.mark.parametrize("rate", [0.001, 0.01, 0.1, 0.5, 1.0])
def test_prop9_sigma_wor_is_twice_sigma_poisson(rate):
    rtol = 1e-3
    poisson = calibrate_sigma_at_rate("poisson", 2.0, 1e-5, rate, 50, search=SigmaSearch(rtol=rtol, discretization=1e-3))
    wor = calibrate_sigma_at_rate("wor", 2.0, 1e-5, rate, 50, search=SigmaSearch(rtol=rtol, sigma_start=1.3, discretization=1e-3))
    # each bisection returns the feasible end of a bracket of relative width <= rtol; the starts differ
    # (1.0 vs 1.3), so the two bisections probe different sigmas and the factor 2 is not built in
    assert abs(wor["sigma"] / poisson["sigma"] - 2.0) <= 2.0 * (2 * rtol + rtol**2)
    assert delta_at("poisson", "add_or_remove", 2.0, poisson["sigma"], rate, 50, True, 1e-3) <= 1e-5
    # sigma_low's certified upper bound (gap <= 1%) is above 1e-5, so its true delta is above
    # 0.99e-5; dp-accounting's pessimistic PLD, another upper bound, must be too
    assert delta_at("poisson", "add_or_remove", 2.0, poisson["sigma_low"], rate, 50, True, 1e-3) > 0.99e-5


def test_conjecture12_small_grid_has_no_counterexample():
    grid, bad = conjecture12_search([0.5, 1.0, 2.0], [0.01, 0.2, 1.0], [1, 10], [0.0, 0.5, 1.0, 2.0])
    assert len(grid) == 3 * 3 * 2 * 4
    assert bad.empty


def test_relation_support_table():
    assert check_relation("add_or_remove", "gaussian_pld", "wor") == "add_or_remove"
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove .*; got 'substitution'"):
        check_relation("substitution", "gaussian_pld", "poisson")
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove, substitution; got 'swap'"):
        check_relation("swap", "gaussian_pld", "wor")
    with pytest.raises(ValueError, match="accountant must be one of gaussian_pld, laplace; got 'gaussian_substitution'"):
        check_relation("substitution", "gaussian_substitution", "wor")
    assert set(ACCOUNTANT_RELATIONS["laplace"]) == {"add", "remove"}


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"sigma": -0.5}, "sigma must be positive and finite; got -0.5"),
        ({"rate": 0.0}, "sampling_rate must be in \\(0, 1\\]; got 0.0"),
        ({"rate": 1.5}, "sampling_rate must be in \\(0, 1\\]; got 1.5"),
        ({"steps": 0}, "steps must be an integer >= 1; got 0"),
        ({"sampler": "shuffle"}, "sampler must be one of poisson, wor; got 'shuffle'"),
    ],
)
def test_bad_inputs(kwargs, message):
    args = {"sampler": "poisson", "sigma": 1.0, "rate": 0.1, "steps": 5} | kwargs
    with pytest.raises(ValueError, match=message):
        delta_for_epsilon([1.0], args["sampler"], args["sigma"], args["rate"], args["steps"])


def test_calibrate_rejects_unknown_relation():
    with pytest.raises(ValueError, match="relation must be one of .*; got 'substitution'"):
        calibrate_sigma_at_rate("wor", 1.0, 1e-5, 0.1, 10, relation="substitution")
