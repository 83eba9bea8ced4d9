"""The benchmark code path on tiny sizes: CSV columns, NaN without the reference, and the
agreement check catching a wrong estimator (with a fake reference built from our own sampler);
the real reference (random-allocation) only where it is installed.

Statistical checks: the agreement check itself (|z| <= 4.5: 6.8e-6; KS p >= 1e-4: 1e-4 per
case for a correct pair, at fixed seeds deterministic), 9 cases below: false failure < 1e-3.
The "wrong estimator" fakes are off by far more than the checks' resolution at these sizes.
"""

import json
import math
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsampling.accountants import ballsbins as bb
from dpsampling.benchmark import (
    CASES,
    COLUMNS,
    BenchmarkDisagreement,
    Case,
    load_reference,
    run_benchmark,
    write_outputs,
)
from dpsampling.benchmark.__main__ import main

TINY = (
    Case("order_statistics", "order_statistics", 0.5, 200, 3000, "remove", 1.0, "1..5,10..150/10"),
    Case("importance", "importance", 0.5, 50, 3000, "remove", 2.0),
    Case("naive", "naive", 0.5, 50, 3000, "remove", 1.0),
)


class FakeReference:
    """A stand-in for random-allocation built from our own sampler (independent seeds);
    ``shift`` moves every loss, ``scale`` multiplies the delta estimate."""

    name, version = "fake", "0"

    def __init__(self, shift=0.0, scale=1.0):
        self.shift, self.scale = shift, scale

    def _samples(self, case, samples, seed):
        law = bb.LossLaw(case.method, case.sigma, case.steps, case.direction, case.orders,
                         case.epsilon if case.method == "importance" else None)
        return bb.sample_losses(law, samples, seed=seed + 1000)

    def estimate(self, case, seed):
        drawn = self._samples(case, case.samples, seed)
        estimate = bb.estimate_delta(drawn.losses + self.shift, [case.epsilon],
                                     log_weight=drawn.log_weight, minimum_epsilon=drawn.minimum_epsilon)
        return self.scale * float(estimate.mean()[0]), float(estimate.standard_error()[0])

    def losses(self, case, samples, seed):
        return self._samples(case, samples, seed).losses + self.shift


def test_tables_and_sidecar_with_a_correct_reference(tmp_path):
    table, document = run_benchmark(TINY, repeats=2, reference=FakeReference(), ks_samples=3000)
    assert list(table.columns) == COLUMNS
    assert list(table["case"]) == ["order_statistics", "importance", "naive"]
    assert np.all(table[COLUMNS[1:]].to_numpy() > 0)
    np.testing.assert_allclose(table["speedup"], table["reference_seconds"] / table["ours_seconds"])
    np.testing.assert_allclose(table["ours_samples_per_second"] * table["ours_seconds"], 3000)
    for record in document["cases"]:
        assert record["agreement"]["agree"] and len(record["ours"]["seconds"]) == 2
    write_outputs(table, document, tmp_path / "t.csv", tmp_path / "t.json")
    again = pd.read_csv(tmp_path / "t.csv")
    assert list(again.columns) == COLUMNS
    assert json.loads((tmp_path / "t.json").read_text())["reference"] == {"package": "fake", "version": "0"}


@pytest.mark.parametrize("wrong", [FakeReference(shift=0.3), FakeReference(scale=2.0)])
def test_agreement_check_catches_a_wrong_estimator(wrong):
    # naive case: delta(1) ~ 0.03 with m = 3000, so doubling it is ~10 standard errors and a
    # loss shift of 0.3 moves the KS statistic to ~0.1 (p ~ 1e-13)
    with pytest.raises(BenchmarkDisagreement, match="naive"):
        run_benchmark(TINY[2:], repeats=1, reference=wrong, ks_samples=3000)


def test_without_reference_the_reference_columns_are_nan(tmp_path):
    table, document = run_benchmark(TINY[2:], repeats=1, reference=None)
    assert list(table.columns) == COLUMNS
    assert math.isnan(table["reference_seconds"][0]) and math.isnan(table["speedup"][0])
    assert document["reference"] is None and document["cases"][0]["agreement"] is None
    write_outputs(table, document, tmp_path / "t.csv", tmp_path / "t.json")
    assert (tmp_path / "t.csv").read_text().splitlines()[1].split(",")[2:4] == ["NaN", "NaN"]


