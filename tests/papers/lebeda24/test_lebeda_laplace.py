"""Subsampled Laplace under add and remove: exact k <= 2 vs Monte Carlo (Appendix B.2, Fig. 1-2)."""

import math

import numpy as np
import pytest
from scipy import stats

from dpsampling import io
from dpsampling.papers.lebeda24.laplace_mechanism import (
    crossings,
    delta_from_loss_samples,
    exact_curves,
    exact_delta,
    exact_pld_cdf,
    hoeffding_alpha,
    loss_samples_frame,
    monte_carlo_sample_size,
    pld_atoms,
    sample_privacy_loss,
)
from dpsampling.papers.lebeda24.shards import merge_curves, sample_shard, shard_parameters, shard_seed, shard_sizes

RATE = 0.9
EPS = np.linspace(0.0, 2.0, 17)


def test_sample_size_formula():
    n = monte_carlo_sample_size(1e-3, 0.01, 40)
    assert n == math.ceil(math.log(8000) / 2e-6)
    # The paper states N = 3,342,306 for (alpha, beta, |E|) = (1e-3, 0.01, 40); the formula gives
    # 4,493,599. 3,342,306 is what ln(800) gives, i.e. 2|E|/beta = 800 (beta = 0.1, not 0.01).
    assert n != 3_342_306
    assert math.ceil(math.log(800) / 2e-6) == 3_342_306
    assert hoeffding_alpha(n, 0.01, 40) <= 1e-3


@pytest.mark.parametrize("sampler,scale", [("poisson", 1.0), ("wor", 2.0)])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("relation", ["remove", "add"])
def test_monte_carlo_within_alpha_of_exact(sampler, scale, k, relation):
    # beta = 1e-4 per test (Hoeffding + union bound over the 17 eps): 8 such tests fail by
    # chance with probability <= 8e-4 (and never with these fixed seeds).
    beta = 1e-4
    n = 200_000
    seed = {"poisson": 11, "wor": 12}[sampler] * 10 + k * 2 + (relation == "add")
    samples = sample_privacy_loss(sampler, relation, scale, RATE, k, n, seed=seed)
    mc = delta_from_loss_samples(samples, EPS, beta=beta)
    exact = exact_delta(EPS, sampler, relation, scale, RATE, k)
    assert mc["alpha"].iloc[0] == pytest.approx(hoeffding_alpha(n, beta, EPS.size))
    assert (np.abs(mc["delta_mc"] - exact) <= mc["alpha"]).all()


def test_poisson_and_wor_agree_at_equal_distance_over_scale():
    a = exact_curves(EPS, "poisson", 1.0, RATE, 2)
    b = exact_curves(EPS, "wor", 2.0, RATE, 2)
    assert np.allclose(a["delta_remove"], b["delta_remove"], atol=1e-9)
    assert np.allclose(a["delta_add"], b["delta_add"], atol=1e-9)


def test_curves_do_not_cross_for_k1_and_cross_for_k2():
    eps = np.linspace(0.0, 2.0, 81)
    one = exact_curves(eps, "wor", 2.0, RATE, 1)
    assert (one["delta_remove"] >= one["delta_add"] - 1e-12).all()
    two = exact_curves(eps, "wor", 2.0, RATE, 2)
    inner = two[two["epsilon"] > 0]
    assert (inner["delta_add"] > inner["delta_remove"] + 1e-3).any()  # add above remove somewhere
    assert (inner["delta_remove"] > inner["delta_add"] + 1e-3).any()  # and below elsewhere
    assert crossings(two["epsilon"], two["delta_remove"], two["delta_add"]).size >= 1


def test_exact_k1_equals_closed_form_hockey_stick_integral():
    # independent check of k = 1: numerically integrate (A - e^eps B)_+ on a fine grid
    y = np.linspace(-40, 42, 2_000_001)
    a = (1 - RATE) * stats.laplace.pdf(y, 0, 2) + RATE * stats.laplace.pdf(y, 2, 2)
    b = stats.laplace.pdf(y, 0, 2)
    for e in (0.0, 0.3, 0.7):
        value = np.trapezoid(np.maximum(a - math.exp(e) * b, 0), y)
        assert value == pytest.approx(exact_delta([e], "wor", "remove", 2.0, RATE, 1)[0], abs=1e-6)


def test_add_pld_atom_at_iclr_value():
    atoms = dict(pld_atoms("wor", "add", 2.0, RATE))
    target = -math.log(0.1 + 0.9 / math.e)
    value = min(atoms, key=lambda v: abs(v - target))
    assert value == pytest.approx(target, rel=1e-12)
    assert atoms[value] == pytest.approx(0.5)
    jump = exact_pld_cdf([target + 1e-9], "wor", "add", 2.0, RATE) - exact_pld_cdf([target - 1e-9], "wor", "add", 2.0, RATE)
    assert jump[0] == pytest.approx(0.5, abs=1e-6)


