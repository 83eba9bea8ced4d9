"""The papers' accounting tables: the face's answers (``dpsampling.Accountant``, its long frame made
wide by ``frames.wide`` and joined) in the layout every experiment table keeps, one row per query
value. Nothing here computes a bound: every number is the face's.

A paper's run is T steps per epoch for K epochs (chua24, chua25, lebeda24): ``paper_phase`` builds
its ``Phase`` -- a rate-based sampler (Poisson, WOR) at rate 1/T unless the paper gives another,
over K T steps; an epoch-based one (deterministic, shuffle, balls-and-bins) as K epochs of T
steps. ``bounds_table`` answers delta at eps values (quantity "delta") or eps at delta values
("epsilon") with the columns

- ``{q}_lower``, ``{q}_upper``: the relation's headline row; ``{remove,add}_{q}_{lower,upper}``;
- rate-based samplers only (the subsampled pairs, dp-accounting has an RDP accountant for them):
  ``{q}_upper_rdp``, the upper bound of the face's reference method ``method="rdp"`` (RDP of the
  remove/add pair: Poisson's at sigma / distance; under substitution WOR's replace-one RDP),
  and how the certified bounds were computed: ``pld_discretization`` (the engine's final grid
  step), ``pld_accuracy`` (the largest relative gap over the refined directions, 0 where the upper
  bound is below the engine's floor, as the engine counts it), ``pld_converged``,
  ``pld_relative_accuracy`` (asked for) and ``pld_method``;
- ``relation``.

Nothing here compares sampler names: what a sampler is comes from its registry entry.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsampling.accountants.frames import QUANTITY, wide
from dpsampling.accountants.relations import DIRECTION_NAMES
from dpsampling.accountants.run import Phase
from dpsampling.lazy import lazy_import
from dpsampling.samplers import EXACT, sampler_entry

_accountant = lazy_import("dpsampling.accountants.accountant")  # the engine: loaded by the first query, not by the registry

PLD_METHOD = "certified"
"""What the ``pld_method`` column says: the certified engine (the face's default method)."""


def paper_phase(sampler: str, sigma: float, steps: int, epochs: int = 1, sampling_rate: float | None = None) -> Phase:
    """T = ``steps`` steps per epoch for ``epochs`` epochs of ``sampler`` (module docstring)."""
    if sampler_entry(sampler).rate_based:
        rate = 1.0 / steps if sampling_rate is None else sampling_rate
        return Phase(sampler, sigma, steps=steps * epochs, sampling_rate=rate)
    return Phase(sampler, sigma, steps_per_epoch=steps, epochs=epochs)


def sampler_distance(sampler: str) -> float:
    """Distance between the two components of a rate-based sampler's dominating pair (data in
    [-1, 1]): the sensitivity of the Gaussian mechanism one step of it is at rate 1 (Poisson 1,
    WOR 2: lebeda24 Prop. 9, Thm 10.2), read from the registry."""
    return sampler_entry(sampler).distance


def exact(sampler: str) -> bool:
    """Whether the sampler's bounds are exact (its lower and upper bounds are one closed form)."""
    spec = sampler_entry(sampler)
    return spec.lower_method == spec.upper_method == EXACT


def rdp_upper(phase: Phase, quantity: str, values, relation: str = "add_or_remove") -> np.ndarray:
    """RDP upper bound (the relation's headline) of a rate-based phase: the face's reference method
    ``method="rdp"`` (dp-accounting, Mironov 2017 conversion: Poisson's RDP at sigma / distance;
    under substitution WOR's replace-one RDP, Wang et al. 2019)."""
    accountant = _accountant.Accountant(phase, relation=relation, method="rdp")
    frame = accountant.delta_bounds(values) if quantity == "delta" else accountant.epsilon_bounds(values)
    return wide(frame)[f"{quantity}_upper"].to_numpy()


def _engine_accuracy(frame: pd.DataFrame, quantity: str, n: int) -> np.ndarray:
    """Per query value: the largest gap over the refined directions, 0 where the upper bound is at
    or below the engine's floor (``certified.engine.direction_gaps``)."""
    computation = frame.attrs["computation"]
    floor = computation.get("accuracy_floor", 0.0)
    gaps = frame["accuracy"].to_numpy().reshape(n, len(DIRECTION_NAMES))
    upper = frame[f"{quantity}_upper"].to_numpy().reshape(n, len(DIRECTION_NAMES))
    gaps = np.where(upper > floor, gaps, 0.0)
    columns = [DIRECTION_NAMES.index(d) for d in computation.get("directions_refined", DIRECTION_NAMES)]
    return gaps[:, columns].max(axis=1)


def bounds_table(phase: Phase, quantity: str, values, *, relation: str = "add_or_remove",
                 accuracy: float = 0.01, refine: str = "all") -> pd.DataFrame:
    """``quantity`` ("delta" or "epsilon") bounds of ``phase`` at ``values`` (module docstring)."""
    accountant = _accountant.Accountant(phase, relation=relation, accuracy=min(accuracy, 0.5), refine=refine)
    values = np.asarray(values, dtype=float)
    frame = accountant.delta_bounds(values) if quantity == "delta" else accountant.epsilon_bounds(values)
    n = values.size
    columns = [QUANTITY[quantity], f"{quantity}_lower", f"{quantity}_upper",
               *(f"{d}_{quantity}_{b}" for d in ("remove", "add") for b in ("lower", "upper"))]
    out = wide(frame)[columns].copy()
    if phase.spec.rate_based:
        out[f"{quantity}_upper_rdp"] = rdp_upper(phase, quantity, values, relation)
        gaps = _engine_accuracy(frame, quantity, n)
        out["pld_discretization"] = float(frame.attrs["computation"].get("grid_step", np.nan))
        out["pld_accuracy"] = gaps
        out["pld_converged"] = gaps <= accuracy
        out["pld_relative_accuracy"] = accuracy
        out["pld_method"] = PLD_METHOD
    out["relation"] = relation
    out.attrs.update(frame.attrs)
    return out


def delta_table(phase: Phase, epsilons, **options) -> pd.DataFrame:
    """delta bounds at each eps (``bounds_table``)."""
    return bounds_table(phase, "delta", epsilons, **options)


def epsilon_table(phase: Phase, deltas, **options) -> pd.DataFrame:
    """eps bounds at each delta (``bounds_table``)."""
    return bounds_table(phase, "epsilon", deltas, **options)


__all__ = ["PLD_METHOD", "bounds_table", "delta_table", "epsilon_table", "exact", "paper_phase", "rdp_upper",
           "sampler_distance"]
