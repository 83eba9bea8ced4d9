"""Sampling without replacement in the accounting entry point, relations, calibration and the CLI."""

import json
import math

import numpy as np
import pytest
from scipy import special, stats

from dpsampling.accountants.calibration import calibrate_sigma
from dpsampling.accountants.gaussian import SigmaSearch, gaussian_pld
from dpsampling.accountants.pairs import SubsampledPair
from dpsampling.accountants.relations import SAMPLER_RELATIONS, check_sampler_relation
from dpsampling.accountants.tables import AccountingOptions, delta_table, epsilon_table
from dpsampling.cli.main import main

EPS = [0.0, 0.5, 1.0, 2.0]
FAST = AccountingOptions(pld_discretization=1e-3, pld_min_discretization=1e-3, sampling_rate=0.05)  # one interval
COLUMNS = ["delta_lower", "delta_upper", "remove_delta_lower", "remove_delta_upper", "add_delta_lower",
           "add_delta_upper", "delta_upper_rdp"]


def test_wor_at_sigma_is_poisson_at_half_sigma():
    # Thm 10.2 / Prop. 9: the W pair has distance 2, so only distance / sigma enters
    wor = delta_table("wor", 2.0, 50, EPS, options=FAST)
    poisson = delta_table("poisson", 1.0, 50, EPS, options=FAST)
    assert np.allclose(wor[COLUMNS].to_numpy(), poisson[COLUMNS].to_numpy(), rtol=1e-12, atol=1e-15)
    assert (wor["sampling_rate"] == 0.05).all()
    # and W at the same sigma is strictly worse than Poisson
    same = delta_table("poisson", 2.0, 50, EPS, options=FAST)
    assert (wor["delta_lower"] > same["delta_upper"])[:3].all()


def test_relation_selects_the_direction():
    both = delta_table("wor", 1.0, 20, EPS, options=FAST)
    for relation in ("add", "remove"):
        one = delta_table("wor", 1.0, 20, EPS, options=FAST, relation=relation)
        assert (one["relation"] == relation).all()
        for bound in ("lower", "upper"):
            assert np.array_equal(one[f"delta_{bound}"], both[f"{relation}_delta_{bound}"])
    assert np.array_equal(both["delta_upper"], np.maximum(both["remove_delta_upper"], both["add_delta_upper"]))
    assert (both["relation"] == "add_or_remove").all()


def test_substitution_bounds_bracket_the_dataset_pairs():
    frame = delta_table("wor", 2.0, 50, EPS, options=FAST, relation="substitution")
    assert (frame["delta_lower"] <= frame["delta_upper"]).all()
    assert np.array_equal(frame["delta_lower"], np.maximum(frame["remove_delta_lower"], frame["add_delta_lower"]))
    # the dominating pair's curve lies above both dataset pairs' (pessimistic) curves
    assert (frame["delta_upper"] >= frame[["remove_delta_upper", "add_delta_upper"]].max(axis=1)).all()
    assert (frame["delta_upper_rdp"] >= frame["delta_upper"]).all()


def test_epsilon_table_wor_bounds_are_ordered():
    frame = epsilon_table("wor", 1.0, 100, [1e-6, 1e-3], options=AccountingOptions(
        pld_method="dp_accounting", pld_discretization=1e-3, pld_min_discretization=2.5e-4, pld_relative_accuracy=1e-3, sampling_rate=0.02))
    assert (frame["epsilon_lower"] <= frame["epsilon_upper"]).all()
    assert (frame["epsilon_upper"] <= frame["epsilon_upper_rdp"]).all()
    assert frame["pld_discretization"].between(2.5e-4, 1e-3).all()
    # eps is decreasing in delta and the upper bound at delta matches the delta query at that eps
    assert frame["epsilon_upper"].iloc[0] > frame["epsilon_upper"].iloc[1]
    interval = frame["pld_discretization"].iloc[1]
    back = delta_table("wor", 1.0, 100, [frame["epsilon_upper"].iloc[1]], options=AccountingOptions(
        pld_method="dp_accounting", pld_discretization=interval, pld_min_discretization=interval, sampling_rate=0.02))
    assert back["delta_upper"].iloc[0] == pytest.approx(1e-3, rel=1e-3)


