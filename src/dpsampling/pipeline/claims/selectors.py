"""Reading one number out of a long result table (direction 'max' unless asked)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.pipeline.claims.base import Missing


def _one(rows: pd.DataFrame, column: str, what: str) -> float:
    if rows.empty:
        raise Missing(f"{what} is not in the results (not in this config's grid)")
    return float(rows[column].iloc[0])


def epsilon_at(frame, sigma, sampler, method, bound, steps=None, direction="max") -> float:
    rows = frame[np.isclose(frame["sigma"], sigma) & (frame["sampler"] == sampler) & (frame["method"] == method)
                 & (frame["bound"] == bound) & (frame["direction"] == direction)]
    if steps is not None:
        rows = rows[rows["steps"] == steps]
    return _one(rows, "epsilon", f"sigma={sigma} (T={steps})")


def delta_at(frame, epsilon, sampler, method, bound, direction="max") -> float:
    rows = frame[np.isclose(frame["epsilon"], epsilon) & (frame["sampler"] == sampler) & (frame["method"] == method)
                 & (frame["bound"] == bound) & (frame["direction"] == direction)]
    return _one(rows, "delta", f"eps={epsilon}")


def curve(frame, sampler, method, bound, direction="max") -> pd.DataFrame:
    rows = frame[(frame["sampler"] == sampler) & (frame["method"] == method) & (frame["bound"] == bound)
                 & (frame["direction"] == direction)].sort_values("epsilon")
    if rows.empty:
        raise Missing(f"{sampler} {method} {bound} curve is not in the results")
    return rows
