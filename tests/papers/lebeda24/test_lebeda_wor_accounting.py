"""Sampling without replacement through the face as the lebeda24 experiments use it (``papers.accounting``:
Table 1 and Appendix D), the relations, the calibration and the dominating pairs."""

import math

import numpy as np
import pytest
from scipy import special, stats

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.calibrate import calibrate_sigma
from dpsampling.accountants.reference.pld import gaussian_pld
from dpsampling.accountants.run import Phase
from dpsampling.papers.accounting import delta_table, epsilon_table, paper_phase
from dpsampling.papers.lebeda24.pairs import SubsampledPair

EPS = [0.0, 0.5, 1.0, 2.0]
ACCURACY = 0.05
COLUMNS = ["delta_lower", "delta_upper", "remove_delta_lower", "remove_delta_upper", "add_delta_lower",
           "add_delta_upper", "delta_upper_rdp"]


def _wor(sigma, steps=50, rate=0.05):
    return paper_phase("wor", sigma, steps, sampling_rate=rate)


def test_wor_at_sigma_is_poisson_at_half_sigma():
    # Thm 10.2 / Prop. 9: the W pair has distance 2, so only distance / sigma enters
    wor = delta_table(_wor(2.0), EPS, accuracy=ACCURACY)
    poisson = delta_table(paper_phase("poisson", 1.0, 50, sampling_rate=0.05), EPS, accuracy=ACCURACY)
    assert np.allclose(wor[COLUMNS].to_numpy(), poisson[COLUMNS].to_numpy(), rtol=1e-12, atol=1e-15)
    # and W at the same sigma is strictly worse than Poisson
    same = delta_table(paper_phase("poisson", 2.0, 50, sampling_rate=0.05), EPS, accuracy=ACCURACY)
    assert (wor["delta_lower"] > same["delta_upper"])[:3].all()


def test_relation_selects_the_direction():
    both = delta_table(_wor(1.0, 20), EPS, accuracy=ACCURACY)
    for relation in ("add", "remove"):
        one = delta_table(_wor(1.0, 20), EPS, accuracy=ACCURACY, relation=relation)
        assert (one["relation"] == relation).all()
        for bound in ("lower", "upper"):
            assert np.array_equal(one[f"delta_{bound}"], both[f"{relation}_delta_{bound}"])
    assert np.array_equal(both["delta_upper"], np.maximum(both["remove_delta_upper"], both["add_delta_upper"]))
    assert (both["relation"] == "add_or_remove").all()


def test_substitution_bounds_bracket_the_dataset_pairs():
    frame = delta_table(_wor(2.0), EPS, accuracy=ACCURACY, relation="substitution")
    pairs = delta_table(_wor(2.0), EPS, accuracy=ACCURACY)
    assert (frame["delta_lower"] <= frame["delta_upper"]).all()
    # the lower bound is the dataset pairs' (realised by substitution neighbours), the upper one at least theirs
    assert np.allclose(frame["delta_lower"], pairs["delta_lower"], rtol=ACCURACY, atol=1e-15)
    assert (frame["delta_upper"] >= pairs["delta_lower"]).all()
    assert (frame["delta_upper_rdp"] >= frame["delta_upper"]).all()  # the headline is the smaller of the two


def test_epsilon_table_wor_bounds_are_ordered():
    phase = _wor(1.0, 100, 0.02)
    frame = epsilon_table(phase, [1e-6, 1e-3], accuracy=1e-2)
    assert (frame["epsilon_lower"] <= frame["epsilon_upper"]).all()
    assert (frame["epsilon_upper"] <= frame["epsilon_upper_rdp"]).all()
    assert (frame["pld_discretization"] > 0).all() and frame["pld_converged"].all()
    # eps is decreasing in delta and the delta bounds at eps_upper bracket delta from below
    assert frame["epsilon_upper"].iloc[0] > frame["epsilon_upper"].iloc[1]
    back = delta_table(phase, [frame["epsilon_upper"].iloc[1]], accuracy=1e-2)
    assert back["delta_lower"].iloc[0] <= 1e-3 * (1 + 1e-6)
    assert back["delta_upper"].iloc[0] == pytest.approx(1e-3, rel=2e-2)


@pytest.mark.parametrize("sampler, steps", [("poisson", 7), ("wor", 3)])
def test_rate_one_is_the_gaussian_mechanism(sampler, steps):
    # k steps at rate 1: N(0, s^2 I) vs N(d 1, s^2 I), mu = d sqrt(k) / s; closed form delta
    sigma, d = 3.0, {"poisson": 1.0, "wor": 2.0}[sampler]
    mu = d * math.sqrt(steps) / sigma
    table = delta_table(paper_phase(sampler, sigma, steps, sampling_rate=1.0), [0.0, 0.5, 1.5])
    for i, eps in enumerate((0.0, 0.5, 1.5)):
        exact = special.ndtr(-eps / mu + mu / 2) - math.exp(eps) * special.ndtr(-eps / mu - mu / 2)
        upper = gaussian_pld(sigma, 1.0, steps, d, True, 1e-4).get_delta_for_epsilon(eps)
        lower = gaussian_pld(sigma, 1.0, steps, d, False, 1e-4).get_delta_for_epsilon(eps)
        assert lower - 1e-12 <= exact <= upper + 1e-12
        assert upper - lower < 1e-3
        assert table["delta_upper"].iloc[i] == pytest.approx(exact, rel=1e-9, abs=1e-15)  # the face: closed form


