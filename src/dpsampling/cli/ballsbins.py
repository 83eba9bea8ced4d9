"""``dpsampling account --sampler balls_and_bins``: the Monte Carlo options and their output.

Kept apart from cli.py so that the other samplers' options stay untouched: cli.py calls
``add_ballsbins_arguments`` on the ``account`` parser and hands B queries to
``account_balls_and_bins``.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace

from dpsampling import DIRECTIONS, __version__
from dpsampling.accountants.ballsbins.device import resolve_device
from dpsampling.accountants.ballsbins.tables import (
    METHOD_NAMES,
    BallsBinsOptions,
    ballsbins_delta_table,
    ballsbins_epsilon_table,
)
from dpsampling.accountants.relations import DEFAULT_RELATION, check_sampler_relation

BALLS_AND_BINS = "balls_and_bins"
_OPTIONS = ("samples", "seed", "error_prob", "method", "orders", "epsilon_step", "device")
_DEFAULTS = BallsBinsOptions()

DESCRIPTION = """\
Monte Carlo accounting of balls-and-bins batches (chua25): samples of the privacy loss of the
dominating pair (P_B, Q_B), both directions. Per eps: delta_lower = the lower bound (6) (one
epoch; null for --epochs > 1), delta_estimate = the MC mean with delta_stderr, delta_upper = the
KL upper confidence bound, >= delta_B with probability >= 1 - error_prob (per row; the maximum
over directions too). --delta queries draw one sample set per direction, evaluate it on the eps
grid 0, h, 2h, ... (h = --epsilon-step) up to eps_D(delta) (Prop. 3.3), and report
epsilon_upper = the smallest grid eps from which on every UCB is <= delta (eps_D(delta) if
none): >= eps_B(delta) with probability >= 1 - error_prob, no union bound needed because the
UCB of one sample set is non-increasing in eps; epsilon_lower comes from bound (6). Cost: m
samples x T steps x epochs per direction (order statistics: x number of orders instead of T;
importance: one set per eps). Example:
  dpsampling account --sampler balls_and_bins --sigma 0.8 --steps 1000 --epsilon 1 2 --json"""


def add_ballsbins_arguments(parser: argparse.ArgumentParser) -> None:
    """The argument group of --sampler balls_and_bins (defaults None: 'not given')."""
    group = parser.add_argument_group("balls-and-bins Monte Carlo (--sampler balls_and_bins)", DESCRIPTION)
    group.add_argument("--samples", type=int, metavar="M",
                       help=f"Monte Carlo samples per direction (and per eps with importance; default {_DEFAULTS.samples:,})")
    group.add_argument("--seed", type=int, metavar="N", help=f"seed of numpy.random.SeedSequence (default {_DEFAULTS.seed})")
    group.add_argument("--error-prob", type=float, metavar="BETA",
                       help=f"beta of the upper confidence bound, in (0, 1) (default {_DEFAULTS.error_prob:g})")
    group.add_argument("--method", choices=tuple(METHOD_NAMES),
                       help="naive (Alg. 4, all T steps; the default, never switched silently), importance "
                            "(Alg. 5, one sample set per eps), order-stats (Alg. 6: pessimistic, needs --orders), "
                            "importance+order-stats (App. B.3)")
    group.add_argument("--orders", metavar="LIST",
                       help="order statistics k_1 < ... < k_r in [1, T-1] starting at 1, as runs: "
                            "'1..500,510..1000/10' = 1,2,...,500,510,520,...,1000")
    group.add_argument("--epsilon-step", type=float, metavar="H",
                       help=f"eps grid step of --delta queries (default {_DEFAULTS.epsilon_step:g})")
    group.add_argument("--device", choices=("cpu", "cuda", "auto"),
                       help="where the samples are drawn: cpu (default), cuda (one GPU, numba-cuda; refused "
                            "with exit status 2 when none is visible) or auto (cuda when a GPU is visible, else "
                            "cpu); same streams, same numbers; the JSON says which ran (inputs.device)")


def uses_ballsbins_arguments(args) -> bool:
    return args.sampler == BALLS_AND_BINS or any(getattr(args, name) is not None for name in _OPTIONS)


def _options(args) -> BallsBinsOptions:
    if args.sampler != BALLS_AND_BINS:
        given = next(name for name in _OPTIONS if getattr(args, name) is not None)
        raise ValueError(f"--{given.replace('_', '-')} must be used with --sampler balls_and_bins only; "
                         f"got --sampler {args.sampler}")
    chosen = {name: getattr(args, name) for name in _OPTIONS if getattr(args, name) is not None}
    return BallsBinsOptions(**chosen)


def _number(value):
    value = float(value)
    return None if math.isnan(value) else value


def _delta_rows(frame) -> list[dict]:
    rows = []
    for record in frame.to_dict("records"):
        row = {"epsilon": record["epsilon"], "delta_lower": _number(record["delta_lower"]),
               "delta_upper": _number(record["delta_upper"])}
        for direction in DIRECTIONS:
            row[direction] = {f"delta_{name}": _number(record[f"{direction}_delta_{name}"])
                              for name in ("lower", "estimate", "stderr", "upper")}
        rows.append(row)
    return rows


def _epsilon_rows(frame) -> list[dict]:
    rows = []
    for record in frame.to_dict("records"):
        row = {"delta": record["delta"], "epsilon_lower": _number(record["epsilon_lower"]),
               "epsilon_upper": _number(record["epsilon_upper"]),
               "epsilon_deterministic": record["epsilon_deterministic"]}
        for direction in DIRECTIONS:
            row[direction] = {f"epsilon_{b}": _number(record[f"{direction}_epsilon_{b}"]) for b in ("lower", "upper")}
        rows.append(row)
    return rows


def _table(rows: list[dict], key: str, columns: list[tuple[str, str | None]]) -> str:
    header = [key] + [name if where is None else f"{where}_{name.split('_', 1)[1]}" for name, where in columns]
    lines = ["  ".join(f"{h:>14}" for h in header)]
    for row in rows:
        values = [row[key]] + [row[name] if where is None else row[where][name] for name, where in columns]
        lines.append("  ".join(f"{'-':>14}" if v is None else f"{v:>14.6g}" for v in values))
    return "\n".join(lines)


def _select_relation(rows: list[dict], quantity: str, relation: str) -> list[dict]:
    """add / remove: the top-level bounds are that direction's (add_or_remove: their maximum)."""
    if relation in DIRECTIONS:
        for row in rows:
            for bound in ("lower", "upper"):
                row[f"{quantity}_{bound}"] = row[relation][f"{quantity}_{bound}"]
    return rows


