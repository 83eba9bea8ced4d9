"""Input validation, order-list parsing, seeding/determinism and shard storage (no statistics)."""

import numba
import numpy as np
import pytest

from dpsampling.accountants import ballsbins as bb

ORDERS = "1..3,5..9/2"


def _all_methods(seed, samples=3000, samples_per_chunk=256):
    common = dict(seed=seed, samples_per_chunk=samples_per_chunk)
    return [
        bb.sample_naive_losses(0.5, 10, samples, "remove", epochs=2, **common).losses,
        bb.sample_naive_losses(0.5, 11, samples, "add", **common).losses,
        bb.sample_importance_losses(0.5, 10, samples, "remove", 1.0, **common).losses,
        bb.sample_importance_losses(0.5, 10, samples, "add", 1.0, **common).losses,
        bb.sample_order_statistics_losses(0.5, 10, samples, "remove", ORDERS, **common).losses,
        bb.sample_order_statistics_losses(0.5, 10, samples, "add", ORDERS, epochs=2, **common).losses,
        bb.sample_importance_order_statistics_losses(0.5, 10, samples, "remove", ORDERS, 1.0,
                                                     **common).losses,
        bb.sample_importance_order_statistics_losses(0.5, 10, samples, "add", ORDERS, 1.0,
                                                     **common).losses,
    ]


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 Numba threads to compare with 1")
def test_results_do_not_depend_on_thread_count():
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _all_methods(5)
        numba.set_num_threads(2)
        assert numba.get_num_threads() == 2
        two = _all_methods(5)
    finally:
        numba.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_seeds_and_seed_sequences():
    a = bb.sample_naive_losses(0.5, 10, 500, "remove", seed=7).losses
    b = bb.sample_naive_losses(0.5, 10, 500, "remove", seed=np.random.SeedSequence(7)).losses
    c = bb.sample_naive_losses(0.5, 10, 500, "remove", seed=8).losses
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    children = np.random.SeedSequence(7).spawn(2)
    x = bb.sample_naive_losses(0.5, 10, 500, "remove", seed=children[0])
    y = bb.sample_naive_losses(0.5, 10, 500, "remove", seed=children[1])
    assert not np.array_equal(x.losses, y.losses)
    assert x.parameters()["seed_spawn_key"] == [0]


def test_dispatcher_matches_direct_calls():
    direct = bb.sample_order_statistics_losses(0.5, 10, 400, "add", ORDERS, seed=3).losses
    routed = bb.sample_losses(bb.LossLaw("order_statistics", 0.5, 10, "add", ORDERS), 400, seed=3).losses
    np.testing.assert_array_equal(direct, routed)


@pytest.mark.parametrize("call,message", [
    (lambda: bb.sample_naive_losses(-0.5, 10, 10, "remove"), "sigma must be positive and finite; got -0.5"),
    (lambda: bb.sample_naive_losses(0, 10, 10, "remove"), "sigma must be positive and finite; got 0"),
    (lambda: bb.sample_naive_losses(0.5, 0, 10, "remove"), "steps must be an integer >= 1; got 0"),
    (lambda: bb.sample_naive_losses(0.5, 10, 0, "remove"), "samples must be an integer >= 1; got 0"),
    (lambda: bb.sample_naive_losses(0.5, 10, 10, "both"), "direction must be one of remove, add; got 'both'"),
    (lambda: bb.sample_naive_losses(0.5, 10, 10, "add", epochs=0), "epochs must be an integer >= 1; got 0"),
    (lambda: bb.sample_naive_losses(0.5, 10, 10, "add", seed=-1), "seed must be an integer >= 0; got -1"),
    (lambda: bb.sample_naive_losses(0.5, 10, 10**15, "add"), "samples must be at most"),
    (lambda: bb.sample_naive_losses(0.5, 10, 10**9, "add", samples_per_chunk=1), "samples must be at most"),
    (lambda: bb.sample_importance_losses(0.5, 10, 10, "add", None), "importance_epsilon must be a finite real number; got None"),
    (lambda: bb.sample_importance_losses(0.01, 10, 10, "remove", 1e6), "importance_epsilon must be small enough"),
    (lambda: bb.sample_order_statistics_losses(0.5, 10, 10, "add", [1, 3, 2]), "orders must be strictly increasing"),
    (lambda: bb.sample_order_statistics_losses(0.5, 10, 10, "add", [1, 2, 10]), r"orders must start at 1 and stay inside \[1, T - 1\] = \[1, 9\]"),
    (lambda: bb.sample_order_statistics_losses(0.5, 10, 10, "add", [0, 1, 2]), "orders must start at 1"),
    (lambda: bb.sample_order_statistics_losses(0.5, 10, 10, "add", [2, 3]), "orders must start at 1"),
    (lambda: bb.sample_order_statistics_losses(0.5, 10, 10, "add", []), "orders must be a non-empty"),
    (lambda: bb.sample_order_statistics_losses(0.5, 10, 10, "add", [1.5, 2]), "orders must be integers"),
    (lambda: bb.sample_order_statistics_losses(0.5, 1, 10, "add", [1]), "steps must be an integer >= 2; got 1"),
    (lambda: bb.sample_losses(bb.LossLaw("importance", 0.5, 10, "add", importance_epsilon=1.0, epochs=2), 10),
     "epochs must be 1 for importance"),
    (lambda: bb.sample_losses(bb.LossLaw("magic", 0.5, 10, "add"), 10), "method must be one of"),
    (lambda: bb.kl_upper_confidence_bound(0.1, 10, 0.0), "beta must be in the open interval \\(0, 1\\); got 0.0"),
    (lambda: bb.kl_upper_confidence_bound(0.1, 10, 1.5), "beta must be in the open interval"),
    (lambda: bb.estimate_delta(np.zeros(3), [np.nan]), "epsilons must be"),
    (lambda: bb.lower_bound_delta(-1, 10, [1.0]), "sigma must be positive and finite; got -1"),
    (lambda: bb.lower_bound_delta(1, 0, [1.0]), "steps must be an integer >= 1; got 0"),
])
def test_bad_inputs_are_rejected_with_one_line(call, message):
    with pytest.raises(ValueError, match=message) as error:
        call()
    assert "\n" not in str(error.value)


