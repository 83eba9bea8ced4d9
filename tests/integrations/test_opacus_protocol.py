"""The Opacus accountant's protocol without torch or opacus (they are never imported here):
history, step, __len__, mechanism, state_dict, the registration hook, the phases it accounts and
get_noise_multiplier for every sampler. No randomness."""

import json
import math
import subprocess
import sys
import types

import pytest

from dpsampling import Accountant, Phase, calibrate_sigma
from dpsampling.batches import BatchSampler, Truncation
from dpsampling.integrations import opacus as ours
from dpsampling.samplers import PAPER_SAMPLERS, sampler_entry

DELTA = 1e-5


def test_importing_it_imports_neither_torch_nor_opacus():
    code = ("import sys, json, dpsampling, dpsampling.integrations.opacus, dpsampling.integrations.dp_accounting; "
            "print(json.dumps(['torch' in sys.modules, 'opacus' in sys.modules, 'jax' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [False, False, False]


def test_step_history_len_and_mechanism():
    accountant = ours.accountant_class()()
    assert accountant.mechanism() == "dpsampling" and len(accountant) == 0 and accountant.get_epsilon(DELTA) == 0.0
    for z in (1.0, 1.0, 1.0, 2.0):
        accountant.step(noise_multiplier=z, sample_rate=0.01)
    assert accountant.history == [(1.0, 0.01, 3), (2.0, 0.01, 1)] and len(accountant) == 4
    assert accountant.phases() == (Phase("poisson", 1.0, sampling_rate=0.01, steps=3),
                                   Phase("poisson", 2.0, sampling_rate=0.01, steps=1))
    assert accountant.get_epsilon(DELTA) == Accountant(accountant.phases()).get_epsilon(DELTA)
    assert ours.accountant_class("wor").mechanism() == "dpsampling-wor"
    with pytest.raises(ValueError, match="noise_multiplier must be non-negative"):
        accountant.step(noise_multiplier=-1.0, sample_rate=0.01)


def test_state_dict_round_trip_and_refusals():
    cls = ours.accountant_class()
    accountant = cls()
    accountant.history = [(1.1, 0.01, 100)]
    state = accountant.state_dict()
    assert dict(state) == {"history": [(1.1, 0.01, 100)], "mechanism": "dpsampling"}
    other = cls()
    other.load_state_dict(state)
    assert other.history == accountant.history and other.get_epsilon(DELTA) == accountant.get_epsilon(DELTA)
    with pytest.raises(ValueError, match="empty or None"):
        other.load_state_dict({})
    with pytest.raises(ValueError, match="must have the key 'mechanism'"):
        other.load_state_dict({"history": []})
    with pytest.raises(ValueError, match="must be 'dpsampling' .* got 'rdp'"):
        other.load_state_dict({"history": [], "mechanism": "rdp"})


def test_opacus_style_search_sets_history_directly():
    """Opacus' get_noise_multiplier assigns history and calls get_epsilon(delta=...)."""
    accountant = ours.accountant_class()()
    accountant.history = [(1.5, 0.02, 250)]
    assert accountant.get_epsilon(delta=DELTA) == Accountant(
        Phase("poisson", 1.5, sampling_rate=0.02, steps=250)).get_epsilon(DELTA)
    accountant.history = [(0.0, 0.02, 250)]
    assert accountant.get_epsilon(delta=DELTA) == math.inf  # no noise: the trivial bound


def test_optimizer_hook_steps_with_accumulated_iterations():
    accountant = ours.accountant_class()()
    hook = accountant.get_optimizer_hook_fn(sample_rate=0.01)
    hook(types.SimpleNamespace(noise_multiplier=1.2, accumulated_iterations=2))
    assert accountant.history == [(1.2, 0.02, 1)]


def test_epoch_based_samplers_round_partial_epochs_up_for_the_upper_bound():
    cls = ours.accountant_class("balls_and_bins", steps_per_epoch=10)
    accountant = cls()
    accountant.history = [(1.0, 1 / 50, 25)]  # Opacus' rate is ignored: T comes from the loader
    assert accountant.phases() == (Phase("balls_and_bins", 1.0, steps_per_epoch=10, epochs=3),)
    assert accountant.phases(lower=True) == (Phase("balls_and_bins", 1.0, steps_per_epoch=10, epochs=2),)
    row = accountant.epsilon_bounds([DELTA]).query("direction == 'max'").iloc[0]
    assert row["epsilon_lower"] < row["epsilon_upper"]
    with pytest.raises(ValueError, match="steps_per_epoch must be given for sampler balls_and_bins"):
        ours.accountant_class("balls_and_bins")
    with pytest.raises(ValueError, match="steps_per_epoch applies to epoch-based samplers"):
        ours.accountant_class("poisson", steps_per_epoch=10)


def test_loader_class_takes_the_run_and_the_truncation_delta_from_the_batch_sampler():
    sampler = BatchSampler("poisson", 1000, 20, epochs=2, truncation=Truncation(max_batch_size=54, epsilon=5.0))
    accounting = sampler.accounting()
    accountant = ours.loader_class(accounting)()
    accountant.history = [(1.0, 1 / len(sampler), len(sampler))]  # what Opacus records with our batch_sampler
    assert accountant.phases() == (Phase("poisson", 1.0, sampling_rate=0.02, steps=100),)
    assert accountant.get_epsilon(DELTA) == accounting.get_epsilon(1.0, DELTA)
    kept = ours.loader_class(BatchSampler("balls_and_bins", 1000, 20, epochs=2).accounting())
    assert kept.steps_per_epoch == 50 and kept.mechanism() == "dpsampling-balls_and_bins"


def test_register_puts_the_class_in_opacus_registry(monkeypatch):
    registry = {}

    def register_accountant(mechanism, accountant, force=False):
        if mechanism in registry and not force:
            raise ValueError(f"Accountant for mechanism {mechanism} is already registered")
        registry[mechanism] = accountant

    fake = types.SimpleNamespace(accountants=types.SimpleNamespace(register_accountant=register_accountant))
    monkeypatch.setattr(ours, "opacus", fake)
    assert ours.register() == "dpsampling"
    assert ours.register("shuffle", steps_per_epoch=10) == "dpsampling-shuffle"
    assert registry["dpsampling"]().mechanism() == "dpsampling"
    assert registry["dpsampling-shuffle"].steps_per_epoch == 10


@pytest.mark.parametrize("sampler", ["cyclic_poisson", "b_min_sep"])
def test_get_noise_multiplier_refuses_a_run_its_signature_cannot_describe(sampler):
    """Opacus' signature (a rate and epochs) has no cycle length or minimum separation."""
    with pytest.raises(ValueError, match=f"sampler must be one whose run Opacus' history .* got '{sampler}'"):
        ours.get_noise_multiplier(target_epsilon=3.0, target_delta=DELTA, sample_rate=0.05, epochs=2, sampler=sampler)


@pytest.mark.parametrize("sampler", [*PAPER_SAMPLERS, "fixed_balls_and_bins"])
def test_get_noise_multiplier_for_every_sampler(sampler):
    """Opacus' signature; the answer is the face's sigma shown sufficient for the same run."""
    target, rate, epochs = 3.0, 0.05, 2
    sigma = ours.get_noise_multiplier(target_epsilon=target, target_delta=DELTA, sample_rate=rate, epochs=epochs,
                                      sampler=sampler)
    if sampler_entry(sampler).rate_based:
        phase = Phase(sampler, 1.0, sampling_rate=rate, steps=int(epochs / rate))
    else:
        phase = Phase(sampler, 1.0, steps_per_epoch=20, epochs=epochs)
    assert sigma == calibrate_sigma(phase, target, DELTA).sigma
    assert Accountant(phase.with_sigma(sigma)).get_epsilon(DELTA) <= target
    with pytest.raises(ValueError, match="exactly one of epochs and steps"):
        ours.get_noise_multiplier(target_epsilon=target, target_delta=DELTA, sample_rate=rate, sampler=sampler)


@pytest.mark.parametrize("sampler", ["cyclic_poisson", "b_min_sep"])
def test_an_accountant_class_for_a_run_the_history_cannot_describe_is_refused_when_made(sampler):
    """Refused when the class is made (not at its first query, after training): the history has no cycle length
    or minimum separation."""
    with pytest.raises(ValueError, match=f"sampler must be one whose run Opacus' history .* got '{sampler}'"):
        ours.accountant_class(sampler, sampling_rate=0.05)
