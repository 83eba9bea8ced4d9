"""Command line: ``dpsampling account ...`` prints (eps, delta) bounds for a batch sampler."""

from __future__ import annotations

import argparse
import json
import math
import sys

from dpsampling import __version__, progress
from dpsampling.accountants.poisson import PLD_METHODS
from dpsampling.accountants.relations import REFINE_CHOICES
from dpsampling.accountants.tables import ACCOUNTED_SAMPLERS, AccountingOptions, delta_table, epsilon_table
from dpsampling.cli.ballsbins import (
    BALLS_AND_BINS,
    account_balls_and_bins,
    add_ballsbins_arguments,
    uses_ballsbins_arguments,
)
from dpsampling.cli.calibrate import (
    add_calibrate_command,
    add_rate_and_relation_group,
    effective_rate,
    run_calibrate,
    sampling_rate,
)
from dpsampling.cli.compare import add_compare_command, run_compare
from dpsampling.cli.schedule import account_schedule
from dpsampling.validation import check_open_unit

EXAMPLES = """examples:
  dpsampling account --sampler shuffle --sigma 0.5 --steps 10000 --delta 1e-6
  dpsampling account --sampler poisson --sigma 0.4 --steps 10000 --epsilon 1 2 4 --json
  dpsampling account --sampler deterministic --sigma 0.8 --steps 1000 --epochs 3 --delta 1e-5
  dpsampling account --sampler wor --sigma 0.8 --steps 10000 --sampling-rate 0.001 --delta 1e-6
  dpsampling account --sampler wor --sigma 4 --steps 1000 --sampling-rate 0.05 --relation substitution --epsilon 1
  dpsampling calibrate --sampler wor --epsilon 10 --delta 1e-6 --steps 10000 --sampling-rate 0.001

Every row gives the maximum over the two adjacency directions (lower and upper bound) and
each direction: remove = D(P||Q), add = D(Q||P). A bound that is not known is shown as '-'
(null in JSON). Poisson also reports the RDP upper bound; shuffle's upper bound is delta_D
(chua24 Thm 4.1) and its lower bound the E_C sets of chua24 eq. (3). wor (fixed-size batches
sampled without replacement, lebeda24 Thm 10.2) reports PLD bounds and RDP like Poisson; under
--relation add or remove the top-level bounds are that direction's.
"""


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="dpsampling", description="Privacy accounting of DP-SGD batch samplers.")
    parser.add_argument("--version", action="version", version=f"dpsampling {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_OneLineParser)
    from dpsampling.cli.ops import add_ops_commands  # estimate, report

    add_ops_commands(commands)
    account = commands.add_parser(
        "account",
        help="(eps, delta) bounds for one sampler",
        description="Upper and lower (eps, delta) bounds of ABLQ/DP-SGD with the chosen batch sampler.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    account.add_argument("--sampler", choices=(*ACCOUNTED_SAMPLERS, BALLS_AND_BINS), help="batch sampler")
    account.add_argument("--sigma", type=float, help="noise multiplier (> 0)")
    account.add_argument("--steps", type=int, help="steps (batches) per epoch T (>= 1)")
    account.add_argument("--epochs", type=int, default=1, help="epochs K (>= 1, default 1)")
    account.add_argument("--schedule", metavar="FILE",
                         help="a YAML file with a list 'phases' (sampler, sigma, steps, epochs, sampling_rate): "
                              "certified bounds of the whole run, instead of --sampler/--sigma/--steps "
                              "(docs/COMMANDS.md)")
    query = account.add_mutually_exclusive_group(required=True)
    query.add_argument("--epsilon", type=float, nargs="+", metavar="E", help="eps values (>= 0): report delta")
    query.add_argument("--delta", type=float, nargs="+", metavar="D", help="delta values in (0, 1): report eps")
    account.add_argument("--accuracy", type=float, metavar="A",
                         help="refine the certified bounds until (upper - lower) / upper <= A in every row and "
                              "direction, in (0, 1) (default 0.01)")
    account.add_argument("--refine", choices=REFINE_CHOICES, default="all",
                         help="certified bounds: bring every direction within --accuracy (all, the default) or "
                              "only the one --relation reads (relation: faster; the others as reached)")
    account.add_argument("--pld-method", choices=PLD_METHODS, default="certified",
                         help="poisson and wor: certified (the default) or dp_accounting (dp-accounting's PLDs)")
    account.add_argument("--pld-discretization", type=float, default=AccountingOptions.pld_discretization,
                         help="--pld-method dp_accounting: the interval to start from (the largest used)")
    account.add_argument("--pld-min-discretization", type=float, default=AccountingOptions.pld_min_discretization,
                         help="--pld-method dp_accounting: the finest interval the refinement may reach "
                              "(default %(default)g); rows that have not met --accuracy by then say "
                              "pld_converged false")
    account.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    add_ballsbins_arguments(account)
    add_rate_and_relation_group(account, ACCOUNTED_SAMPLERS)
    add_calibrate_command(commands)
    add_compare_command(commands)
    return parser


def _number(value):
    value = float(value)
    return None if math.isnan(value) else value


def _rows(frame, key: str, quantity: str) -> list[dict]:
    rows = []
    for record in frame.to_dict("records"):
        row = {key: _number(record[key])}
        for bound in ("lower", "upper"):
            row[f"{quantity}_{bound}"] = _number(record[f"{quantity}_{bound}"])
        for direction in ("remove", "add"):
            row[direction] = {f"{quantity}_{b}": _number(record[f"{direction}_{quantity}_{b}"]) for b in ("lower", "upper")}
        for extra in (f"{quantity}_upper_rdp", "pld_discretization", "pld_accuracy"):
            if extra in record:
                row[extra] = _number(record[extra])
        if "pld_converged" in record:
            row["pld_converged"] = bool(record["pld_converged"])
        rows.append(row)
    return rows


def _format_table(rows: list[dict], key: str, quantity: str) -> str:
    header = [key, f"{quantity}_lower", f"{quantity}_upper", "remove_lower", "remove_upper", "add_lower", "add_upper"]
    if any(f"{quantity}_upper_rdp" in r for r in rows):
        header.append("upper_rdp")
    lines = ["  ".join(f"{h:>13}" for h in header)]
    for r in rows:
        values = [r[key], r[f"{quantity}_lower"], r[f"{quantity}_upper"], r["remove"][f"{quantity}_lower"],
                  r["remove"][f"{quantity}_upper"], r["add"][f"{quantity}_lower"], r["add"][f"{quantity}_upper"]]
        if "upper_rdp" in header:
            values.append(r.get(f"{quantity}_upper_rdp"))
        lines.append("  ".join(f"{'-':>13}" if v is None else f"{v:>13.6g}" for v in values))
    return "\n".join(lines)


def _account(args) -> int:
    if uses_ballsbins_arguments(args):
        return account_balls_and_bins(args)
    options = AccountingOptions(pld_discretization=args.pld_discretization, sampling_rate=sampling_rate(args),
                                pld_min_discretization=args.pld_min_discretization,
                                pld_relative_accuracy=0.01 if args.accuracy is None else args.accuracy,
                                pld_method=args.pld_method, refine=args.refine)
    if args.epsilon is not None:
        frame = delta_table(args.sampler, args.sigma, args.steps, args.epsilon, args.epochs, options, args.relation)
        key, quantity = "epsilon", "delta"
    else:
        frame = epsilon_table(args.sampler, args.sigma, args.steps, args.delta, args.epochs, options, args.relation)
        key, quantity = "delta", "epsilon"
    rows = _rows(frame, key, quantity)
    inputs = {"sampler": args.sampler, "sigma": args.sigma, "steps": args.steps, "epochs": args.epochs,
              "relation": args.relation, "sampling_rate": effective_rate(args),
              "options": options.as_dict(), "version": __version__}
    if args.json:
        print(json.dumps({"inputs": inputs, "rows": rows}, indent=2))
    else:
        print(f"# {args.sampler}: sigma={args.sigma}, steps={args.steps}, epochs={args.epochs}, "
              f"relation={args.relation}, sampling rate={effective_rate(args)}")
        print(_format_table(rows, key, quantity))
    return 0


def main(argv=None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    progress.enable(not getattr(args, "json", False))
    try:
        from dpsampling.cli.ops import OPS_COMMANDS, run_ops_command

        if args.command in OPS_COMMANDS:
            return run_ops_command(args)
        if args.command == "account":
            if args.accuracy is not None:
                check_open_unit("accuracy", args.accuracy)
            for name in ("pld_discretization", "pld_min_discretization"):
                value = getattr(args, name)
                if value is not None and not value > 0:
                    raise ValueError(f"--{name.replace('_', '-')} must be positive; got {value!r}")
            if args.schedule is not None:
                return account_schedule(args)
            missing = [f"--{name}" for name in ("sampler", "sigma", "steps") if getattr(args, name) is None]
            if missing:
                raise ValueError(f"{', '.join(missing)} required (or --schedule FILE); got none")
            return _account(args)
        if args.command == "calibrate":
            return run_calibrate(args)
        if args.command == "compare":
            return run_compare(args)
    except ValueError as error:
        print(f"dpsampling {args.command}: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
