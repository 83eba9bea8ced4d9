"""``python -m dpsampling.benchmark.matrix`` on small settings (jax-privacy rows skipped without it).

Statistical assertions use beta = 1e-6 per bound: an ``agrees`` flag is False for a fresh seed with
probability <= 4e-6 (each interval misses delta w.p. <= 2e-6); 4 flags here, <= 2e-5 in all.
"""

import numpy as np
import pytest

from dpsampling.accountants.matrix import MatrixRun
from dpsampling.benchmark.matrix import CERTIFIED_SETTINGS, certified_rows, run_benchmark

pytest.importorskip("jax_privacy.experimental.monte_carlo")

SMALL = {
    "fixed_bins_T10_k10": MatrixRun([1.0, 0.5], "fixed_balls_and_bins", 0.7, 10, cycle_length=10),
    "bminsep_T40": MatrixRun([1.0, 0.6], "b_min_sep", 1.0, 40, min_separation=3, sampling_rate=0.2),
}


def test_side_by_side_rows_agree_and_report_the_event():
    table = run_benchmark(samples=3000, beta=1e-6, settings=SMALL).set_index(["setting", "implementation"])
    ours = table.xs("dpsampling plain", level="implementation")
    assert ours.loc[list(SMALL), "agrees"].astype(bool).all()
    assert table.xs("dpsampling importance", level="implementation").loc[list(SMALL), "agrees"].astype(bool).all()
    # the single-cycle fixed-bins event is a real restriction (chua25's gain), the 40-step b-min-sep one is not
    importance = table.xs("dpsampling importance", level="implementation")["event_mass"]
    assert importance["fixed_bins_T10_k10"] < 0.9 and importance["bminsep_T40"] > 0.999
    assert np.all(table.loc[list(SMALL), "samples_per_second"] > 0)


def test_cyclic_poisson_pld_meets_the_certified_bracket():
    """dp_accounting's PLD (pessimistic: an upper bound on delta) of jax-privacy's event is >= our
    certified lower bound and within 1 % of our upper bound (with sigma in place of sigma / ||c|| the
    two differ by far more)."""
    (name, run), = CERTIFIED_SETTINGS.items()
    ours, theirs = certified_rows(name, run, 2.0)
    assert ours["delta_lower"] <= theirs["delta_estimate"]
    assert abs(theirs["delta_estimate"] / ours["delta_upper"] - 1) < 0.01
