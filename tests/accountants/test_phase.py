"""``Phase`` is a frozen dataclass (issue 45): its checks run in ``__post_init__``; equal and hashed
alike where every resolved attribute is (the engine keeps laws keyed by the run's phases); its
repr the one the answers print; it pickles and copies (its resolved fields are not resolved again)."""

import copy
import dataclasses
import pickle

import pytest

from dpsampling import Phase


def test_a_phase_is_equal_and_hashed_as_its_resolved_run():
    by_epochs = Phase("poisson", 1.1, sampling_rate=0.01, epochs=2)
    by_steps = Phase("poisson", 1.1, sampling_rate=0.01, steps=200, steps_per_epoch=100)
    assert by_epochs == by_steps and hash(by_epochs) == hash(by_steps)
    assert by_epochs != Phase("poisson", 1.1, sampling_rate=0.01, steps=200)  # no epochs recorded
    assert by_epochs != by_epochs.with_sigma(1.2)
    assert repr(by_epochs) == ("Phase('poisson', sigma=1.1, steps=200, steps_per_epoch=100, epochs=2, "
                               "sampling_rate=0.01)")


def test_a_phase_is_frozen_and_copies_without_a_second_resolution():
    phase = Phase("balls_and_bins", 1.0, dataset_size=1000, batch_size=10, epochs=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        phase.sigma = 2.0
    assert pickle.loads(pickle.dumps(phase)) == phase == copy.copy(phase)
    moved = phase.with_sigma(2.0)
    assert (moved.sigma, moved.steps, moved.epochs, phase.sigma) == (2.0, 300, 3, 1.0)
    with pytest.raises(ValueError, match="sigma must be at most"):
        phase.with_sigma(1e5)


def test_the_checks_run_at_construction():
    with pytest.raises(ValueError, match="sampling_rate applies to samplers"):
        Phase("shuffle", 1.0, sampling_rate=0.1, steps_per_epoch=10, epochs=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'step'"):
        Phase("poisson", 1.0, sampling_rate=0.1, step=10)
    with pytest.raises(TypeError):
        Phase("poisson", 1.0, 0.1)  # the run's fields are keywords
