"""Opacus 1.6 with our accountant (marker ``opacus``; needs torch and opacus: pip install -e '.[opacus]';
run with ``python -m pytest -m opacus``). Training loops on CPU with a fixed torch seed; the
checks are on the accountant's history and eps, which do not depend on the data."""

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
opacus = pytest.importorskip("opacus")

from opacus import PrivacyEngine  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

from dpsampling import Accountant, Phase  # noqa: E402
from dpsampling.batches import BatchSampler  # noqa: E402
from dpsampling.integrations import opacus as ours  # noqa: E402

pytestmark = pytest.mark.opacus
DELTA = 1e-5


def _data(n=600, d=5):
    torch.manual_seed(0)
    return TensorDataset(torch.randn(n, d), torch.randint(0, 2, (n,)))


def _train(engine, loader, noise_multiplier=1.0, passes=1, **options):
    model = nn.Sequential(nn.Linear(5, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer, data_loader=loader,
                                                   noise_multiplier=noise_multiplier, max_grad_norm=1.0, **options)
    for _ in range(passes):
        for x, y in loader:
            if len(y) == 0:
                continue
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
    return loader


def test_privacy_engine_selects_it_by_name_and_accounts_poisson():
    name = ours.register()
    engine = PrivacyEngine(accountant=name)
    assert isinstance(engine.accountant, ours.CertifiedOpacusAccountant)
    _train(engine, DataLoader(_data(), batch_size=60), passes=2)
    (z, q, steps), = engine.accountant.history
    assert (z, steps) == (1.0, 20) and q == pytest.approx(0.1)
    assert engine.get_epsilon(DELTA) == Accountant(Phase("poisson", 1.0, sampling_rate=q, steps=20)).get_epsilon(DELTA)


def test_make_private_with_epsilon_calibrates_through_our_accountant():
    engine = PrivacyEngine(accountant=ours.register())
    model = nn.Sequential(nn.Linear(5, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    _, optimizer, _ = engine.make_private_with_epsilon(module=model, optimizer=optimizer,
                                                       data_loader=DataLoader(_data(), batch_size=60),
                                                       target_epsilon=2.0, target_delta=DELTA, epochs=2,
                                                       max_grad_norm=1.0)
    accountant = ours.accountant_class()()
    accountant.history = [(optimizer.noise_multiplier, 0.1, 20)]
    assert accountant.get_epsilon(DELTA) <= 2.0


def test_our_balls_and_bins_batch_sampler_with_its_accountant():
    """poisson_sampling=False keeps our batch_sampler; one pass over it is its K epochs."""
    sampler = BatchSampler("balls_and_bins", 600, 60, epochs=2, seed=3)
    engine = PrivacyEngine(accountant=ours.register_loader(sampler.accounting()))
    loader = _train(engine, DataLoader(_data(), batch_sampler=sampler), poisson_sampling=False)
    assert loader.batch_sampler is sampler
    assert len(engine.accountant) == len(sampler) == 20
    (ran,), (loader_run,) = engine.accountant.phases(), sampler.accounting().phases(1.0)
    key = ("sampler", "sigma", "steps_per_epoch", "epochs")
    assert [getattr(ran, k) for k in key] == [getattr(loader_run, k) for k in key] == ["balls_and_bins", 1.0, 10, 2]
    assert engine.get_epsilon(DELTA) == sampler.accounting().get_epsilon(1.0, DELTA)


def test_importing_after_opacus_registers_the_default_name():
    code = ("import opacus, dpsampling.integrations.opacus; from opacus.accountants.registry import _ACCOUNTANTS; "
            "print('dpsampling' in _ACCOUNTANTS)")
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_the_docs_loader_snippet_runs_as_written_and_sums_the_loss():
    """docs/INTEGRATIONS.md's Opacus loader snippet, with a dataset, a model and a rate defined
    before it: it trains, keeps our batch_sampler, reports the loader's eps, and does not fall
    into loss_reduction="mean" (whose expected batch size would be b / K, not b)."""
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "INTEGRATIONS.md").read_text()
    start = text.index('sampler = BatchSampler("balls_and_bins", len(dataset), 256')
    snippet = text[text.rindex("```python", 0, start) + len("```python"):text.index("```", start)]
    namespace = {"dataset": _data(), "model": nn.Sequential(nn.Linear(5, 2)), "lr": 0.1}
    exec(compile(snippet, "INTEGRATIONS.md", "exec"), namespace)
    engine, sampler, optimizer = namespace["engine"], namespace["sampler"], namespace["optimizer"]
    assert optimizer.loss_reduction == "sum" and namespace["loader"].batch_sampler is sampler
    assert len(engine.accountant) == len(sampler)
    assert engine.get_epsilon(DELTA) == sampler.accounting().get_epsilon(1.1, DELTA)
