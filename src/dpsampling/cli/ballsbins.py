"""``dpsampling account --sampler balls_and_bins``: certified PLD bounds by default, Monte Carlo
on request (beside the certified bounds).

cli/main.py calls ``add_ballsbins_arguments`` on the ``account`` parser and hands B queries to
``account_balls_and_bins``.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace

from dpsampling import DIRECTIONS, __version__, progress
from dpsampling.accountants.ballsbins.device import resolve_device
from dpsampling.accountants.ballsbins.tables import (
    METHOD_NAMES,
    BallsBinsOptions,
    ballsbins_delta_table,
    ballsbins_epsilon_table,
)
from dpsampling.accountants.ballsbins_pld import (
    DEFAULT_MAX_GRID_POINTS,
    ballsbins_delta_bounds,
    ballsbins_epsilon_bounds,
)
from dpsampling.accountants.relations import DEFAULT_RELATION, check_sampler_relation, refined_directions
from dpsampling.validation import check_open_unit

BALLS_AND_BINS = "balls_and_bins"
PLD = "pld"
_MC_OPTIONS = ("samples", "seed", "error_prob", "orders", "epsilon_step", "device")
_OPTIONS = (*_MC_OPTIONS, "method", "max_grid_points")
_DEFAULTS = BallsBinsOptions()
DEFAULT_ACCURACY = 0.01

DESCRIPTION = """\
Default (--method pld): certified bounds. delta_lower / delta_upper (and epsilon_lower /
epsilon_upper) are guarantees from the PLD of the balls-and-bins dominating pair (chua25 Thm 3.1)
computed on a grid with optimistic / pessimistic rounding (accountants.ballsbins_pld), any number
of epochs, both directions and their maximum. The grid is refined until upper and lower agree to
--accuracy (relative) or --max-grid-points is reached; the accuracy reached is reported.

