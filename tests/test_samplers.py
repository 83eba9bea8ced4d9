"""The sampler registry (``dpsampling.samplers``): one class per sampler, one instance each,
holding its words, plot style, pair, batch plan, audit words and audit signature."""

import subprocess
import sys

import numpy as np
import pytest

from dpsampling import batches
from dpsampling.samplers import (
    BALLS_AND_BINS,
    GENERATORS,
    PAPER_RATE_BASED,
    PAPER_SAMPLERS,
    POISSON,
    RATE_BASED,
    SAMPLER_NAMES,
    SAMPLERS,
    VARIABLE_SIZE,
    WOR,
    AuditSignature,
    Sampler,
    by_letter,
    generator_entry,
    legend_name,
    sampler_entry,
)


def test_names_letters_and_colours_are_one_per_sampler():
    for field in ("name", "letter", "label", "colour"):
        values = [getattr(spec, field) for spec in SAMPLERS.values()]
        assert len(set(values)) == len(values), field
    assert all(by_letter(spec.letter) is spec for spec in SAMPLERS.values())


def test_each_sampler_is_one_instance_of_its_own_class():
    classes = [type(spec) for spec in SAMPLERS.values()]
    assert len(set(classes)) == len(classes) and all(issubclass(c, Sampler) for c in classes)
    for name, spec in SAMPLERS.items():
        assert spec.name == name and sampler_entry(name) is spec
        assert all(isinstance(getattr(spec, words), str) and getattr(spec, words)
                   for words in ("letter", "title", "label", "colour", "doc", "audit_words", "behaviour"))
        assert isinstance(spec.audit_signature, AuditSignature)  # the audit can name every sampler
        with pytest.raises(AttributeError):  # immutable: no state of its own
            spec.distance = 3.0
    assert repr(POISSON) == "Poisson()" and SAMPLERS["wor"].__class__.__name__ == "WithoutReplacement"


def test_every_sampler_has_its_batch_plan_and_its_pair():
    """The papers' samplers draw an epoch at a time (and by generator name), the correlated-noise
    ones their whole run; a sampler without a pair of its own is answered in closed form or through
    the matrix face (``matrix_only``)."""
    for name in PAPER_SAMPLERS:
        assert generator_entry(name) is SAMPLERS[name]
        assert SAMPLERS[name].epoch_plan is not None and SAMPLERS[name].run_plan is None
    assert set(GENERATORS) == {*PAPER_SAMPLERS, "balls_and_bins_sequential"}
    assert generator_entry("balls_and_bins_sequential") is BALLS_AND_BINS
    matrix_only = {name for name, spec in SAMPLERS.items() if spec.matrix_only}
    assert matrix_only == {name for name, spec in SAMPLERS.items() if spec.run_plan is not None}
    assert set(batches.LOADER_SAMPLERS) == set(PAPER_SAMPLERS)
    assert all(SAMPLERS[name].correlated_noise == name for name in matrix_only)
    assert {name for name, spec in SAMPLERS.items() if spec.laws is not None} == {"poisson", "balls_and_bins", "wor"}
    assert [name for name, spec in SAMPLERS.items() if not spec.composable] == ["shuffle"]
    assert {name for name, spec in SAMPLERS.items() if spec.peers_model} == set(PAPER_RATE_BASED)
    assert WOR.substitution is not None and POISSON.substitution is None
    assert (POISSON.min_sigma, WOR.min_sigma, SAMPLERS["shuffle"].min_sigma) == (0.05, 0.1, 0.0)


def test_importing_the_registry_loads_no_numpy():
    """The CLI's --help reads the names: the classes import their kernels inside their methods."""
    code = "import sys, dpsampling.samplers; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


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
