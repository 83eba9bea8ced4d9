"""Command-line pieces for the sampling rate, the adjacency relation and ``dpsampling calibrate``.

Kept apart from ``cli.py`` (one argument group and one subcommand) so other samplers' options
merge without touching them.
"""

from __future__ import annotations

import argparse
import json

from dpsampling import __version__, progress
from dpsampling.accountants.calibration import CALIBRATED_SAMPLERS, calibrate_sigma
from dpsampling.accountants.gaussian import SigmaSearch
from dpsampling.accountants.relations import DEFAULT_RELATION, RELATIONS, SUBSAMPLED_SAMPLERS, relation_help

RATE_SAMPLERS = SUBSAMPLED_SAMPLERS  # samplers with a --sampling-rate

CALIBRATE_EXAMPLES = """examples:
  dpsampling calibrate --sampler poisson --epsilon 1 --delta 1e-6 --steps 10000 --sampling-rate 0.001
  dpsampling calibrate --sampler wor --epsilon 10 --delta 1e-6 --steps 10000 --sampling-rate 0.001 --json
  dpsampling calibrate --sampler balls_and_bins --epsilon 2 --delta 1e-5 --steps 196 --epochs 10
  dpsampling calibrate --sampler shuffle --epsilon 2 --delta 1e-5 --steps 196 --epochs 10

Prints the smallest sigma (within relative --rtol) whose certified upper bound gives
delta(eps) <= delta for the relation (sufficient), and the largest sigma found that does not
(sigma_low). poisson, wor: pessimistic PLD; deterministic: exact; balls_and_bins: certified PLD;
shuffle: delta_D, its only upper bound, and also the smallest sigma its E_C lower bound does not
rule out (necessary, not sufficient: every smaller sigma certainly fails). WOR needs exactly
twice the Poisson sigma under add/remove (lebeda24 Prop. 9).
"""


def add_rate_and_relation_group(parser: argparse.ArgumentParser, samplers) -> None:
    """--sampling-rate and --relation, in their own argument group (``samplers``: those offered)."""
    group = parser.add_argument_group(
        "sampling rate and adjacency relation",
        f"Relations supported per sampler: {relation_help(samplers)}. Substitution uses the Appendix D bounds "
        "of lebeda24 (upper: pointwise-maximum dominating pair; lower: the two dataset pairs of Section 7).")
    group.add_argument("--sampling-rate", type=float, default=None, metavar="Q",
                       help="rate q in (0, 1] of poisson (inclusion probability) and wor (batch size / n); "
                            "default 1/steps; not allowed for other samplers")
    group.add_argument("--relation", choices=RELATIONS, default=DEFAULT_RELATION,
                       help=f"adjacency relation bounded by the top-level columns (default {DEFAULT_RELATION}: "
                            "the maximum of the remove and add directions)")


def sampling_rate(args) -> float | None:
    """The rate given, checked against the sampler (ValueError otherwise); None if not given."""
    if args.sampling_rate is not None and args.sampler not in RATE_SAMPLERS:
        raise ValueError(f"--sampling-rate applies to samplers {', '.join(RATE_SAMPLERS)} only; got it with "
                         f"sampler {args.sampler!r}")
    return args.sampling_rate


def effective_rate(args) -> float | None:
    """The rate used (given or 1/steps) for poisson and wor; None for the other samplers."""
    if args.sampler not in RATE_SAMPLERS:
        return None
    return args.sampling_rate if args.sampling_rate is not None else 1.0 / args.steps


def add_calibrate_command(commands) -> None:
    """``dpsampling calibrate``: sigma for a target (eps, delta)."""
    calibrate = commands.add_parser(
        "calibrate", help="smallest sigma for a target (eps, delta)",
        description="Smallest noise multiplier sigma such that the PLD upper bound gives (eps, delta)-DP.",
        epilog=CALIBRATE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    calibrate.add_argument("--sampler", required=True, choices=CALIBRATED_SAMPLERS, help="batch sampler")
    calibrate.add_argument("--epsilon", required=True, type=float, help="target eps (>= 0)")
    calibrate.add_argument("--delta", required=True, type=float, help="target delta in (0, 1)")
    calibrate.add_argument("--steps", required=True, type=int, help="steps per epoch T (>= 1)")
    calibrate.add_argument("--epochs", type=int, default=1, help="epochs K (>= 1, default 1)")
    calibrate.add_argument("--pld-discretization", type=float, default=1e-4, help="PLD discretization interval")
    calibrate.add_argument("--rtol", type=float, default=1e-3, help="relative width of the final sigma bracket")
    calibrate.add_argument("--accuracy", type=float, default=0.01,
                           help="balls_and_bins: relative accuracy of the certified bounds, in (0, 1)")
    calibrate.add_argument("--json", action="store_true", help="print one JSON object")
    add_rate_and_relation_group(calibrate, CALIBRATED_SAMPLERS)


def run_calibrate(args) -> int:
    if not 0 < args.accuracy < 1:
        raise ValueError(f"--accuracy must be in (0, 1); got {args.accuracy!r}")
    with progress.bar(f"calibrating {args.sampler}"):
        search = SigmaSearch(rtol=args.rtol, accuracy=args.accuracy, discretization=args.pld_discretization)
        result = calibrate_sigma(args.sampler, args.epsilon, args.delta, args.steps, args.epochs,
                                 sampling_rate(args), args.relation, search)
    result["version"] = __version__
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    rate = "" if result["sampling_rate"] is None else f", sampling rate={result['sampling_rate']:g}"
    print(f"# {args.sampler}, {result['relation']}: eps={result['epsilon']}, delta={result['delta']}, "
          f"steps={result['steps']}, epochs={result['epochs']}{rate}")
    print(f"sigma = {result['sigma']:.6g}  sufficient, by {result['method']} (sigma_low = {result['sigma_low']:.6g} "
          f"does not suffice by that bound; {result['evaluations']} evaluations)")
    if "sigma_necessary" in result:
        print(f"sigma >= {result['sigma_necessary']:.6g}  necessary, not sufficient: {result['necessary_method']}")
    return 0