def account_balls_and_bins(args) -> int:
    """Run one balls-and-bins query and print JSON or a table; ValueError on bad input."""
    relation = check_sampler_relation(BALLS_AND_BINS, getattr(args, "relation", DEFAULT_RELATION))
    if getattr(args, "sampling_rate", None) is not None:
        raise ValueError(f"--sampling-rate must not be given with --sampler balls_and_bins (every example is in "
                         f"exactly one of the T batches); got {args.sampling_rate!r}")
    options = _options(args)
    try:  # cuda without a GPU: one line and exit status 2 (cli.main), before any sampling
        options = replace(options, device=resolve_device(options.device))
    except ValueError as error:
        raise ValueError(f"--device {error}") from None
    if args.epsilon is not None:
        rows = _delta_rows(ballsbins_delta_table(args.sigma, args.steps, args.epsilon, args.epochs, options))
        rows = _select_relation(rows, "delta", relation)
        key = "epsilon"
        columns = [("delta_lower", None), ("delta_upper", None)] + [
            (f"delta_{n}", d) for d in DIRECTIONS for n in ("lower", "estimate", "stderr", "upper")]
    else:
        rows = _select_relation(_epsilon_rows(ballsbins_epsilon_table(args.sigma, args.steps, args.delta, args.epochs,
                                                                      options)), "epsilon", relation)
        key = "delta"
        columns = [("epsilon_lower", None), ("epsilon_upper", None)] + [
            (f"epsilon_{b}", d) for d in DIRECTIONS for b in ("lower", "upper")]
    inputs = {"sampler": BALLS_AND_BINS, "sigma": args.sigma, "steps": args.steps, "epochs": args.epochs,
              "relation": relation, "device": options.device,
              "method": options.method, "samples": options.samples, "seed": options.seed,
              "error_prob": options.error_prob, "orders": options.orders,
              "options": options.as_dict(), "version": __version__,
              "guarantee": "each delta_upper / epsilon_upper (per direction and their maximum) holds with "
                           "probability >= 1 - error_prob, separately for every row"}
    if args.json:
        print(json.dumps({"inputs": inputs, "rows": rows}, indent=2))
    else:
        print(f"# balls_and_bins: sigma={args.sigma}, steps={args.steps}, epochs={args.epochs}, "
              f"method={options.method}, samples={options.samples}, error_prob={options.error_prob:g}, "
              f"device={options.device}")
        print(_table(rows, key, columns))
    return 0
