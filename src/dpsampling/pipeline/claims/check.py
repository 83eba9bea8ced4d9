"""Check every registered claim against the result tables; write the reproduction table."""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path

import pandas as pd

from dpsampling.io import read_table
from dpsampling.pipeline.claims.base import (
    FINDING,
    MAGNITUDE_AGREEMENT,
    NOT_AT_SETTING,
    UNDECIDED,
    VERDICTS,
    Missing,
    OffPaperSetting,
    Undecided,
    is_computed_value,
    setting_departures,
    verdict,
)

CLAIM_COLUMNS = ["claim_id", "experiment", "quantity", "relation", "paper_value", "our_value", "tolerance", "verdict", "note"]


def _evaluate(claim, frames: dict, results_dir: Path) -> dict:
    row = {"claim_id": claim.claim_id, "experiment": claim.experiment, "quantity": claim.quantity,
           "relation": claim.relation, "paper_value": claim.paper_value, "our_value": math.nan,
           "tolerance": claim.resolved_tolerance(), "verdict": "not_run", "note": ""}
    path = results_dir / claim.experiment / claim.result_file
    if path not in frames:
        if not path.exists():
            row["note"] = f"{path} not found: experiment not run"
            return row
        frames[path] = read_table(path)
    frame, metadata = frames[path]
    departures = setting_departures(claim.setting, _recorded(metadata.get("parameters", {})))
    try:
        if departures:
            raise OffPaperSetting(departures)
        ours, note = claim.measure(frame)
    except OffPaperSetting as off:
        row["verdict"], row["note"] = NOT_AT_SETTING, str(off)
        try:  # ours at the setting that ran, for information
            row["our_value"] = claim.measure(frame)[0]
        except (Missing, Undecided):
            pass
        return row
    except Missing as missing:
        row["note"] = str(missing)
        return row
    except Undecided as undecided:
        row["our_value"], row["verdict"], row["note"] = undecided.value, UNDECIDED, undecided.note
        return row
    row["our_value"] = ours
    if claim.relation == FINDING:  # no stated number: ours is a finding, not a reproduction
        row["verdict"], row["note"] = FINDING, note
        return row
    if math.isnan(ours):
        row["verdict"], row["note"] = "not_reproduced", "; ".join(filter(None, [note, claim.why]))
        return row
    paper = float(Decimal(claim.paper_value))
    holds = verdict(claim.relation, paper, ours, row["tolerance"])
    strict = verdict(claim.relation, paper, ours, 0.0)
    notes = [note]
    if holds and claim.relation != "~" and is_computed_value(claim.paper_value) \
            and abs(ours - paper) > MAGNITUDE_AGREEMENT * abs(paper):
        holds = False
        notes.append(f"the stated inequality holds, but ours is {ours / paper:.3g} x the paper's computed value "
                     f"(agreement within {MAGNITUDE_AGREEMENT:.0%} required)")
    if holds and not strict:
        notes.append(f"holds only within rounding of the stated digits (tolerance {row['tolerance']:g})")
    if not holds:
        notes.append(claim.why or "our value is outside the stated relation")
    row["verdict"] = "reproduced" if holds else "not_reproduced"
    row["note"] = "; ".join(filter(None, notes))
    return row


def _recorded(parameters: dict, prefix: str = "") -> dict:
    """A result file's recorded parameters as {dotted key: value} ('spec.delta': 1e-06)."""
    flat = {}
    for key, value in parameters.items():
        if isinstance(value, dict):
            flat.update(_recorded(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def check_claims(claims, results_dir, experiments=None) -> pd.DataFrame:
    """The reproduction table of ``claims`` (``dpsampling.papers.registry.CLAIMS``; optionally only
    those of some experiments) against the result tables under ``results_dir``."""
    results_dir = Path(results_dir)
    frames: dict = {}
    rows = [_evaluate(c, frames, results_dir) for c in claims if experiments is None or c.experiment in experiments]
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def claims_markdown(table: pd.DataFrame) -> str:
    """The same table in Markdown, with a one-line summary."""
    counts = table["verdict"].value_counts().to_dict()
    summary = ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS if counts.get(v) or v in ("reproduced", "not_reproduced", "not_run"))
    if counts.get(FINDING):
        summary += f", {counts[FINDING]} {FINDING} (no number stated by the paper)"
    lines = ["# Claims: the papers' stated numbers against ours", "", f"{len(table)} claims: {summary}.", "",
             "| " + " | ".join(CLAIM_COLUMNS) + " |", "|" + "---|" * len(CLAIM_COLUMNS)]
    for record in table.to_dict("records"):
        cells = [f"{v:.6g}" if isinstance(v, float) else str(v) for v in record.values()]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
