"""chua25 Fig. 1's module: panels from the config, a figure drawn from runs trained for real on the
tiny config (a smaller synthetic set), and its three claims read from that table."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from dpsampling.papers.chua25 import fig1
from dpsampling.papers.chua25.utility import combine_runs, run_panel
from dpsampling.papers.registry import EXPERIMENTS
from dpsampling.pipeline.claims.base import Missing

TINY = yaml.safe_load((Path(__file__).resolve().parents[3] / ".test/config/config.yaml").read_text())
SPEC = dict(TINY["chua25"]["fig1"], data=dict(TINY["chua25"]["fig1"]["data"], rows=4000))


def test_the_module_is_registered_with_its_panels_and_outputs():
    assert EXPERIMENTS["chua25_fig1"].module == fig1.__name__
    assert fig1.panels(TINY) == ["nonprivate", "dp_b512"]
    assert fig1.EXPERIMENT.outputs(TINY)[0] == "results/chua25_fig1/auc.parquet"
    assert [c.experiment for c in fig1.CLAIMS] == ["chua25_fig1"] * 3


@pytest.fixture(scope="module")
def runs():
    return combine_runs([run_panel(panel, SPEC, 0) for panel in fig1.panels(TINY)])


def test_the_figure_and_the_claims_read_the_runs(runs, tmp_path):
    pdf, png = tmp_path / "fig1.pdf", tmp_path / "fig1.png"
    fig1.plot(runs, {"spec": SPEC}, pdf, png)
    assert pdf.stat().st_size > 1000 and png.stat().st_size > 1000
    measured = 0
    for claim in fig1.CLAIMS:
        try:
            value, note = claim.measure(runs)
        except Missing:
            continue
        assert np.isfinite(value) and isinstance(note, str)
        measured += 1
    assert measured >= 2  # the B ~ S and DP-similar tests need only the configured points
