"""Reading a loader's index batches: epochs, dataset size, padding, and the clear refusals."""

import numpy as np
import pytest

from dpsampling.auditing import draw
from dpsampling.auditing.significance import chernoff_two_sided, never_drawn_partition, overlap
from dpsampling.auditing.verdict import _repeats
from dpsampling.batches import BatchSampler


class DataYielding:
    """An iterable whose batches are data (floats), as a DataLoader's are."""

    def __iter__(self):
        return iter([np.ones((4, 3)), np.ones((4, 3))])


class LoaderOverIterableDataset:
    """The attributes of a torch DataLoader over an IterableDataset: no batch_sampler."""

    dataset = range(10)
    batch_sampler = None
    sampler = object()


def test_each_iter_is_one_epoch_and_the_size_is_the_loader_s():
    loader = BatchSampler("shuffle", 50, 10, epochs=1, seed=3)
    drawn = draw(loader, epochs=1)
    assert drawn.dataset_size == 50 and drawn.epochs == 1 and list(drawn.sizes(0)) == [10] * 5
    assert sorted(drawn.indices[0].tolist()) == list(range(50))


def test_a_list_of_batches_is_reiterable_and_the_size_defaults_to_the_largest_index():
    drawn = draw([[0, 1], [2, 3]], epochs=2)
    assert drawn.epochs == 2 and drawn.dataset_size == 4 and "largest index + 1" in drawn.notes[0]


def test_padding_indices_of_a_truncating_batch_sampler_are_dropped():
    from dpsampling.batches import BatchSampler, Truncation

    sampler = BatchSampler("poisson", 200, 20, epochs=3, truncation=Truncation(max_batch_size=40))
    drawn = draw(sampler, epochs=3)
    assert list(drawn.sizes(0)) == [int((b >= 0).sum()) for b in sampler.epoch(0)]


@pytest.mark.parametrize("index", [-1, -3])
def test_negative_indices_of_any_other_loader_are_refused_issue_42(index):
    """A -1 from a plain loader is not padding: a dataset reads it as its last example."""
    with pytest.raises(ValueError, match=rf"^loader must yield example indices >= 0; got {index} in batch 0 of epoch 0"):
        draw([np.array([3, index, 1]), np.array([0, 1, 2])] * 3, epochs=3, dataset_size=4, steps_per_epoch=2)


@pytest.mark.parametrize("loader, message", [
    (DataYielding(), "^loader must yield 1-D batches of integer example indices; batch 0 of epoch 0"),
    (LoaderOverIterableDataset(), "^loader must have a batch_sampler of indices"),
    (iter([[0, 1], [2, 3]]), "^steps_per_epoch must be given for a one-shot iterator"),
    (42, "^loader must be a DataLoader, a sampler"),
    ([], "^loader must yield at least one epoch"),
])
def test_loaders_that_cannot_be_read_without_data_are_refused(loader, message):
    with pytest.raises(ValueError, match=message):
        draw(loader)


def test_an_index_beyond_the_dataset_is_refused():
    with pytest.raises(ValueError, match="^dataset_size must exceed every index drawn; got 3 with index 3"):
        draw([[0, 3]], dataset_size=3)


def test_a_sampler_of_single_indices_needs_its_batch_size():
    class Sequential:
        def __iter__(self):
            return iter(range(10))

    with pytest.raises(ValueError, match="^batch_size must be given for a sampler of single indices"):
        draw(Sequential())
    assert list(draw(Sequential(), batch_size=4, epochs=1).sizes(0)) == [4, 4, 2]


def test_a_one_shot_stream_is_cut_into_epochs():
    stream = (np.array([i % 6, (i + 3) % 6]) for i in range(9))
    drawn = draw(stream, steps_per_epoch=3, epochs=5)
    assert drawn.epochs == 3 and "ended after 3 of the 5 epochs" in drawn.notes[0]


def test_overlap_and_repeats_count_as_the_naive_loops_do():
    rng = np.random.default_rng(0)
    n = 40
    batches = [rng.choice(n, size=rng.integers(1, 15), replace=False) for _ in range(9)]
    drawn = draw(batches, epochs=1, dataset_size=n)
    observed, mean, _ = overlap(drawn.indices[0], drawn.offsets[0], n)
    assert observed == sum(len(set(batches[t]) & set(batches[t + 1])) for t in range(0, 8, 2))
    assert mean == pytest.approx(sum(len(batches[t]) * len(batches[t + 1]) for t in range(0, 8, 2)) / n)
    repeated = draw([[1, 2, 1], [3, 3, 3, 4], [5]], epochs=1, dataset_size=6)
    assert _repeats(repeated, [0]) == (2, 3)


def test_the_overlap_tails_are_conservative_against_the_exact_hypergeometric():
    """One pair of batches of sizes 30 and 30 out of 100: the Chernoff p-value is at least the
    exact two-sided tail probability at every count."""
    from scipy import stats

    law = stats.hypergeom(100, 30, 30)
    for observed in range(31):
        exact = min(1.0, 2 * min(law.cdf(observed), law.sf(observed - 1)))
        assert chernoff_two_sided(observed, law.mean()) >= exact


def test_the_never_drawn_union_bound_is_at_least_the_simulated_probability():
    """n 12, 3 epochs each leaving out 4 uniform examples: P(at least 1 left out of all three)
    (simulated, 20,000 runs, seed 0) is below the union bound (its standard error is about 0.002)."""
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(20_000):
        out = [set(rng.choice(12, 4, replace=False)) for _ in range(3)]
        hits += bool(out[0] & out[1] & out[2])
    assert hits / 20_000 <= never_drawn_partition(1, 12, [4, 4, 4])


def test_an_endless_sampler_is_refused(monkeypatch):
    import itertools

    from dpsampling.auditing import sources

    class Endless:
        def __iter__(self):
            return ([i % 5] for i in itertools.count())

    monkeypatch.setattr(sources, "MAX_STEPS", 100)
    with pytest.raises(ValueError, match="^steps_per_epoch must be given for Endless: one iter\\(\\) did not end"):
        draw(Endless())
    assert draw(Endless(), steps_per_epoch=10, epochs=2).epochs == 2


def test_a_data_loader_s_batch_sampler_is_read_as_itself():
    """DataLoader(data, batch_sampler=BatchSampler(..., epochs=3)): one pass of ours is the whole
    run, so it is cut into its own epochs, not iterated once per epoch (duck-typed DataLoader)."""

    class Loader:
        dataset = range(300)
        sampler = None
        batch_sampler = BatchSampler("shuffle", 300, 30, epochs=3, seed=1)

    drawn = draw(Loader(), epochs=3)
    assert drawn.epochs == 3 and all(len(drawn.indices[e]) == 300 for e in range(3))
    assert drawn.source.startswith("Loader.batch_sampler: BatchSampler('shuffle'")
