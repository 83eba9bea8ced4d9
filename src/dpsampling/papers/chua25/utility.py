"""chua25 Fig. 1: AUC of one epoch of (DP-)SGD with shuffle, Poisson and balls-and-bins batches.

Panels: ``nonprivate`` (plain SGD over batch sizes) and ``dp_b<batch>`` (DP-SGD over sigma at one
expected batch size). Each setting is trained for every learning rate of the config and every
seed; the figure and the claims use, per (panel, generator, batch size, sigma), the learning
rate with the best mean *validation* AUC, and report the *test* AUC (mean and std over seeds).
Poisson and balls-and-bins batches are truncated/padded to the B of chua25 App. C.
"""

from __future__ import annotations

import math
import zlib
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dpsampling.accountants.closed_form.truncation import max_batch_size
from dpsampling.lazy import lazy_import

if TYPE_CHECKING:
    from dpsampling.training.model import Model

# the training code (Numba, SciPy): loaded by the training job's first use, not by the combine and plot jobs
_data = lazy_import("dpsampling.training.data")
_model = lazy_import("dpsampling.training.model")
_sgd = lazy_import("dpsampling.training.sgd")


def load_data(spec: dict, seed: int):
    """(train, validation, test) from the config's data block."""
    source = spec["source"]
    if source == "synthetic":
        full = _data.synthetic_ctr(spec["rows"], seed=seed, buckets=spec["buckets"])
        chronological = True
    elif source == "criteo_pctr":
        full, chronological = _data.load_criteo_pctr(spec["path"], buckets=spec["buckets"]), True
    else:
        full, chronological = _data.load_criteo_search(spec["path"], buckets=spec["buckets"]), False
    rest, test = _data.split(full, spec["test_fraction"], chronological, seed)
    train_set, validation = _data.split(rest, spec["validation_fraction"], chronological, seed + 1)
    return train_set, validation, test


def model_of(spec: dict) -> Model:
    """The configured model (logistic regression unless ``model: mlp``)."""
    return _model.Model(spec.get("model", _model.Model.kind), spec.get("hidden_units", _model.Model.hidden_units)).validate()


def panel_settings(panel: str, spec: dict) -> list[tuple[int, float]]:
    """(expected batch size, sigma) pairs of a panel."""
    if panel == "nonprivate":
        return [(b, 0.0) for b in spec["nonprivate_batch_sizes"]]
    batch = int(panel.removeprefix("dp_b"))
    return [(batch, s) for s in spec["sigmas"]]


def panels(spec: dict) -> list[str]:
    return ["nonprivate"] + [f"dp_b{b}" for b in spec["dp_batch_sizes"]]


def _seed(root: int, *parts) -> int:
    words = [root] + [zlib.crc32(str(p).encode()) for p in parts]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def run_panel(panel: str, spec: dict, root_seed: int, progress=None) -> pd.DataFrame:
    """Every (generator, batch, sigma, learning rate, seed) run of one panel, one row each."""
    train_set, validation, test = load_data(spec["data"], root_seed)
    rows = []
    settings = panel_settings(panel, spec)
    model = model_of(spec)
    for k, (batch, sigma) in enumerate(settings):
        steps = _sgd.steps_per_epoch(len(train_set), batch)
        limit = max_batch_size(len(train_set), batch, steps, spec["truncation"]["epsilon"], spec["truncation"]["delta"])
        if progress:
            progress(f"{panel}: batch {batch}, sigma {sigma:g} ({k + 1}/{len(settings)}), B = {limit}")
        for generator in spec["generators"]:
            for rate in spec["learning_rates"]:
                for repeat in range(spec["seeds"]):
                    private = sigma > 0
                    run = _sgd.TrainingSettings(
                        generator, batch, sigma=sigma, clip_norm=spec["clip_norm"] if private else math.inf,
                        learning_rate=rate, optimizer=spec["optimizer"], model=model,
                        max_batch_size=limit if generator in _sgd.TRUNCATED_GENERATORS else None)
                    theta, info = _sgd.train(train_set, run, _seed(root_seed, "chua25_fig1", panel, generator, batch,
                                                              sigma, rate, repeat))
                    rows.append(dict(panel=panel, generator=generator, batch_size=batch, sigma=sigma,
                                     learning_rate=rate, seed=repeat, validation_auc=_sgd.evaluate_auc(theta, validation, model),
                                     test_auc=_sgd.evaluate_auc(theta, test, model), steps=info["steps"], max_batch_size=limit,
                                     truncated_batches=info["truncated_batches"],
                                     truncation_delta_eps10=info.get("truncation_delta_eps10", 0.0),
                                     train_rows=len(train_set)))
    return pd.DataFrame(rows)


def select_learning_rates(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (panel, generator, batch, sigma): the runs of the learning rate with the best mean validation AUC."""
    keys = ["panel", "generator", "batch_size", "sigma"]
    means = runs.groupby(keys + ["learning_rate"], as_index=False)["validation_auc"].mean()
    best = means.loc[means.groupby(keys)["validation_auc"].idxmax(), keys + ["learning_rate"]]
    return runs.merge(best, on=keys + ["learning_rate"])


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean, std and count of the test AUC per setting, at the selected learning rate."""
    chosen = select_learning_rates(runs)
    return (chosen.groupby(["panel", "generator", "batch_size", "sigma", "learning_rate"], as_index=False)["test_auc"]
            .agg(mean="mean", std="std", count="count"))


def combine_runs(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """All panels' runs, with ``selected`` marking the runs at each setting's chosen learning rate."""
    runs = pd.concat(frames, ignore_index=True)
    keys = ["panel", "generator", "batch_size", "sigma", "learning_rate"]
    chosen = select_learning_rates(runs)[keys].drop_duplicates().assign(selected=True)
    runs = runs.merge(chosen, how="left", on=keys)
    runs["selected"] = runs["selected"].astype("boolean").fillna(False).astype(bool)
    return runs
