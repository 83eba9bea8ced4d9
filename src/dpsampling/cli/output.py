"""What the commands print: one JSON answer (``--json``) or a table, made from the face's frames
(or its ``LongRows``, the same rows without pandas: what ``account`` prints).

Every ``--json`` answer is one envelope, built here (``answer``) and nowhere else, with exactly
the fields ``ENVELOPE``: ``command``, ``kind`` (one of ``KINDS``: which records ``rows`` holds),
``version``, ``inputs`` (the flags as given, None where not given), ``run`` (the run accounted
for, one line per phase), ``attrs`` (how it was computed), ``statement`` (the sentence to report)
and ``rows`` (the records); ``output.schema.json`` validates ``rows`` per ``kind``.

JSON numbers are the frames' floats written with ``repr`` (``json``'s way), so reading them back
gives the same doubles, bit for bit; an infinite upper bound is written ``Infinity`` (as Python's
``json`` reads it). Tables are the same numbers to 6 significant digits, bounds rounded outward (``accountants.printed``).
"""

from __future__ import annotations

import json
import math

import numpy as np

from dpsampling import __version__
from dpsampling.accountants import printed
from dpsampling.accountants.frames import QUANTITY, quantity_of, records_of, wide_records

DIRECTION_COLUMNS = ("remove", "add", "max")
ENVELOPE = ("command", "kind", "version", "inputs", "run", "attrs", "statement", "rows")
"""The fields of every --json answer, in order."""
KINDS = ("bounds", "calibrations", "knob", "budget", "estimate", "audit")
"""What an answer's rows are: bounds rows (account, compare --sigma), calibration rows (calibrate,
compare --target-epsilon), a knob's calibration (calibrate --knob), a budget (calibrate
--budget-left), an experiment's core-hours (estimate), an accountant check's bounds rows (audit)."""
WORDS = {"sigma_sufficient": "shown sufficient", "sigma_not_shown_sufficient": "not shown sufficient",
         "sigma_shown_insufficient": "shown insufficient"}
"""The calibration's three sigmas and what each one is (calibrate.calibrate_sigma)."""


def jsonable(value):
    """``value`` with numpy scalars, arrays and tuples made plain (for ``json``)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def records(frame) -> list[dict]:
    """The rows of a frame (a DataFrame or the face's ``LongRows``) as plain dicts (a long frame as
    it is: one row per value and direction)."""
    return jsonable(records_of(frame))


def bounds_records(frame, sampler: str | None = None) -> list[dict]:
    """The long frame's rows as every ``bounds`` answer has them: each with its ``sampler`` (a
    compare frame's column, or ``sampler``: a schedule's joined by " + "), right after direction."""
    rows = []
    for record in records(frame):
        row = {}
        for name, value in record.items():
            row[name] = value
            if name == "direction" and "sampler" not in record:
                row["sampler"] = sampler
        rows.append(row)
    return rows


def answer(command: str, kind: str, inputs: dict, run: list, attrs: dict, statement: str | None,
           rows: list[dict]) -> dict:
    """The one envelope of every --json answer (``ENVELOPE``; ``version`` is the package's)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    return {"command": command, "kind": kind, "version": __version__, "inputs": inputs, "run": list(run),
            "attrs": attrs, "statement": statement, "rows": rows}


def dump(envelope: dict) -> str:
    """An ``answer`` as JSON text (floats by ``repr``, NaN as null, infinity as ``Infinity``)."""
    if tuple(envelope) != ENVELOPE:
        raise ValueError(f"envelope must have the fields {', '.join(ENVELOPE)}; got {', '.join(envelope)}")
    return json.dumps(jsonable(envelope), indent=2)


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return f"{value:.6g}"
    return str(value)


def _bound_cell(key: str, value) -> str:
    """A cell; a bound's (``printed.cell``: ``*_upper`` up, ``*_lower`` down) rounded outward."""
    if isinstance(value, (float, np.floating)) and not math.isnan(value):
        return printed.cell(key, value) or _cell(value)
    return _cell(value)


def table(rows: list[dict], columns: list[tuple[str, str]], width: int = 12) -> str:
    """Fixed-width text: ``columns`` = (key, header) pairs; text left-aligned, numbers right-aligned."""
    cells = [[_bound_cell(key, row.get(key)) for key, _ in columns] for row in rows]
    widths = [max([width, len(header)] + [len(line[i]) for line in cells]) for i, (_, header) in enumerate(columns)]
    text = [isinstance(rows[0].get(key), str) if rows else False for key, _ in columns]
    lines = ["  ".join(f"{header:<{w}}" if left else f"{header:>{w}}"
                       for (_, header), w, left in zip(columns, widths, text))]
    for line in cells:
        lines.append("  ".join(f"{cell:<{w}}" if left else f"{cell:>{w}}" for cell, w, left in zip(line, widths, text)))
    return "\n".join(lines)


def bounds_table(frame) -> str:
    """One line per query value (``frames.wide``): the headline bracket, its accuracy, then each
    direction's bracket."""
    quantity = quantity_of(frame)
    key = QUANTITY[quantity]
    columns = [(key, key), (f"{quantity}_lower", f"{quantity}_lower"), (f"{quantity}_upper", f"{quantity}_upper"),
               ("accuracy", "accuracy"), ("converged", "converged")]
    for direction in DIRECTION_COLUMNS:
        columns += [(f"{direction}_{quantity}_{b}", f"{direction}_{b}") for b in ("lower", "upper")]
    return table(wide_records(frame), columns)


def headline_words(attrs: dict) -> str:
    """What the headline columns are, from the frame's attrs."""
    relation, headline = attrs.get("relation"), attrs.get("headline")
    if relation == "substitution":  # symmetric: one curve, reported in every direction's columns
        row = "the substitution curve (one point swapped for another; symmetric, so every direction is this curve)"
    elif headline == "max":
        row = "the maximum of the remove and add directions"
    else:
        row = f"the {headline} direction"
    accuracy = attrs.get("accuracy_requested")
    return f"relation {relation}: lower/upper are {row}; accuracy asked {accuracy:g}; method {attrs.get('method')}"


__all__ = ["ENVELOPE", "KINDS", "WORDS", "answer", "bounds_records", "bounds_table", "dump", "headline_words", "jsonable", "records", "table"]