def test_parse_orders_paper_lists():
    assert bb.parse_orders("1..500,510..1000/10,1100..19900/100").size == 739
    assert bb.parse_orders("1..500,510..1000/10,1050..2950/50").size == 589
    assert bb.parse_orders("1..500,510..1000/10,1100..6900/100").size == 609
    assert bb.parse_orders("1..500,510..990/10").size == 549  # the paper says 589 (its count is off)
    assert bb.parse_orders("1..400,410..1000/10,1100..10000/100,11000..50000/1000").size == 590
    assert bb.parse_orders("1..300,310..1000/10,1100..10000/100,11000..100000/1000,"
                           "110000..500000/10000").size == 590
    np.testing.assert_array_equal(bb.parse_orders(" 1..3, 5, 7..11/2 "), [1, 2, 3, 5, 7, 9, 11])
    text = "1..500,510..1000/10,1100..19900/100"
    assert bb.format_orders(bb.parse_orders(text)) == text
    orders = bb.validate_orders(text, 36133)
    assert orders.dtype == np.int64 and orders[-1] == 19900


@pytest.mark.parametrize("text,message", [
    ("", "non-empty"), ("1..", "comma-separated"), ("a..b", "comma-separated"),
    ("5..1", "a <= b"), ("1..10/4", "multiple"), ("1..10/0", "step >= 1"),
    ("1..5,5..8", "strictly increasing"), ("-1..3", "comma-separated"),
])
def test_parse_orders_rejects_malformed(text, message):
    with pytest.raises(ValueError, match=message):
        bb.parse_orders(text)


def test_storage_round_trip(tmp_path):
    samples = bb.sample_importance_order_statistics_losses(0.5, 10, 700, "remove", ORDERS, 1.5,
                                                           seed=np.random.SeedSequence(9).spawn(3)[2])
    path = bb.write_loss_samples(samples, tmp_path / "shard.parquet")
    again = bb.read_loss_samples(path, {"method": "importance_order_statistics", "sigma": 0.5})
    np.testing.assert_array_equal(again.losses, samples.losses)
    assert again.parameters() == samples.parameters()
    eps = [1.5, 2.0]
    np.testing.assert_array_equal(bb.estimate_delta(again, eps).mean(),
                                  bb.estimate_delta(samples, eps).mean())
    with pytest.raises(ValueError, match="computed with other parameters"):
        bb.read_loss_samples(path, {"sigma": 0.6})


def test_lower_bound_direction_max():
    eps = [0.5, 2.0]
    both = bb.lower_bound_delta(0.6, 30, eps, "max")
    np.testing.assert_array_equal(both, np.maximum(bb.lower_bound_delta(0.6, 30, eps, "remove"),
                                                   bb.lower_bound_delta(0.6, 30, eps, "add")))