@pytest.mark.parametrize("sampler, steps", [("poisson", 7), ("wor", 3)])
def test_rate_one_is_the_gaussian_mechanism(sampler, steps):
    # k steps at rate 1: N(0, s^2 I) vs N(d 1, s^2 I), mu = d sqrt(k) / s; closed form delta
    sigma, d = 3.0, {"poisson": 1.0, "wor": 2.0}[sampler]
    mu = d * math.sqrt(steps) / sigma
    for eps in (0.0, 0.5, 1.5):
        exact = special.ndtr(-eps / mu + mu / 2) - math.exp(eps) * special.ndtr(-eps / mu - mu / 2)
        upper = gaussian_pld(sampler, sigma, 1.0, steps, True, 1e-4).get_delta_for_epsilon(eps)
        lower = gaussian_pld(sampler, sigma, 1.0, steps, False, 1e-4).get_delta_for_epsilon(eps)
        assert lower - 1e-12 <= exact <= upper + 1e-12
        assert upper - lower < 1e-3


def test_closed_form_noise_distributions_match_scipy():
    y = np.linspace(-30, 32, 401)
    for noise, dist in (("gaussian", stats.norm), ("laplace", stats.laplace)):
        pair = SubsampledPair(noise, 1.7, 0.3, 2.0)
        assert np.allclose(pair.base_cdf(y), dist.cdf(y, 0, 1.7), rtol=1e-12, atol=1e-300)
        assert np.allclose(pair.base_sf(y), dist.sf(y, 0, 1.7), rtol=1e-12, atol=1e-300)
        assert np.allclose(pair.base_pdf(y), dist.pdf(y, 0, 1.7), rtol=1e-12, atol=1e-300)
        mixture = 0.7 * dist.sf(y, 0, 1.7) + 0.3 * dist.sf(y, 2.0, 1.7)
        assert np.allclose(pair.mixture_sf(y), mixture, rtol=1e-12, atol=1e-300)


def test_calibration_finds_the_smallest_sigma_and_prop9():
    rtol = 1e-2
    poisson = calibrate_sigma("poisson", 2.0, 1e-5, 50, sampling_rate=0.1, search=SigmaSearch(rtol=rtol))
    wor = calibrate_sigma("wor", 2.0, 1e-5, 50, sampling_rate=0.1, search=SigmaSearch(rtol=rtol, sigma_start=1.3))
    options = AccountingOptions(pld_discretization=1e-3, pld_min_discretization=1e-3, sampling_rate=0.1)
    for result in (poisson, wor):
        at = delta_table(result["sampler"], result["sigma"], 50, [2.0], options=options)["delta_upper"].iloc[0]
        below = delta_table(result["sampler"], result["sigma_low"], 50, [2.0], options=options)["delta_upper"].iloc[0]
        assert at <= 1e-5 < below
        assert result["sigma"] / result["sigma_low"] <= 1 + rtol
    # independent bisections (different starts): each within its bracket, so the ratio within ~2 rtol of 2
    assert abs(wor["sigma"] / (2 * poisson["sigma"]) - 1) <= 2 * rtol + rtol**2


def test_substitution_calibration_needs_at_least_the_add_remove_noise():
    """Substitution bounds delta from above by at least the add/remove curve at every sigma, so its
    calibrated sigma suffices for it (and for add/remove), while its sigma_low fails substitution."""
    options = AccountingOptions(pld_discretization=1e-3, pld_min_discretization=1e-3, sampling_rate=0.05)
    for sigma in (1.5, 2.4, 3.0):
        substitution = delta_table("wor", sigma, 20, [1.0], options=options, relation="substitution")
        add_remove = delta_table("wor", sigma, 20, [1.0], options=options)
        assert substitution["delta_upper"].iloc[0] >= add_remove["delta_upper"].iloc[0]
    result = calibrate_sigma("wor", 1.0, 1e-4, 20, sampling_rate=0.05, relation="substitution",
                             search=SigmaSearch(rtol=5e-2, discretization=1e-3))
    at = delta_table("wor", result["sigma"], 20, [1.0], options=options, relation="substitution")
    below = delta_table("wor", result["sigma_low"], 20, [1.0], options=options, relation="substitution")
    assert at["delta_upper"].iloc[0] <= 1e-4 < below["delta_upper"].iloc[0]
    assert delta_table("wor", result["sigma"], 20, [1.0], options=options)["delta_upper"].iloc[0] <= 1e-4


def test_every_sampler_relation_pair_is_checked():
    assert SAMPLER_RELATIONS["wor"][-1] == "substitution"
    for sampler, relations in SAMPLER_RELATIONS.items():
        for relation in relations:
            assert check_sampler_relation(sampler, relation) == relation
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove for sampler 'poisson'; "
                                         "got 'substitution'"):
        delta_table("poisson", 1.0, 10, [1.0], relation="substitution")
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove, substitution; got 'swap'"):
        epsilon_table("wor", 1.0, 10, [1e-5], relation="swap")


