"""``dpsampling account --schedule run.yaml``: certified bounds of a run of several phases."""

from __future__ import annotations

import json
import math

from dpsampling import __version__
from dpsampling.accountants.certified import Accountant
from dpsampling.accountants.certified.schedule import load_schedule
from dpsampling.accountants.relations import DEFAULT_RELATION, refined_directions

DIRECTIONS = ("remove", "add", "max")


def _number(value):
    value = float(value)
    return None if math.isnan(value) else value


def schedule_rows(frame, key: str, quantity: str) -> list[dict]:
    """One row per query value: the maximum over the directions and each direction."""
    rows = []
    for value, part in frame.groupby(key, sort=False):
        by = part.set_index("direction")
        row = {key: float(value)}
        for direction in DIRECTIONS:
            bounds = {f"{quantity}_{b}": _number(by.loc[direction, f"{quantity}_{b}"]) for b in ("lower", "upper")}
            if direction == "max":
                row.update(bounds)
            else:
                row[direction] = bounds
        row["accuracy"] = _number(by["accuracy"].max())
        rows.append(row)
    return rows


def account_schedule(args) -> int:
    """Print the certified bracket of the schedule's whole run (both directions and their maximum)."""
    if args.sampler is not None or args.sigma is not None or args.steps is not None:
        raise ValueError("--schedule describes the whole run: give it without --sampler, --sigma and --steps")
    phases = load_schedule(args.schedule)
    directions = refined_directions(getattr(args, "refine", "all"), DEFAULT_RELATION)  # the top-level rows: max
    accountant = Accountant(phases, accuracy=0.01 if args.accuracy is None else args.accuracy, directions=directions)
    if args.epsilon is not None:
        frame, key, quantity = accountant.delta_bounds(args.epsilon), "epsilon", "delta"
    else:
        frame, key, quantity = accountant.epsilon_bounds(args.delta), "delta", "epsilon"
    rows = schedule_rows(frame, key, quantity)
    computation = {k: v for k, v in frame.attrs.items() if k != "phases"}
    if args.json:
        print(json.dumps({"inputs": {"schedule": str(args.schedule), "phases": frame.attrs["phases"],
                                     "version": __version__},
                          "computation": computation, "rows": rows}, indent=2))
        return 0
    for i, phase in enumerate(frame.attrs["phases"], 1):
        rate = f", sampling rate={phase['sampling_rate']:g}" if phase["sampling_rate"] is not None else ""
        print(f"# phase {i}: {phase['sampler']}, sigma={phase['sigma']:g}, steps={phase['steps']}, "
              f"epochs={phase['epochs']}{rate}")
    print(f"# certified bounds of the whole run (refinements {computation['refinements']}, accuracy reached "
          f"{computation['accuracy_reached']:.3g}, converged {computation['converged']})")
    header = [key, f"{quantity}_lower", f"{quantity}_upper", "remove_lower", "remove_upper", "add_lower", "add_upper"]
    print("  ".join(f"{h:>13}" for h in header))
    for r in rows:
        values = [r[key], r[f"{quantity}_lower"], r[f"{quantity}_upper"], r["remove"][f"{quantity}_lower"],
                  r["remove"][f"{quantity}_upper"], r["add"][f"{quantity}_lower"], r["add"][f"{quantity}_upper"]]
        print("  ".join(f"{'-':>13}" if v is None else f"{v:>13.6g}" for v in values))
    return 0
