"""The one result shape: a long frame, one row per query value and direction, checked before it
leaves the library; and the one wide view made from it.

Long frame (``bounds_frame``): columns ``epsilon`` (a delta query) or ``delta`` (an eps query),
``direction`` (remove, add, max), ``{quantity}_lower``, ``{quantity}_upper``, ``accuracy`` (the
relative gap (upper - lower) / upper reached in that row), ``converged`` (gap <= the accuracy
asked for), ``lower_method`` and ``upper_method`` (how each bound was computed; where several
valid upper bounds exist the row holds the smallest and names it). ``frame.attrs``: the run
(``phases``), the ``relation`` and its ``headline`` row, the accuracy asked for, the package
version, the ``method`` that answered and its ``method_label`` (what its upper bound is: certified,
or a reference method's, never called certified) and how the bounds were computed
(``computation``: engine grid, refinements, ...).

``wide`` makes one row per query value: the relation's headline bounds, then each direction's.
"""

from __future__ import annotations

import numpy as np

from dpsampling import __version__
from dpsampling.accountants import printed
from dpsampling.accountants.relations import DIRECTION_NAMES

QUANTITY = {"delta": "epsilon", "epsilon": "delta"}
"""The query key of each answered quantity: delta bounds are answered at eps values, and back."""


class AccountingError(RuntimeError):
    """An answer failed its own checks (lower above upper, not a number): a fault of this library,
    never of the input; nothing is returned."""


class Refused(ValueError):
    """A run the engine finds, while computing, it cannot answer within its limits (e.g. a grid
    larger than max_grid_points): a refusal of the input, one line, like every ValueError here."""


class NoFiniteBound(Refused):
    """An eps query whose delta the engine's proven floor (tails moved or cut, their rounding)
    already reaches: no finite eps is certified there. The CLI and the face refuse it; an adapter
    whose protocol answers a number (dp_accounting's get_epsilon) answers inf, the trivial bound."""