@pytest.mark.parametrize("kwargs, message", [
    ({"sampling_rate": 0.0}, "sampling_rate must be in (0, 1]; got 0.0"),
    ({"sampling_rate": 1.5}, "sampling_rate must be in (0, 1]; got 1.5"),
    ({"sigma": 0.0}, "sigma must be positive and finite; got 0.0"),
    ({"steps": 0}, "steps must be an integer >= 1; got 0"),
])
def test_bad_wor_inputs(kwargs, message):
    args = {"sigma": 1.0, "steps": 10, "sampling_rate": 0.1} | kwargs
    options = AccountingOptions(pld_discretization=1e-3, pld_min_discretization=1e-3, sampling_rate=args["sampling_rate"])
    with pytest.raises(ValueError) as error:
        delta_table("wor", args["sigma"], args["steps"], [1.0], options=options)
    assert str(error.value) == message


# --- the command line --------------------------------------------------------------------------------
def _run(args, capsys):
    try:
        code = main(args)
    except SystemExit as exit_info:
        code = exit_info.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_wor_json_records_relation_and_rate(capsys):
    code, out, _ = _run(["account", "--sampler", "wor", "--sigma", "1", "--steps", "20", "--sampling-rate", "0.05",
                         "--relation", "remove", "--epsilon", "0.5", "1", "--pld-method", "dp_accounting",
                         "--pld-discretization", "1e-3", "--pld-min-discretization", "2.5e-4", "--json"], capsys)
    assert code == 0
    document = json.loads(out)
    assert document["inputs"]["relation"] == "remove" and document["inputs"]["sampling_rate"] == 0.05
    for row in document["rows"]:
        assert row["delta_upper"] == row["remove"]["delta_upper"]
        assert set(row["add"]) == {"delta_lower", "delta_upper"}
        assert 2.5e-4 <= row["pld_discretization"] <= 1e-3 and isinstance(row["pld_converged"], bool)
        assert document["inputs"]["options"]["pld_min_discretization"] == 2.5e-4
        assert document["inputs"]["options"]["pld_method"] == "dp_accounting"
    code, out, _ = _run(["account", "--sampler", "poisson", "--sigma", "1", "--steps", "20", "--epsilon", "1",
                         "--pld-discretization", "1e-3", "--json"], capsys)
    assert json.loads(out)["inputs"]["sampling_rate"] == pytest.approx(1 / 20)


def test_cli_calibrate(capsys):
    code, out, _ = _run(["calibrate", "--sampler", "wor", "--epsilon", "2", "--delta", "1e-5", "--steps", "50",
                         "--sampling-rate", "0.1", "--pld-discretization", "1e-3", "--rtol", "1e-2", "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    assert result["sigma_low"] < result["sigma"] <= result["sigma_low"] * 1.01
    code, out, _ = _run(["calibrate", "--help"], capsys)
    assert code == 0 and "twice" in out


@pytest.mark.parametrize("change, message", [
    (["--sampling-rate", "0"], "sampling_rate must be in (0, 1]; got 0.0"),
    (["--sampling-rate", "1.5"], "sampling_rate must be in (0, 1]; got 1.5"),
    (["--relation", "swap"], "argument --relation: invalid choice: 'swap'"),
    (["--sampler", "poisson", "--relation", "substitution"],
     "relation must be one of add, remove, add_or_remove for sampler 'poisson'; got 'substitution'"),
    (["--sampler", "shuffle", "--sampling-rate", "0.1"],
     "--sampling-rate applies to samplers poisson, wor only; got it with sampler 'shuffle'"),
])
def test_cli_bad_input_is_one_line_with_exit_status_2(change, message, capsys):
    args = {"--sampler": "wor", "--sigma": "1", "--steps": "10"}
    args.update(dict(zip(change[::2], change[1::2])))
    argv = ["account"] + [x for pair in args.items() for x in pair] + ["--epsilon", "1"]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
    code, _, err = _run(["calibrate", "--sampler", "wor", "--epsilon", "1", "--delta", "1e-5", "--steps", "10",
                         "--relation", "add", "--sampling-rate", "2"], capsys)
    assert code == 2 and "sampling_rate must be in (0, 1]; got 2.0" in err
