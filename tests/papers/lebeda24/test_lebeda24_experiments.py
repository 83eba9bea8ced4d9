"""The lebeda24 experiment modules without Monte Carlo, each from its tiny-config block: its table
computed, written and read back as the rules do, its figure drawn from it, and its claims read
from it (addremove and pld_cdf need the sharded Monte Carlo: tests/papers/lebeda24/test_lebeda24_workflow.py)."""

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dpsampling.io import read_table, write_table
from dpsampling.papers.lebeda24 import addremove
from dpsampling.papers.registry import EXPERIMENTS, load_experiment
from dpsampling.pipeline.claims.base import Missing

TINY = yaml.safe_load((Path(__file__).resolve().parents[3] / ".test/config/config.yaml").read_text())["lebeda24"]
QUIET = {"progress": lambda message: None}


def _sigma_vs_rate(module, spec):
    curves = [("poisson", e) for e in spec["poisson_epsilons"]] + [("wor", e) for e in spec["wor_epsilons"]]
    return {"sigma": pd.concat([module.sigma_vs_rate_curve(spec, s, e, **QUIET) for s, e in curves], ignore_index=True)}


COMPUTE = {  # experiment -> {plot input or result name: frame}
    "lebeda24_sigma_vs_rate": _sigma_vs_rate,
    "lebeda24_table1": lambda module, spec: {"table1": module.table1(spec, **QUIET)},
    "lebeda24_substitution": lambda module, spec: {"curves": module.substitution_laplace(spec)},
    "lebeda24_subst_gaussian": lambda module, spec: dict(zip(("composed", "single_step"), module.subst_gaussian(spec))),
    "lebeda24_rr": lambda module, spec: {"rr": module.randomized_response_table(spec)},
    "lebeda24_conj12": lambda module, spec: {"grid": module.conjecture12(spec, **QUIET)},
}


def test_every_lebeda24_experiment_is_registered_with_its_module():
    ids = [e for e in EXPERIMENTS if e.startswith("lebeda24_")]
    assert ids == ["lebeda24_addremove", "lebeda24_pld_cdf", "lebeda24_sigma_vs_rate", "lebeda24_table1",
                   "lebeda24_substitution", "lebeda24_subst_gaussian", "lebeda24_rr", "lebeda24_conj12"]
    for experiment in ids:
        module = load_experiment(experiment)
        assert module.EXPERIMENT.id == experiment and all(c.experiment == experiment for c in module.CLAIMS)
        figure = "lebeda24_figure" in module.EXPERIMENT.families
        assert hasattr(module, "plot") == figure == hasattr(module, "PLOT_INPUTS")


@pytest.mark.parametrize("experiment", sorted(COMPUTE))
def test_each_module_computes_draws_and_measures_its_claims(experiment, tmp_path):
    module = load_experiment(experiment)
    spec = TINY[experiment.removeprefix("lebeda24_")]
    tables = {}
    for name, frame in COMPUTE[experiment](module, spec).items():
        write_table(frame, tmp_path / f"{name}.parquet", {"experiment": experiment, "spec": spec})
        tables[name] = read_table(tmp_path / f"{name}.parquet")
    if hasattr(module, "plot"):
        assert set(tables) == set(module.PLOT_INPUTS)
        pdf, png = tmp_path / "f.pdf", tmp_path / "f.png"
        module.plot(tables, pdf, png)
        assert pdf.stat().st_size > 1000 and png.stat().st_size > 1000
    measured = 0
    for claim in module.CLAIMS:
        frame = tables[claim.result_file.removesuffix(".parquet")][0]
        try:
            value, note = claim.measure(frame)
        except Missing:
            continue
        assert isinstance(note, str)
        measured += not math.isnan(value)
    assert measured >= 1


def test_addremove_reads_the_paper_sample_size_from_its_formula():
    table = addremove.sample_size(TINY["addremove"])
    claim = next(c for c in addremove.CLAIMS if c.claim_id == "lebeda24_addremove_sample_size")
    value, _ = claim.measure(table)
    assert value == 4_493_599  # the formula at the paper's alpha, beta, |E| (the paper states 3,342,306)
