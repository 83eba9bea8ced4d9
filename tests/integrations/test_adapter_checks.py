"""Issue 33 (no silent wrong answer, round 2), the adapters: what an adapter is told is checked
against what it registered, events dp_accounting's PLDAccountant answers are answered or refused
with the reason, and -- the property -- for random runs of our loader, the Opacus adapter, the
dp_accounting adapter and the CLI give the face's eps for the run the loader actually did.

The property draws one run per sampler from a seeded generator (numpy seed 33); every check is an equality,
so it cannot fail by chance (false-failure probability 0)."""

import json
import math
import types
import warnings

import dp_accounting as dpa
import numpy as np
import pytest
from answer_schema import check_answer

from dpsampling import Accountant, Phase
from dpsampling.batches import LOADER_SAMPLERS, BatchSampler
from dpsampling.cli.main import main
from dpsampling.integrations import opacus as ours
from dpsampling.integrations.dp_accounting import CertifiedAccountant
from dpsampling.integrations.events import RandomAllocationDpEvent, ShuffledDpEvent

DELTA = 1e-5


def test_opacus_registered_rate_contradicting_the_history_is_refused():
    """register("wor", sampling_rate=0.001) with Opacus' history at 0.1 answered eps 2.18 for a
    run that cost 98.7: the registered rate must agree with the recorded one."""
    for sampler in ("wor", "poisson"):
        accountant = ours.accountant_class(sampler, sampling_rate=0.001)()
        accountant.history = [(1.1, 0.1, 1000)]
        with pytest.raises(ValueError, match=r"sample_rate 0.1 recorded by Opacus contradicts sampling_rate 0.001"):
            accountant.get_epsilon(DELTA)
        with pytest.raises(ValueError, match="contradicts"):
            accountant.step(noise_multiplier=1.1, sample_rate=0.1)
        recorded = ours.accountant_class(sampler)()
        recorded.history = [(1.1, 0.1, 1000)]
        assert recorded.get_epsilon(DELTA) == Accountant(
            Phase(sampler, 1.1, sampling_rate=0.1, steps=1000)).get_epsilon(DELTA)
        agreeing = ours.accountant_class(sampler, sampling_rate=0.1)()
        agreeing.history = [(1.1, 0.1, 1000)]
        assert agreeing.get_epsilon(DELTA) == recorded.get_epsilon(DELTA)


def test_opacus_epoch_based_rate_contradicting_steps_per_epoch_is_refused():
    accountant = ours.accountant_class("balls_and_bins", steps_per_epoch=235)()
    accountant.history = [(1.1, 1 / 300, 600)]  # a loader of 300 batches is not whole epochs of 235
    with pytest.raises(ValueError, match="not a whole number of epochs of steps_per_epoch = 235"):
        accountant.get_epsilon(DELTA)
    accountant.history = [(1.1, 1 / 235, 4700)]  # Opacus' plain loader: 1 / T
    assert accountant.phases() == (Phase("balls_and_bins", 1.1, steps_per_epoch=235, epochs=20),)


def test_opacus_re_registering_the_same_sampler_says_so(monkeypatch):
    registry = {}
    fake = types.SimpleNamespace(accountants=types.SimpleNamespace(
        register_accountant=lambda name, cls, force=False: registry.__setitem__(name, cls)))
    monkeypatch.setattr(ours, "opacus", fake)
    monkeypatch.setattr(ours, "_REGISTERED", {})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours.register("wor", sampling_rate=0.001)  # the first registration is silent
    with pytest.warns(UserWarning, match=r"'dpsampling-wor' registered again: sampling_rate=None now replaces "
                                         r"sampling_rate=0.001"):
        ours.register("wor")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours.register("wor")  # the same configuration again: nothing replaced, nothing said
    assert registry["dpsampling-wor"].sampling_rate is None