Monte Carlo (--method naive | importance | order-stats | importance+order-stats), the papers'
method, reported beside the certified bounds: samples of the privacy loss of the
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
    group = parser.add_argument_group("balls-and-bins (--sampler balls_and_bins)", DESCRIPTION)
    group.add_argument("--max-grid-points", type=int, metavar="N",
                       help=f"cost cap of the certified bounds: largest grid of one law (default {DEFAULT_MAX_GRID_POINTS:,})")
    group.add_argument("--samples", type=int, metavar="M",
                       help=f"Monte Carlo samples per direction (and per eps with importance; default {_DEFAULTS.samples:,})")
    group.add_argument("--seed", type=int, metavar="N", help=f"seed of numpy.random.SeedSequence (default {_DEFAULTS.seed})")
    group.add_argument("--error-prob", type=float, metavar="BETA",
                       help=f"beta of the upper confidence bound, in (0, 1) (default {_DEFAULTS.error_prob:g})")
    group.add_argument("--method", choices=(PLD, *METHOD_NAMES),
                       help="pld (certified bounds; the default), naive (Alg. 4, all T steps), importance "
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


def _options(args) -> BallsBinsOptions | None:
    """The Monte Carlo options, or None for the certified method (Monte Carlo options refused)."""
    if args.sampler != BALLS_AND_BINS:
        given = next(name for name in _OPTIONS if getattr(args, name) is not None)
        raise ValueError(f"--{given.replace('_', '-')} must be used with --sampler balls_and_bins only; "
                         f"got --sampler {args.sampler}")
    if args.method in (None, PLD):
        given = [name for name in _MC_OPTIONS if getattr(args, name) is not None]
        if given:
            raise ValueError(f"--{given[0].replace('_', '-')} applies to the Monte Carlo methods only; got it "
                             f"with --method {PLD} (choose --method naive, importance, order-stats or "
                             "importance+order-stats)")
        return None
    chosen = {name: getattr(args, name) for name in (*_MC_OPTIONS, "method") if getattr(args, name) is not None}
    return BallsBinsOptions(**chosen)


def _certified(args, query: str, values):
    """Certified bounds frame (rows per value and direction remove/add/max) and its attrs."""
    accuracy = check_open_unit("accuracy", DEFAULT_ACCURACY if args.accuracy is None else args.accuracy)
    cap = DEFAULT_MAX_GRID_POINTS if args.max_grid_points is None else args.max_grid_points
    with progress.bar("certified PLD bounds") as bar:
        function = ballsbins_delta_bounds if query == "epsilon" else ballsbins_epsilon_bounds
        directions = refined_directions(getattr(args, "refine", "all"), getattr(args, "relation", DEFAULT_RELATION))
        frame = function(args.sigma, args.steps, values, epochs=args.epochs, accuracy=accuracy, max_grid_points=cap,
                         directions=directions)
        bar.update()
    return frame


def _certified_rows(frame, key: str, quantity: str) -> list[dict]:
    rows = []
    for value, part in frame.groupby(key, sort=False):
        by = part.set_index("direction")
        row = {key: float(value), f"{quantity}_lower": _number(by.loc["max", f"{quantity}_lower"]),
               f"{quantity}_upper": _number(by.loc["max", f"{quantity}_upper"])}
        for direction in DIRECTIONS:
            row[direction] = {f"{quantity}_{b}": _number(by.loc[direction, f"{quantity}_{b}"]) for b in ("lower", "upper")}
        rows.append(row)
    return rows


def _certified_inputs(frame) -> dict:
    attrs = dict(frame.attrs)
    return {"method": "pld", "certified": True, "computation": attrs,
            "guarantee": "every lower and upper bound is a guarantee (no error probability); accuracy_reached is "
                         "the largest relative gap (upper - lower) / upper over the rows above the floor"}


def _check_certifiable(options: BallsBinsOptions, deltas) -> None:
    """A --delta query by Monte Carlo: the UCB of m samples is at least ln(1/beta)/m (all samples
    below eps contribute 0), so smaller deltas cannot be certified with m samples."""
    if options.method.startswith("importance"):
        return
    floor = math.log(1.0 / options.error_prob) / options.samples
    smallest = min(deltas)
    if smallest < floor:
        needed = math.ceil(math.log(1.0 / options.error_prob) / smallest)
        raise ValueError(f"--samples {options.samples} cannot certify delta = {smallest:g} (the UCB of m samples is "
                         f"at least ln(1/beta)/m = {floor:.3g}); use --samples >= {needed} or the certified "
                         f"--method pld")


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


def _account_certified(args, relation: str) -> int:
    query, values = ("epsilon", args.epsilon) if args.epsilon is not None else ("delta", args.delta)
    quantity = "delta" if query == "epsilon" else "epsilon"
    frame = _certified(args, query, values)
    rows = _select_relation(_certified_rows(frame, query, quantity), quantity, relation)
    inputs = {"sampler": BALLS_AND_BINS, "sigma": args.sigma, "steps": args.steps, "epochs": args.epochs,
              "relation": relation, **_certified_inputs(frame), "version": __version__}
    if args.json:
        print(json.dumps({"inputs": inputs, "rows": rows}, indent=2, default=float))
        return 0
    attrs = frame.attrs
    print(f"# balls_and_bins: sigma={args.sigma}, steps={args.steps}, epochs={args.epochs}, relation={relation}; "
          f"certified PLD bounds, accuracy reached {attrs['accuracy_reached']:.3g} (requested "
          f"{attrs['accuracy_requested']:g}{'' if attrs['converged'] else ', cost cap hit'})")
    columns = [(f"{quantity}_lower", None), (f"{quantity}_upper", None)] + [
        (f"{quantity}_{b}", d) for d in DIRECTIONS for b in ("lower", "upper")]
    print(_table(rows, query, columns))
    return 0


def account_balls_and_bins(args) -> int:
    """Run one balls-and-bins query and print JSON or a table; ValueError on bad input."""
    relation = check_sampler_relation(BALLS_AND_BINS, getattr(args, "relation", DEFAULT_RELATION))
    if getattr(args, "sampling_rate", None) is not None:
        raise ValueError(f"--sampling-rate must not be given with --sampler balls_and_bins (every example is in "
                         f"exactly one of the T batches); got {args.sampling_rate!r}")
    options = _options(args)
    if options is None:
        return _account_certified(args, relation)
    try:  # cuda without a GPU: one line and exit status 2 (cli.main), before any sampling
        options = replace(options, device=resolve_device(options.device))
    except ValueError as error:
        raise ValueError(f"--device {error}") from None
    if args.delta is not None:
        _check_certifiable(options, args.delta)
    query = "epsilon" if args.epsilon is not None else "delta"
    certified = _certified_rows(_certified(args, query, args.epsilon if query == "epsilon" else args.delta), query,
                                "delta" if query == "epsilon" else "epsilon")
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
    quantity = "delta" if query == "epsilon" else "epsilon"
    for row, bounds in zip(rows, _select_relation(certified, quantity, relation)):
        row["certified"] = {f"{quantity}_lower": bounds[f"{quantity}_lower"],
                            f"{quantity}_upper": bounds[f"{quantity}_upper"]}
    columns = columns + [(f"{quantity}_lower", "certified"), (f"{quantity}_upper", "certified")]
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
