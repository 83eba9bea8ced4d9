"""One entry point for every accounted sampler: tables of (eps, delta) bounds.

``delta_table`` answers delta for each eps, ``epsilon_table`` eps for each delta. Every row has
the maximum over the two adjacency directions (``*_lower``, ``*_upper``) and each direction
(``remove_*``, ``add_*``); a bound nobody knows is NaN (``null`` in JSON). What each sampler's
bounds are:

- deterministic: exact (lower = upper), Prop. 3.1;
- poisson: the certified engine's lower and upper bounds (``accountants.certified``; or, with
  ``pld_method="dp_accounting"``, dp-accounting's optimistic and pessimistic PLDs), plus the RDP upper bound
  (``*_upper_rdp``, maximum over directions only);
- shuffle: the E_C lower bound of chua24 (3) and the upper bound delta_S <= delta_D of Thm 4.1;
- wor (sampling without replacement, lebeda24): PLD lower and upper bounds of the Theorem 10.2
  pair (distance 2), RDP upper bound; under substitution the Appendix D bounds
  (``accountants.wor``).

``relation`` (``dpsampling.accountants.relations``) picks what the top-level columns bound: ``add``,
``remove``, ``add_or_remove`` (the default: the maximum of the two directions) or, for wor only,
``substitution``; it is recorded in the column ``relation``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from dpsampling import SAMPLERS
from dpsampling.accountants import deterministic, poisson, shuffle
from dpsampling.accountants import wor as wor_accountant
from dpsampling.accountants.relations import (
    DEFAULT_RELATION,
    check_sampler_relation,
    refined_directions,
    select_relation,
)
from dpsampling.validation import (
    check_array,
    check_choice,
    check_int_at_least,
    check_nonnegative,
    check_open_unit,
    check_positive,
)

ACCOUNTED_SAMPLERS = tuple(s for s in SAMPLERS if s != "balls_and_bins")  # balls_and_bins: accountants.ballsbins


@dataclass(frozen=True)
class AccountingOptions:
    """Numerical settings; every result records them."""

    pld_method: str = "certified"  # poisson and wor: "certified" (accountants.certified) or "dp_accounting"
    pld_discretization: float = 1e-4  # dp_accounting: PLD value discretization to start from
    pld_relative_accuracy: float = 1e-2  # refine until (upper - lower) / upper <= this in every row
    pld_min_discretization: float = 1e-6  # dp_accounting: ... or this interval is reached (pld_converged False)
    c_grid: tuple = shuffle.DEFAULT_C_GRID  # (start, stop, step) of the shuffle C grid
    refine_c: bool = True
    sampling_rate: float | None = None  # Poisson and wor rate; default 1/steps
    refine: str = "all"  # certified bounds: "all" directions to the accuracy, or the "relation"'s alone

    def as_dict(self) -> dict:
        return asdict(self)


def _check_common(sampler, sigma, steps, epochs) -> None:
    check_choice("sampler", sampler, ACCOUNTED_SAMPLERS)
    check_positive("sigma", sigma)
    check_int_at_least("steps", steps, 1)
    check_int_at_least("epochs", epochs, 1)


def _frame(key: str, values, columns: dict) -> pd.DataFrame:
    frame = pd.DataFrame({key: values})
    for name, column in columns.items():
        column = np.asarray(column)
        frame[name] = column if column.dtype.kind in "bUO" else column.astype(float)
    return frame


def _bound_columns(quantity: str, lower: dict, upper: dict) -> dict:
    """Columns {quantity}_{lower,upper} and {direction}_{quantity}_{lower,upper}."""
    columns = {f"{quantity}_lower": lower["max"], f"{quantity}_upper": upper["max"]}
    for direction in ("remove", "add"):
        columns[f"{direction}_{quantity}_lower"] = lower[direction]
        columns[f"{direction}_{quantity}_upper"] = upper[direction]
    return columns


def _pld_record(pld: dict, options: AccountingOptions) -> dict:
    """Per row: the finest PLD interval used, the relative gap reached (largest over the
    directions), whether it met ``pld_relative_accuracy``, and that target."""
    return {"pld_discretization": pld["discretization"], "pld_accuracy": pld["accuracy"],
            "pld_converged": pld["converged"], "pld_relative_accuracy": options.pld_relative_accuracy,
            "pld_method": np.full(len(pld["converged"]), options.pld_method)}


def delta_table(sampler: str, sigma: float, steps: int, epsilons, epochs: int = 1, options=None,
                relation: str = DEFAULT_RELATION) -> pd.DataFrame:
    """delta bounds for each eps (rows) for one sampler, bounding ``relation``."""
    check_sampler_relation(sampler, relation)
    options = options or AccountingOptions()
    directions = refined_directions(options.refine, relation)
    if sampler == "wor":
        _check_common(sampler, sigma, steps, epochs)
        return select_relation(wor_accountant.delta_frame(sigma, steps, epsilons, epochs, options, relation,
                                                         directions), "delta", relation)
    return select_relation(_delta_table(sampler, sigma, steps, epsilons, epochs, options, directions), "delta", relation)


def _delta_table(sampler: str, sigma: float, steps: int, epsilons, epochs: int, options: AccountingOptions,
                 directions) -> pd.DataFrame:
    _check_common(sampler, sigma, steps, epochs)
    eps = check_array("epsilon", epsilons, check_nonnegative)
    if sampler in ("deterministic", "shuffle"):
        exact = deterministic.deterministic_delta(eps, sigma, epochs)
        both = {"max": exact, "remove": exact, "add": exact}
        if sampler == "deterministic":
            return _frame("epsilon", eps, _bound_columns("delta", both, both))
        grid = shuffle.c_grid(*options.c_grid)
        lower = shuffle.shuffle_delta_lower(eps, sigma, steps, epochs, grid, options.refine_c)
        columns = _bound_columns("delta", lower, both)
        columns.update(remove_c=lower["c_remove"], add_c=lower["c_add"])
        return _frame("epsilon", eps, columns)
    run = poisson.PoissonAccounting(sigma, steps, epochs, options.sampling_rate)
    pld = poisson.pld_delta(eps, run, options.pld_discretization, options.pld_relative_accuracy,
                            options.pld_min_discretization, method=options.pld_method, directions=directions)
    columns = _bound_columns(
        "delta",
        {"max": pld["lower"], "remove": pld["remove_lower"], "add": pld["add_lower"]},
        {"max": pld["upper"], "remove": pld["remove_upper"], "add": pld["add_upper"]},
    )
    columns["delta_upper_rdp"] = poisson.poisson_rdp_delta(eps, run)
    return _frame("epsilon", eps, columns | _pld_record(pld, options))


def epsilon_table(sampler: str, sigma: float, steps: int, deltas, epochs: int = 1, options=None,
                  relation: str = DEFAULT_RELATION) -> pd.DataFrame:
    """eps bounds for each delta (rows) for one sampler, bounding ``relation``."""
    check_sampler_relation(sampler, relation)
    options = options or AccountingOptions()
    directions = refined_directions(options.refine, relation)
    if sampler == "wor":
        _check_common(sampler, sigma, steps, epochs)
        return select_relation(wor_accountant.epsilon_frame(sigma, steps, deltas, epochs, options, relation,
                                                           directions), "epsilon", relation)
    return select_relation(_epsilon_table(sampler, sigma, steps, deltas, epochs, options, directions), "epsilon",
                           relation)


def _epsilon_table(sampler: str, sigma: float, steps: int, deltas, epochs: int, options: AccountingOptions,
                   directions) -> pd.DataFrame:
    _check_common(sampler, sigma, steps, epochs)
    deltas = check_array("delta", deltas, check_open_unit)
    if sampler in ("deterministic", "shuffle"):
        exact = deterministic.deterministic_epsilon(deltas, sigma, epochs)
        both = {"max": exact, "remove": exact, "add": exact}
        if sampler == "deterministic":
            return _frame("delta", deltas, _bound_columns("epsilon", both, both))
        grid = shuffle.c_grid(*options.c_grid)
        lower = shuffle.shuffle_epsilon_lower(deltas, sigma, steps, epochs, grid, options.refine_c)
        columns = _bound_columns("epsilon", lower, both)
        columns.update(remove_c=lower["c_remove"], add_c=lower["c_add"])
        return _frame("delta", deltas, columns)
    run = poisson.PoissonAccounting(sigma, steps, epochs, options.sampling_rate)
    pld = poisson.pld_epsilon(
        deltas,
        run,
        options.pld_relative_accuracy,
        max_discretization=options.pld_discretization,
        min_discretization=options.pld_min_discretization,
        method=options.pld_method,
        directions=directions,
    )
    columns = _bound_columns(
        "epsilon",
        {"max": pld["lower"], "remove": pld["remove_lower"], "add": pld["add_lower"]},
        {"max": pld["upper"], "remove": pld["remove_upper"], "add": pld["add_upper"]},
    )
    columns["epsilon_upper_rdp"] = poisson.poisson_rdp_epsilon(deltas, run)
    return _frame("delta", deltas, columns | _pld_record(pld, options))
