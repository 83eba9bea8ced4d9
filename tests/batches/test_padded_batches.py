"""Issue 42.2: a padded batch never reaches a dataset as an index. docs/LOADERS.md's outer-epoch
loop passed -1 to the dataset (188 of 404 rows of the first batch were its last example)."""

from __future__ import annotations

import numpy as np
import pytest

from dpsampling.batches import PAD_INDEX, BatchSampler, PaddedBatch, PaddedDataset, Truncation


class Rows:
    """A map-style dataset whose example i is i (what a DataLoader fetches, one index at a time)."""

    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index):
        return int(index) if index >= 0 else self.n + int(index)  # Python's (and torch's) reading of -1


def fetch(dataset, batch):
    """torch's map-style fetch: ``__getitems__`` where the dataset has it, else one index at a time."""
    if hasattr(dataset, "__getitems__"):
        return dataset.__getitems__(batch)
    return [dataset[index] for index in batch]


SAMPLER = BatchSampler("poisson", 1000, 50, epochs=2, truncation=Truncation(delta_target=1e-10))


def test_the_padded_batches_hold_padding_and_a_plain_dataset_refuses_them():
    batch = SAMPLER.epoch(0)[0]
    assert isinstance(batch, PaddedBatch) and (batch == PAD_INDEX).any()
    with pytest.raises(ValueError, match="^a padded batch holds the padding index -1.*PaddedDataset"):
        fetch(Rows(1000), batch)


def test_the_loaders_recipe_gives_every_example_weight_one_and_padding_weight_zero():
    for e in range(SAMPLER.epochs):
        for batch in SAMPLER.epoch(e):
            rows = fetch(PaddedDataset(Rows(1000)), batch)
            examples, weights = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
            real = np.asarray(batch) != PAD_INDEX
            assert np.array_equal(weights, real.astype(np.float32))
            assert np.array_equal(examples[real], np.asarray(batch)[real])
            assert (examples[~real] == 0).all()  # fill_index 0, weighing nothing


def test_numpy_indexing_and_tolist_of_a_padded_batch_work_as_for_any_array():
    batch = SAMPLER.epoch(1)[3]
    assert np.arange(1000)[batch].shape == batch.shape and batch.tolist() == np.asarray(batch).tolist()
    assert type(BatchSampler("poisson", 100, 10, epochs=1).epoch(0)[0]) is np.ndarray  # no truncation: plain


def test_the_outer_epoch_loop_of_docs_loaders_runs_with_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    dataset = TensorDataset(torch.arange(1000, dtype=torch.float32).unsqueeze(1), torch.zeros(1000))
    with pytest.raises(ValueError, match="^a padded batch holds the padding index"):
        next(iter(DataLoader(dataset, batch_sampler=SAMPLER.epoch(0))))
    for e in range(SAMPLER.epochs):
        for ((x, _), w), batch in zip(DataLoader(PaddedDataset(dataset), batch_sampler=SAMPLER.epoch(e)),
                                      SAMPLER.epoch(e)):
            real = np.asarray(batch) != PAD_INDEX
            assert np.array_equal(w.numpy(), real.astype(np.float32))
            assert np.array_equal(x[:, 0].numpy()[real], np.asarray(batch)[real].astype(np.float32))
