"""The root sampler registry (``dpsampling.samplers``): one entry per sampler, and every layer's
table of laws keyed by it."""

import numpy as np
import pytest

from dpsampling import batches
from dpsampling.accountants.samplers import LAWS, sampler_spec
from dpsampling.samplers import (
    GENERATORS,
    PAPER_RATE_BASED,
    PAPER_SAMPLERS,
    RATE_BASED,
    SAMPLER_NAMES,
    SAMPLERS,
    VARIABLE_SIZE,
    by_letter,
    generator_entry,
    legend_name,
)


def test_names_letters_and_colours_are_one_per_sampler():
    for field in ("name", "letter", "label", "colour"):
        values = [getattr(spec, field) for spec in SAMPLERS.values()]
        assert len(set(values)) == len(values), field
    assert all(by_letter(spec.letter) is spec for spec in SAMPLERS.values())


def test_every_layer_keys_its_laws_by_the_registry():
    assert tuple(LAWS) == tuple(batches.PLANS) == SAMPLER_NAMES
    for name in SAMPLER_NAMES:
        assert sampler_spec(name).entry is SAMPLERS[name]
    for name in PAPER_SAMPLERS:
        assert generator_entry(name) is SAMPLERS[name]
    assert set(GENERATORS) == {*PAPER_SAMPLERS, "balls_and_bins_sequential"}
    assert generator_entry("balls_and_bins_sequential") is SAMPLERS["balls_and_bins"]
    # the correlated-noise samplers: a run plan (one stream for the whole run), accounted through the matrix face
    assert set(batches.RUN_PLANS) == {name for name, spec in SAMPLERS.items() if spec.matrix_only}
    assert set(batches.EPOCH_PLANS) == set(PAPER_SAMPLERS) == set(batches.LOADER_SAMPLERS)
    assert all(SAMPLERS[name].correlated_noise == name for name in batches.RUN_PLANS)


def test_the_papers_samplers_keep_their_indices_and_orders():
    """The correlated-noise samplers come after the papers' five: every index and order the papers
    use (lebeda24's shard keys index the rate-based ones) is the same as before them."""
    assert SAMPLER_NAMES[:len(PAPER_SAMPLERS)] == PAPER_SAMPLERS == (
        "deterministic", "shuffle", "poisson", "balls_and_bins", "wor")
    assert PAPER_RATE_BASED == RATE_BASED[:len(PAPER_RATE_BASED)] == ("poisson", "wor")
    assert all(SAMPLERS[name].matrix_only for name in SAMPLER_NAMES[len(PAPER_SAMPLERS):])
    assert [spec.letter for spec in SAMPLERS.values()][:len(PAPER_SAMPLERS)] == list("DSPBW")


@pytest.mark.parametrize("name", PAPER_SAMPLERS)
def test_the_loader_fields_describe_the_loader(name):
    """variable_size: a seeded epoch of the loader has batches of different sizes exactly when the
    registry says so (n = 1000, b = 50: at 80 variable batches all of one size has probability
    far below 1e-9); inclusion_rate: the mean batch size is n q within 5 standard errors (a
    false failure has probability below 1e-6). Seeded, so a failure reproduces."""
    sampler = batches.BatchSampler(name, 1000, 50, epochs=4, seed=3)
    sizes = np.array([len(batch) for batch in sampler])
    assert (len(set(sizes)) > 1) == SAMPLERS[name].variable_size
    rate = SAMPLERS[name].inclusion_rate(1000, 50, sampler.steps_per_epoch)
    assert (rate is None) == (name not in RATE_BASED and name not in VARIABLE_SIZE)
    if rate is not None:  # 80 batches: the mean size is within 5 standard errors of n q
        assert abs(sizes.mean() - 1000 * rate) <= 5 * np.sqrt(1000 * rate / len(sizes))


def test_legend_names_and_bad_names():
    assert legend_name("poisson") == "Poisson (P)" and legend_name("wor") == "WOR (W)"
    assert legend_name("b_min_sep") == "b-min-sep (M)"
    with pytest.raises(ValueError, match="sampler must be one of deterministic, shuffle, poisson, balls_and_bins, "
                                         "wor, cyclic_poisson, b_min_sep, fixed_balls_and_bins; got 'uniform'"):
        legend_name("uniform")
    with pytest.raises(ValueError, match="letter must be one of D, S, P, B, W, C, M, F; got 'Q'"):
        by_letter("Q")
    with pytest.raises(ValueError, match="relation must be one of add, remove, add_or_remove for sampler poisson; "
                                         "got 'substitution'"):
        SAMPLERS["poisson"].check_relation("substitution")