def test_closed_form_noise_distributions_match_scipy():
    y = np.linspace(-30, 32, 401)
    for noise, dist in (("gaussian", stats.norm), ("laplace", stats.laplace)):
        pair = SubsampledPair(noise, 1.7, 0.3, 2.0)
        assert np.allclose(pair.base_cdf(y), dist.cdf(y, 0, 1.7), rtol=1e-12, atol=1e-300)
        assert np.allclose(pair.base_sf(y), dist.sf(y, 0, 1.7), rtol=1e-12, atol=1e-300)
        assert np.allclose(pair.base_pdf(y), dist.pdf(y, 0, 1.7), rtol=1e-12, atol=1e-300)
        mixture = 0.7 * dist.sf(y, 0, 1.7) + 0.3 * dist.sf(y, 2.0, 1.7)
        assert np.allclose(pair.mixture_sf(y), mixture, rtol=1e-12, atol=1e-300)


def _epsilon(phase, relation="add_or_remove"):
    return Accountant(phase, relation=relation, accuracy=0.01, refine="relation").get_epsilon(1e-5)


def test_calibration_finds_the_smallest_sigma_and_prop9():
    rtol = 1e-2
    results = {s: calibrate_sigma(Phase(s, start, steps=50, sampling_rate=0.1), 2.0, 1e-5, rtol=rtol)
               for s, start in (("poisson", 1.0), ("wor", 1.3))}
    for result in results.values():
        phase = result.phases[0]
        assert _epsilon(phase) <= 2.0 < _epsilon(phase.with_sigma(result.sigma_not_shown_sufficient))
        assert result.sigma / result.sigma_not_shown_sufficient <= 1 + rtol
    # independent bisections (different starts): each within its bracket, so the ratio within ~2 rtol of 2
    assert abs(results["wor"].sigma / (2 * results["poisson"].sigma) - 1) <= 2 * rtol + rtol**2


def test_substitution_calibration_needs_at_least_the_add_remove_noise():
    """Substitution's upper bound is at least the add/remove pairs' lower bound at every sigma, so its
    calibrated sigma suffices for add/remove too, while the sigma below it is not shown sufficient."""
    for sigma in (1.5, 2.4, 3.0):
        substitution = delta_table(_wor(sigma, 20), [1.0], accuracy=ACCURACY, relation="substitution")
        add_remove = delta_table(_wor(sigma, 20), [1.0], accuracy=ACCURACY)
        assert substitution["delta_upper"].iloc[0] >= add_remove["delta_lower"].iloc[0]
    result = calibrate_sigma(_wor(1.0, 20), 1.0, 1e-4, relation="substitution", rtol=5e-2)
    phase = result.phases[0]
    low = phase.with_sigma(result.sigma_not_shown_sufficient)
    at = Accountant(phase, relation="substitution", refine="relation").get_epsilon(1e-4)
    below = Accountant(low, relation="substitution", refine="relation").get_epsilon(1e-4)
    assert at <= 1.0 < below
    assert Accountant(phase, refine="relation").get_epsilon(1e-4) <= 1.0


def test_every_sampler_relation_pair_is_checked():
    for relation in ("add", "remove", "add_or_remove", "substitution"):
        assert delta_table(_wor(1.0, 10), [1.0], accuracy=0.2, relation=relation)["relation"].iloc[0] == relation
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove for sampler poisson; "
                                         "got 'substitution'"):
        delta_table(paper_phase("poisson", 1.0, 10), [1.0], relation="substitution")
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove, substitution; got 'swap'"):
        epsilon_table(_wor(1.0, 10), [1e-5], relation="swap")


@pytest.mark.parametrize("kwargs, message", [
    ({"sampling_rate": 0.0}, "sampling_rate must be in (0, 1]; got 0.0"),
    ({"sampling_rate": 1.5}, "sampling_rate must be in (0, 1]; got 1.5"),
    ({"sigma": 0.0}, "sigma must be positive and finite; got 0.0"),
    ({"steps": 0}, "steps must be an integer >= 1; got 0"),
])
def test_bad_wor_inputs(kwargs, message):
    args = {"sigma": 1.0, "steps": 10, "sampling_rate": 0.1} | kwargs
    with pytest.raises(ValueError) as error:
        paper_phase("wor", args["sigma"], args["steps"], sampling_rate=args["sampling_rate"])
    assert str(error.value) == message