def test_samples_roundtrip_parquet(tmp_path):
    samples = sample_privacy_loss("wor", "remove", 2.0, RATE, 2, 1000, seed=3)
    again = sample_privacy_loss("wor", "remove", 2.0, RATE, 2, 1000, seed=3)
    assert np.array_equal(samples, again)
    params = {"sampler": "wor", "relation": "remove", "scale": 2.0, "rate": RATE, "k": 2, "n": 1000, "seed": 3}
    path = io.write_table(loss_samples_frame(samples), tmp_path / "loss.parquet", params)
    frame, _ = io.read_table(path, params)
    assert np.array_equal(frame["privacy_loss"].to_numpy(), samples)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"rate": 0.0}, "sampling_rate must be in \\(0, 1\\]; got 0.0"),
        ({"rate": 1.2}, "sampling_rate must be in \\(0, 1\\]; got 1.2"),
        ({"scale": 0.0}, "laplace_scale must be positive and finite; got 0.0"),
        ({"scale": -1.0}, "laplace_scale must be positive and finite; got -1.0"),
        ({"k": 0}, "compositions must be an integer >= 1; got 0"),
        ({"relation": "swap"}, "relation must be one of add, remove, add_or_remove, substitution; got 'swap'"),
        ({"relation": "add_or_remove"}, "relation must be one of add, remove .*; got 'add_or_remove'"),
        ({"relation": "substitution"}, "relation must be one of add, remove .*; got 'substitution'"),
    ],
)
def test_bad_inputs(kwargs, message):
    args = {"sampler": "wor", "relation": "remove", "scale": 2.0, "rate": 0.9, "k": 2} | kwargs
    with pytest.raises(ValueError, match=message):
        sample_privacy_loss(args["sampler"], args["relation"], args["scale"], args["rate"], args["k"], 10)
    with pytest.raises(ValueError, match=message):
        exact_delta([0.5], args["sampler"], args["relation"], args["scale"], args["rate"], args["k"])


def test_exact_rejects_k_above_two_and_bad_mc_parameters():
    with pytest.raises(ValueError, match="compositions must be 1 or 2 for the exact computation; got 3"):
        exact_delta([0.5], "wor", "remove", 2.0, 0.9, 3)
    with pytest.raises(ValueError, match="alpha must be in the open interval \\(0, 1\\); got 0"):
        monte_carlo_sample_size(0, 0.01, 40)
    with pytest.raises(ValueError, match="n_epsilons must be an integer >= 1; got 0"):
        monte_carlo_sample_size(1e-3, 0.01, 0)


# --- shards: seeds, sizes, metadata, merge (Appendix B.2 at scale) ---------------------------------
SPEC = {"samplers": ["wor"], "laplace_scale": {"poisson": 1.0, "wor": 2.0}, "sampling_rate": RATE,
        "compositions": [2], "samples": 30_001, "shards": 3, "beta": 1e-4,
        "epsilon_grid": {"start": 0.0, "stop": 2.0, "num": 17}}


def test_shard_sizes_and_seeds_depend_on_identity_only():
    assert shard_sizes(10, 3) == [4, 3, 3] and sum(shard_sizes(3_342_306, 4)) == 3_342_306
    first = shard_seed(7, "lebeda24_addremove", "wor", "add", 2, 1).generate_state(4)
    again = shard_seed(7, "lebeda24_addremove", "wor", "add", 2, 1).generate_state(4)
    assert np.array_equal(first, again)
    others = [shard_seed(7, "lebeda24_addremove", *key).generate_state(4) for key in
              [("wor", "add", 2, 0), ("wor", "remove", 2, 1), ("poisson", "add", 2, 1), ("wor", "add", 5, 1)]]
    others.append(shard_seed(8, "lebeda24_addremove", "wor", "add", 2, 1).generate_state(4))
    assert all(not np.array_equal(first, other) for other in others)
    with pytest.raises(ValueError, match="shards must be at most samples = 2; got 3"):
        shard_sizes(2, 3)


def test_shards_merge_to_the_exact_curve_and_refuse_other_parameters(tmp_path):
    curves = {}
    for direction in ("remove", "add"):
        for shard in range(SPEC["shards"]):
            parameters = shard_parameters(SPEC, 5, "lebeda24_addremove", "wor", direction, 2, shard)
            frame = sample_shard(parameters)
            path = tmp_path / f"{direction}-{shard}.parquet"
            io.write_table(frame, path, parameters)
            curves.setdefault(("wor", direction, 2), []).append(path)
            again = sample_shard(shard_parameters(SPEC, 5, "lebeda24_addremove", "wor", direction, 2, shard))
            assert np.array_equal(frame["privacy_loss"], again["privacy_loss"])  # a shard is reproducible alone
    document = io.read_metadata(curves[("wor", "add", 2)][1])
    assert document["parameters"]["samples"] == 10_000 and document["parameters"]["seed_spawn_key"] == [1, 1, 2, 1]
    assert document["versions"]["numpy"]
    merged = merge_curves(curves, SPEC, 5, "lebeda24_addremove", EPS, progress=lambda m: None)
    assert (merged["n_samples"] == 30_001).all() and (merged["shards"] == 3).all()
    # beta = 1e-4 per curve, two curves: false-failure probability <= 2e-4 (and never with these seeds)
    for direction in ("remove", "add"):
        part = merged[merged["direction"] == direction]
        exact = exact_delta(EPS, "wor", direction, 2.0, RATE, 2)
        assert (np.abs(part["delta_mc"].to_numpy() - exact) <= part["alpha"].to_numpy()).all()
    with pytest.raises(ValueError, match="computed with other parameters"):
        merge_curves(curves, SPEC | {"sampling_rate": 0.5}, 5, "lebeda24_addremove", EPS, progress=lambda m: None)
    with pytest.raises(ValueError, match="computed with other parameters"):
        merge_curves(curves, SPEC, 6, "lebeda24_addremove", EPS, progress=lambda m: None)