def test_command_line(tmp_path, capsys):
    output = tmp_path / "mc.csv"
    assert main(["--cases", "naive", "--scale", "1e-3", "--repeats", "1", "--no-reference",
                 "--output", str(output)]) == 0
    assert list(pd.read_csv(output).columns) == COLUMNS
    assert json.loads(output.with_suffix(".json").read_text())["cases"][0]["case"]["samples"] == 20
    assert main(["--repeats", "0", "--output", str(output)]) == 2
    assert capsys.readouterr().err.strip().endswith("--repeats must be an integer >= 1; got 0")


def test_cases_are_the_stated_ones():
    orders = bb.parse_orders(CASES[0].orders)
    assert orders.size == CASES[0].order_count == 590 and orders[-1] == 50_000
    assert [(c.method, c.sigma, c.steps, c.samples, c.direction) for c in CASES] == [
        ("order_statistics", 0.32, 100_000, 100_000, "remove"),
        ("importance", 0.4, 5000, 200_000, "remove"),
        ("naive", 0.4, 10_000, 20_000, "remove")]


def test_missing_reference_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "random_allocation", None)
    monkeypatch.setitem(sys.modules, "random_allocation.external_sources", None)
    reference, reason = load_reference()
    assert reference is None and "\n" not in reason and "pip install --no-deps random-allocation" in reason


reference, _reason = load_reference()
needs_reference = pytest.mark.skipif(
    reference is None, reason="random-allocation is not installed (optional benchmark dependency; "
                              "CI does not install it)")


@needs_reference
def test_real_reference_agrees_on_the_stated_cases_at_tiny_scale():
    cases = [case.scaled(2e-3) for case in CASES]
    table, document = run_benchmark(cases, repeats=1, reference=reference, ks_samples=2000)
    assert list(table.columns) == COLUMNS and np.all(np.isfinite(table["speedup"]))
    assert all(record["agreement"]["agree"] for record in document["cases"])


@needs_reference
def test_real_reference_uses_the_corrected_add_threshold():
    """random-allocation's add-direction event uses C = 1/2 + sigma^2 (log T - eps) (ours), not
    the paper's Section 4 C = 1/2 - eps sigma^2; its remove threshold equals the paper's."""
    from random_allocation.external_sources.Monte_Carlo_external import AdjacencyType, BnBAccountant
    accountant = BnBAccountant()
    for direction, adjacency in (("add", AdjacencyType.ADD), ("remove", AdjacencyType.REMOVE)):
        theirs = accountant.get_importance_threshold_value(0.4, 12.0, 5000, adjacency)
        assert theirs == pytest.approx(bb.importance_threshold(0.4, 5000, 12.0, direction), rel=1e-12)
    assert accountant.get_importance_threshold_value(0.4, 12.0, 5000, AdjacencyType.ADD) != \
        pytest.approx(0.5 - 12.0 * 0.4**2)


@needs_reference
def test_real_reference_wrong_case_is_caught():
    """Same code path against the real reference, with our side deliberately mis-specified
    (sigma 0.45 instead of 0.5): the agreement check must fail."""
    case = TINY[2]

    class Mismatched:
        name, version = reference.name, reference.version

        def estimate(self, c, seed):
            return reference.estimate(replace(c, sigma=0.45), seed)

        def losses(self, c, samples, seed):
            return reference.losses(replace(c, sigma=0.45), samples, seed)

    with pytest.raises(BenchmarkDisagreement):
        run_benchmark([case], repeats=1, reference=Mismatched(), ks_samples=3000)


@pytest.mark.workflow
def test_benchmark_target_is_not_in_the_default_dag(tmp_path):
    root = Path(__file__).resolve().parents[2]
    for name in ("Snakefile", "workflow", "scripts", "config"):
        (shutil.copytree if (root / name).is_dir() else shutil.copy)(root / name, tmp_path / name)
    default = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "2"], cwd=tmp_path,
                             capture_output=True, text=True)
    target = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "2", "benchmarks"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert default.returncode == 0 and target.returncode == 0, default.stderr + target.stderr
    assert "mc_throughput" not in default.stdout
    assert "rule mc_throughput:" in target.stdout
