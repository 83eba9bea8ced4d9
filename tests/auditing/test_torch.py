"""The audit on PyTorch's and Opacus' own loaders (marker ``opacus``; needs torch and opacus, else
skips; the same logic runs without them on the stand-ins of tests/stand_in_loaders.py).

False-failure probability of the naming tests: at most 4 loaders x 2 seeds x alpha 1e-3 = 0.008."""

import warnings

import pytest

torch = pytest.importorskip("torch")
opacus = pytest.importorskip("opacus")

from opacus import PrivacyEngine  # noqa: E402
from opacus.data_loader import DPDataLoader  # noqa: E402
from torch.utils.data import DataLoader, IterableDataset, TensorDataset, WeightedRandomSampler  # noqa: E402

from dpsampling import Accountant, Phase, audit  # noqa: E402
from dpsampling.accountants.frames import headline_value  # noqa: E402
from dpsampling.auditing import check_accountant  # noqa: E402
from dpsampling.auditing.check import rounded  # noqa: E402

pytestmark = pytest.mark.opacus
N, B = 3_000, 50


def _data():
    return TensorDataset(torch.randn(N, 3), torch.randint(0, 2, (N,)))


@pytest.mark.parametrize("seed", [0, 1])
def test_torch_and_opacus_loaders_are_named(seed):
    torch.manual_seed(seed)
    data = _data()
    assert audit(DataLoader(data, batch_size=B, shuffle=True)).sampler == "shuffle"
    assert audit(DataLoader(data, batch_size=B, shuffle=True, drop_last=True)).matches
    assert audit(DataLoader(data, batch_size=B, shuffle=False)).sampler == "deterministic"
    verdict = audit(DPDataLoader.from_data_loader(DataLoader(data, batch_size=B)))
    assert verdict.sampler == "poisson" and verdict.matches


def test_a_weighted_sampler_and_a_reseeded_generator_are_flagged():
    torch.manual_seed(0)
    data = _data()
    weights = torch.where(torch.arange(N) < N // 2, 2.0, 1.0)
    weighted = audit(DataLoader(data, batch_size=B, sampler=WeightedRandomSampler(weights, N)))
    assert not weighted.matches and weighted.finding("repeats") and weighted.bound is None

    class Reseeded(torch.utils.data.RandomSampler):
        def __iter__(self):
            self.generator = torch.Generator().manual_seed(7)
            return super().__iter__()

    reseeded = audit(DataLoader(data, batch_size=B, sampler=Reseeded(data)))
    assert reseeded.finding("epochs_repeat") and not reseeded.matches


def test_a_loader_over_an_iterable_dataset_is_refused():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(torch.randn(10, 3))

    with pytest.raises(ValueError, match="^loader must have a batch_sampler of indices"):
        audit(DataLoader(Stream(), batch_size=2))


def test_an_opacus_engine_without_poisson_sampling_gets_the_mismatch_sentence():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = PrivacyEngine()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer, noise_multiplier=1.1,
                                                       data_loader=DataLoader(_data(), batch_size=B, shuffle=True),
                                                       max_grad_norm=1.0, poisson_sampling=False)
        for _ in range(2):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
    verdict = audit(loader)
    check = check_accountant(verdict, engine, 1e-5)
    steps = 2 * len(loader)
    claimed = headline_value(Accountant(Phase("poisson", 1.1, sampling_rate=1 / len(loader), steps=steps))
                             .epsilon_bounds([1e-5]))
    shuffle = Accountant(Phase("shuffle", 1.1, steps_per_epoch=len(loader), epochs=2)).epsilon_bounds([1e-5])
    assert verdict.sampler == "shuffle" and check.mismatch
    reported = engine.get_epsilon(1e-5)  # Opacus' own answer, said as theirs (issue 42.4)
    assert check.reported == reported
    assert check.sentence.startswith(f"your accountant reports {reported:.5g} as poisson at q = ")
    assert f"(our certified eps for it: {rounded(claimed, True)})" in check.sentence
    assert (f"our certified bracket is [{rounded(headline_value(shuffle, 'lower'), False)}, "
            f"{rounded(headline_value(shuffle), True)}]") in check.sentence
    assert "; to claim eps" in check.sentence
