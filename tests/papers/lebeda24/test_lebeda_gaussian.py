"""Poisson vs WOR subsampled Gaussian through the face (Prop. 9, Table 1, Conjecture 12) and the
paper's sampler and relation checks."""

import pytest

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.calibrate import calibrate_sigma
from dpsampling.accountants.frames import wide
from dpsampling.accountants.run import Phase
from dpsampling.papers.lebeda24.conj12 import conjecture12
from dpsampling.papers.lebeda24.subsampled import ACCOUNTANT_RELATIONS, POISSON, WOR, check_relation, check_sampler

# Table 1 of the paper: sigma = 0.8, rate 0.001, 10,000 steps; eps (Poisson, WOR) per delta.
TABLE1 = {1e-7: (1.19, 17.48), 1e-6: (0.96, 15.26), 1e-5: (0.80, 12.98), 1e-4: (0.64, 10.62)}
# Stated to two decimals: a value reproduces if our certified upper bound (relative gap 1e-4)
# rounds to it (|diff| <= 0.005). Values that do NOT reproduce: every paper value lies between our
# eps and it + 0.02. The paper used Opacus' PRV accountant, which returns an upper bound with slack
# eps_error (default 0.01): Opacus 1.4-1.6 gives 1.1809 0.9573 0.7925 0.6387 / 17.4740 15.2626
# 12.9870 10.6281 (WOR as Poisson at sigma/2), matching 3 of 8 cells; no single eps_error matches
# all 8 (docs/REPRODUCTION.md).
NOT_REPRODUCED = {
    (POISSON, 1e-7): "ours 1.1709 (Opacus PRV upper 1.1809)",
    (POISSON, 1e-6): "ours 0.9473 (Opacus PRV upper 0.9573)",
    (POISSON, 1e-5): "ours 0.7825 (Opacus PRV upper 0.7925)",
    (POISSON, 1e-4): "ours 0.6287 (Opacus PRV upper 0.6387)",
    (WOR, 1e-7): "ours 17.4630 (Opacus PRV upper 17.4740)",
    (WOR, 1e-6): "ours 15.2515 (Opacus PRV upper 15.2626)",
}



@pytest.fixture(scope="module")
def table1():
    return {s: wide(Accountant(Phase(s, 0.8, steps=10_000, sampling_rate=0.001), accuracy=1e-4).epsilon_bounds(
        list(TABLE1))) for s in (POISSON, WOR)}


def _cases():
    for delta in TABLE1:
        for i, sampler in enumerate((POISSON, WOR)):
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
    for i, sampler in enumerate((POISSON, WOR)):
        frame = table1[sampler].set_index("delta")
        for delta, papers in TABLE1.items():
            assert papers[i] >= frame.loc[delta, "epsilon_upper"] - 0.005
    assert (table1[WOR]["epsilon_upper"] > 10).all()
    assert (table1[POISSON]["epsilon_upper"] < 1.2).all()


@pytest.mark.parametrize("rate", [0.001, 0.01, 0.1, 0.5, 1.0])
def test_prop9_sigma_wor_is_twice_sigma_poisson(rate):
    rtol, target, delta = 1e-3, 2.0, 1e-5
    poisson = calibrate_sigma(Phase(POISSON, 1.0, steps=50, sampling_rate=rate), target, delta, rtol=rtol)
    wor = calibrate_sigma(Phase(WOR, 1.0, steps=50, sampling_rate=rate), target, delta, rtol=rtol)
    # each bisection returns the sufficient end of a bracket of relative width <= rtol
    assert abs(wor.sigma / poisson.sigma - 2.0) <= 2.0 * (2 * rtol + rtol**2)
    # an independent check by the reference method: dp-accounting's lower bound at the sigma shown
    # sufficient is at most the target, and its upper bound at the largest sigma not shown
    # sufficient is above the true eps there, which is above target (1 - accuracy)
    at = {"sufficient": poisson.sigma, "not_shown": poisson.sigma_not_shown_sufficient}
    reference = {key: wide(Accountant(Phase(POISSON, s, steps=50, sampling_rate=rate), method="dp_accounting")
                           .epsilon_bounds([delta])).iloc[0] for key, s in at.items()}
    assert reference["sufficient"]["epsilon_lower"] <= target
    assert reference["not_shown"]["epsilon_upper"] > target * (1 - poisson.accuracy)


def test_conjecture12_small_grid_has_no_counterexample():
    spec = {"sigmas": [0.5, 1.0, 2.0], "rates": [0.01, 0.2, 1.0], "compositions": [1, 10],
            "epsilon_grid": {"start": 0.0, "stop": 2.0, "num": 5}, "accuracy": 1e-3}
    grid = conjecture12(spec, progress=lambda message: None)
    assert len(grid) == 3 * 3 * 2 * 5
    assert not grid["apparent_counterexample"].any() and not grid["certain_counterexample"].any()


def test_relation_support_table():
    assert check_relation("add", "laplace", "wor") == "add"
    with pytest.raises(ValueError, match="relation must be one of add, remove .*; got 'add_or_remove'"):
        check_relation("add_or_remove", "laplace", "poisson")
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove, substitution; got 'swap'"):
        check_relation("swap", "laplace", "wor")
    with pytest.raises(ValueError, match="accountant must be one of laplace; got 'gaussian_pld'"):
        check_relation("add", "gaussian_pld", "wor")
    assert set(ACCOUNTANT_RELATIONS) == {"laplace"} and set(ACCOUNTANT_RELATIONS["laplace"]) == {"add", "remove"}


def test_the_paper_samplers_are_the_rate_based_ones():
    assert (POISSON, WOR) == ("poisson", "wor")
    with pytest.raises(ValueError, match="sampler must be one of poisson, wor; got 'shuffle'"):
        check_sampler("shuffle")


def test_calibrate_rejects_a_relation_the_sampler_lacks():
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove for sampler poisson; "
                                         "got 'substitution'"):
        calibrate_sigma(Phase(POISSON, 1.0, steps=10, sampling_rate=0.1), 1.0, 1e-5, relation="substitution")