def test_non_private_event_gives_inf_like_pld_accountant():
    event = dpa.NonPrivateDpEvent()
    pld = dpa.pld.PLDAccountant().compose(event)
    accountant = CertifiedAccountant().compose(event)
    assert pld.get_epsilon(DELTA) == accountant.get_epsilon(DELTA) == math.inf
    assert accountant.get_delta(1.0) == 1.0


def test_laplace_event_is_refused_with_its_reason():
    accountant = CertifiedAccountant()
    reason = accountant.unsupported_reason(dpa.LaplaceDpEvent(1.0))
    assert reason.startswith("LaplaceDpEvent: the project's certified pairs are for Gaussian noise")
    assert "PLDAccountant" in reason
    with pytest.raises(dpa.UnsupportedEventError, match="Gaussian noise, not Laplace"):
        accountant.compose(dpa.LaplaceDpEvent(1.0))


def test_jax_privacy_replace_one_config_is_refused_with_the_methods_it_certifies():
    jax_privacy = pytest.importorskip("dpsampling.integrations.jax_privacy")
    with pytest.raises(ValueError, match="FIXED_BATCH_SIZE's Poisson event at z / 2 under ADD_OR_REMOVE_ONE is its "
                                         "replace-one guarantee"):
        jax_privacy.CertifiedAccountantConfig(neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE)


def _events(phase: Phase, sigma: float):
    """The DpEvents of the run the loader did, as a dp_accounting user composes them."""
    gaussian = dpa.GaussianDpEvent(sigma)
    if phase.sampler == "poisson":
        return dpa.PoissonSampledDpEvent(phase.sampling_rate, gaussian), phase.steps
    if phase.sampler == "wor":
        return dpa.SampledWithoutReplacementDpEvent(phase.dataset_size, phase.batch_size, gaussian), phase.steps
    if phase.sampler == "balls_and_bins":
        return RandomAllocationDpEvent(gaussian, 1, phase.steps_per_epoch), phase.epochs
    if phase.sampler == "shuffle":
        return ShuffledDpEvent(gaussian, phase.steps_per_epoch), phase.epochs
    return gaussian, phase.epochs  # deterministic: each example in one step per epoch


def _cli_frame(accounting, sigma: float, capsys) -> list:
    code = main(["account", *accounting.cli_args(), "--sigma", str(sigma), "--delta", str(DELTA), "--json"])
    assert code == 0
    return check_answer(json.loads(capsys.readouterr().out))["rows"]


def test_property_adapters_and_cli_agree_with_the_face_for_the_run_the_loader_did(capsys):
    rng = np.random.default_rng(33)
    for sampler in LOADER_SAMPLERS:  # every sampler the loader draws, the rest of the run drawn
        n = int(rng.integers(200, 2000))
        b = int(rng.integers(5, 50))
        epochs = int(rng.integers(1, 4))
        sigma = float(np.round(rng.uniform(0.8, 2.0), 3))
        loader = BatchSampler(sampler, n, b, epochs=epochs, seed=int(rng.integers(1000)))
        accounting = loader.accounting()
        (phase,) = accounting.phases(sigma)
        face = Accountant(phase)
        expected = face.get_epsilon(DELTA)
        # Opacus: the history it records with our loader (1 / len(loader) per step, every step)
        opacus_accountant = ours.loader_class(accounting)()
        opacus_accountant.history = [(sigma, 1 / len(loader), len(loader))]
        assert opacus_accountant.get_epsilon(DELTA) == expected, (sampler, n, b, epochs, sigma)
        # dp_accounting: the events of the same run
        event, count = _events(phase, sigma)
        assert CertifiedAccountant().compose(event, count).get_epsilon(DELTA) == expected, (sampler, n, b)
        # the command line, from the loader's own flags: the face's frame, every value
        frame = face.epsilon_bounds([DELTA])
        rows = _cli_frame(accounting, sigma, capsys)
        assert [row["epsilon_upper"] for row in rows] == frame["epsilon_upper"].tolist()
        assert [row["epsilon_lower"] for row in rows] == frame["epsilon_lower"].tolist()