def relative_gaps(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """(upper - lower) / upper (0 where both are 0, inf where upper is inf and lower is not)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        gaps = np.where(upper > 0, (upper - lower) / np.where(upper > 0, upper, 1.0), 0.0)
    return np.where(np.isinf(upper), np.where(np.isinf(lower), 0.0, np.inf), gaps)


def check_bounds(bounds: np.ndarray, quantity: str, values: np.ndarray) -> None:
    """Every row: no NaN, 0 <= lower <= upper (delta: <= 1), else AccountingError (one line)."""
    lower, upper = bounds[..., 0], bounds[..., 1]
    bad = np.isnan(bounds).any(axis=-1) | (lower < 0) | (lower > upper)
    if quantity == "delta":
        bad |= upper > 1.0
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise AccountingError(f"internal error: the {quantity} bounds at {QUANTITY[quantity]} = {values[row]:g} "
                              f"({DIRECTION_NAMES[column]}) are [{lower[row, column]!r}, {upper[row, column]!r}], "
                              "not a valid bracket; please report it with the command that produced it")


class LongRows:
    """The long frame before pandas: its ``columns`` (name -> numpy array, in order) and ``attrs``.
    ``frame()`` is the DataFrame (pandas is imported then, not before: a command that prints an
    answer never imports it); ``records()`` are its rows as dicts, the same values. Every function
    below takes either."""

    def __init__(self, columns: dict, attrs: dict):
        self.columns = columns
        self.attrs = attrs

    def frame(self):
        import pandas as pd

        frame = pd.DataFrame(self.columns)
        frame.attrs.update(self.attrs)
        return frame

    def records(self) -> list[dict]:
        names = list(self.columns)
        return [dict(zip(names, values)) for values in zip(*(column.tolist() for column in self.columns.values()))]


def records_of(frame) -> list[dict]:
    """The rows of a long frame (a DataFrame or ``LongRows``) as dicts."""
    return frame.records() if isinstance(frame, LongRows) else frame.to_dict("records")


def bounds_rows(quantity: str, values: np.ndarray, bounds: np.ndarray, methods, accuracy: float,
                attrs: dict) -> LongRows:
    """The long rows of ``bounds`` ((n, 3, 2): value x direction x (lower, upper)), checked.
    ``methods``: (lower, upper) method names, each a string or an (n, 3) array of strings."""
    check_bounds(bounds, quantity, values)
    n = values.size
    lower, upper = bounds[..., 0], bounds[..., 1]
    gaps = relative_gaps(lower, upper)
    lower_method, upper_method = (np.broadcast_to(np.asarray(m, dtype=object), (n, 3)).reshape(-1) for m in methods)
    columns = {
        QUANTITY[quantity]: np.repeat(values, 3),
        "direction": np.array(np.tile(DIRECTION_NAMES, n), dtype=object),
        f"{quantity}_lower": lower.reshape(-1),
        f"{quantity}_upper": upper.reshape(-1),
        "accuracy": gaps.reshape(-1),
        "converged": (gaps <= accuracy).reshape(-1),
        "lower_method": lower_method,
        "upper_method": upper_method,
    }
    return LongRows(columns, {**attrs, "accuracy_requested": accuracy, "version": __version__})


def bounds_frame(quantity: str, values: np.ndarray, bounds: np.ndarray, methods, accuracy: float, attrs: dict):
    """The long frame (a DataFrame) of ``bounds_rows``."""
    return bounds_rows(quantity, values, bounds, methods, accuracy, attrs).frame()


def quantity_of(frame) -> str:
    """"delta" or "epsilon": what a long frame bounds."""
    return "delta" if "delta_upper" in list(frame.columns) else "epsilon"


HEADLINE_COLUMNS = ("lower", "upper", "accuracy", "converged", "lower_method", "upper_method")


def wide_records(frame, headline: str | None = None) -> list[dict]:
    """``wide``'s rows as dicts (no pandas): one per query value (each run of remove, add, max rows)."""
    quantity = quantity_of(frame)
    key = QUANTITY[quantity]
    headline = headline or frame.attrs.get("headline", "max")
    fixed = ("direction", f"{quantity}_lower", f"{quantity}_upper", "accuracy", "converged", "lower_method",
             "upper_method")
    groups = [c for c in frame.columns if c not in fixed]
    if key not in groups:
        groups = [key, *groups]
    rows = records_of(frame)
    out = []
    for start in range(0, len(rows), len(DIRECTION_NAMES)):
        block = dict(zip(DIRECTION_NAMES, rows[start:start + len(DIRECTION_NAMES)]))
        if [row["direction"] for row in block.values()] != list(DIRECTION_NAMES):
            raise ValueError(f"frame must hold the rows {', '.join(DIRECTION_NAMES)} of each query value in turn; got "
                             f"{[row['direction'] for row in block.values()]} at row {start}")
        top = block[headline]
        row = {name: top[name] for name in groups}
        for name in HEADLINE_COLUMNS:
            column = f"{quantity}_{name}" if name in ("lower", "upper") else name
            row[column] = top[column]
        for direction in DIRECTION_NAMES:
            for bound in ("lower", "upper"):
                row[f"{direction}_{quantity}_{bound}"] = block[direction][f"{quantity}_{bound}"]
        out.append(row)
    return out


def wide(frame, headline: str | None = None):
    """One row per query value: the query value and the columns constant per value (e.g.
    ``sampler``), {q}_lower, {q}_upper, accuracy, converged and the methods of the ``headline`` row
    (default: the frame's, attrs["headline"]), then {direction}_{q}_{lower,upper} for remove, add
    and max. A DataFrame (``wide_records``: the same rows as dicts)."""
    import pandas as pd

    out = pd.DataFrame(wide_records(frame, headline))
    out.attrs.update(frame.attrs, headline=headline or frame.attrs.get("headline", "max"))
    return out


def headline_value(frame, bound: str = "upper") -> float:
    """The one number a single-value query answers: the headline row's ``bound``."""
    quantity = quantity_of(frame)
    rows = [row for row in records_of(frame) if row["direction"] == frame.attrs.get("headline", "max")]
    if len(rows) != 1:
        raise ValueError(f"frame must hold one query value; got {len(rows)}")
    return float(rows[0][f"{quantity}_{bound}"])


def statement(frame, sampler: str | None = None) -> str:
    """The sentence a paper or model card should carry: the headline row's upper bound at the
    first query value (eps at delta, or delta at eps; the bound rounded up, ``printed``), with the relation, the sampler, the
    accuracy and the package version; what the bound is comes from ``attrs["method_label"]`` (the
    Accountant's words for its method: "certified upper bound", or a reference method's name). ``sampler`` picks one block of a compare frame. Where the
    upper bound is not the sampler's own (a sampler bracketed by a closed form) the sentence says so."""
    rows = [row for row in records_of(frame) if sampler is None or row.get("sampler") == sampler]
    if not rows:
        raise ValueError(f"sampler must be one of the frame's samplers; got {sampler!r}")
    headline = frame.attrs.get("headline", "max")
    row = next(row for row in rows if row["direction"] == headline)
    phases = frame.attrs.get("phases", [])
    name = sampler or " then ".join(p["sampler"] + (" with correlated noise" if p.get("coefficients") else "")
                                    for p in phases) or "the run"
    relation = frame.attrs.get("relation", "add_or_remove").replace("_", "-")
    quantity = quantity_of(frame)
    # the bound rounded up (a larger eps or delta is still proven), the query value as given, the bracket outward
    if quantity == "epsilon":
        eps, delta = printed.upper(row["epsilon_upper"], 4), printed.given(row["delta"], 3)
    else:
        eps, delta = printed.given(row["epsilon"], 4), printed.upper(row["delta_upper"], 4)
    bracket = printed.bracket(row[quantity + "_lower"], row[quantity + "_upper"], 4)
    version = frame.attrs.get("version", __version__)
    words = frame.attrs.get("method_label", "certified upper bound")
    if row["converged"]:
        how = f"{words}, within {100 * frame.attrs.get('accuracy_requested', 0.01):.3g}% of the lower bound"
    else:
        how = f"{words}; the bracket {bracket} did not reach the accuracy asked for"
    sentence = (f"Report: ({eps}, {delta})-DP under {relation} adjacency for {name} ({how}; "
                f"dpsampling {version}).")
    if not row.get("tight_pair", frame.attrs.get("tight_pair", True)):
        sentence += (f" {name} has no certified bound of its own: the upper bound is that of deterministic batches "
                     f"(chua24 Thm 4.1) and the true {quantity} lies in {bracket}.")
    return sentence
