"""``dpsampling calibrate``: the smallest sigma shown sufficient for a target (eps, delta), by the
face's one bisection (``calibrate.calibrate_sigma``).

    dpsampling calibrate --sampler poisson --dataset-size 60000 --batch-size 256 --epochs 20 \\
        --target-epsilon 2 --delta 1e-5

is ``calibrate_sigma(Phase("poisson", 1.0, dataset_size=60000, batch_size=256, epochs=20), 2.0, 1e-5)``,
the same sigma bit for bit: one phase's bisection always starts at ``calibrate.START_SIGMA``, so
``calibrate``, ``compare --target-epsilon`` and Python answer alike. With ``--schedule FILE``
every phase's sigma is scaled by one factor (the file's sigmas are the start). ``--json``: a
``calibrations`` answer (``output.answer``) whose one row is ``Calibration.as_row`` (the row
``compare --target-epsilon`` has per sampler). Three sigmas, three words: shown sufficient (its upper bound meets
the target), not shown sufficient (the largest tried whose upper bound does not), shown
insufficient (the largest whose lower bound exceeds the target: no accountant can certify it).

``--knob steps | epochs | batch_size | sampling_rate`` (with ``--sigma``) calibrates that knob of the
run instead (``knobs.calibrate_knob``: the largest value shown sufficient, and the next, not shown
sufficient); ``--budget-left`` (with ``--sigma``) reads the run as the steps taken so far and
answers the eps spent and how many more steps (poisson, wor) or epochs it leaves
(``knobs.budget_left``); their ``--json`` answers are of kind ``knob`` and ``budget``.

Correlated noise (``--coefficients``, docs/MATRIX.md): with a certified reduction the calibration
is certified as any other; without one it is refused unless ``--samples`` (``--seed``,
``--error-prob``) ask for the Monte Carlo calibration (``calibrate_sigma(..., method="monte_carlo")``),
whose words say the probability with which its sigma is sufficient, not certified.
"""

from __future__ import annotations

import argparse
import numbers

from dpsampling import SAMPLERS
from dpsampling.accountants import printed
from dpsampling.accountants.calibrate import DEFAULT_RTOL, START_SIGMA, calibrate_sigma
from dpsampling.accountants.knobs import KNOBS, budget_left, calibrate_knob
from dpsampling.accountants.matrix.face import reduced_phases
from dpsampling.accountants.relations import DEFAULT_RELATION
from dpsampling.accountants.run import RUN_FIELDS, SEPARATION_FIELDS
from dpsampling.cli.arguments import (
    FLAGS,
    accuracy,
    add_accounting_arguments,
    add_noise_arguments,
    add_output_arguments,
    add_run_arguments,
    engine_options,
    phases_of,
    run_keywords,
)
from dpsampling.cli.arguments import rtol as rtol_of
from dpsampling.cli.main import OneLineParser
from dpsampling.cli.output import WORDS, answer, dump

EXAMPLES = """examples:
  dpsampling calibrate --sampler poisson --dataset-size 60000 --batch-size 256 --epochs 20 --target-epsilon 2 --delta 1e-5
  dpsampling calibrate --sampler wor --sampling-rate 0.001 --steps 10000 --target-epsilon 10 --delta 1e-6 --json
  dpsampling calibrate --sampler balls_and_bins --steps-per-epoch 196 --epochs 10 --target-epsilon 2 --delta 1e-5
  dpsampling calibrate --schedule run.yaml --target-epsilon 4 --delta 1e-5
  dpsampling calibrate --knob epochs --sampler poisson --sigma 1.1 --dataset-size 60000 --batch-size 256 --epochs 20 \
      --target-epsilon 2 --delta 1e-5
  dpsampling calibrate --budget-left --sampler poisson --sigma 1.1 --sampling-rate 0.01 --steps 500 \
      --target-epsilon 2 --delta 1e-5
"""


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description="The smallest noise multiplier shown sufficient for a target "
                                                  "(eps, delta), with the sigmas not shown sufficient and shown "
                                                  "insufficient.",
                           epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sampler", choices=SAMPLERS, help="batch sampler (or --schedule)")
    parser.add_argument("--schedule", metavar="FILE",
                        help="a YAML file of phases: one factor scales every phase's sigma")
    add_run_arguments(parser)
    add_noise_arguments(parser)
    knob = parser.add_mutually_exclusive_group()
    knob.add_argument("--knob", choices=KNOBS, default=None,
                      help="the knob to calibrate (default sigma); any other with --sigma: its largest value shown "
                           "sufficient, the others as given")
    knob.add_argument("--budget-left", action="store_true",
                      help="with --sigma: the run is the steps taken so far; answer the eps spent and how many more "
                           "steps (poisson, wor) or epochs keep it within the target")
    parser.add_argument("--sigma", type=float, metavar="S", help="the run's noise multiplier (with --knob other than "
                                                                 "sigma, or --budget-left)")
    parser.add_argument("--target-epsilon", type=float, required=True, metavar="E", help="target eps (> 0)")
    parser.add_argument("--delta", type=float, required=True, metavar="D", help="delta in (0, 1)")
    add_accounting_arguments(parser)
    parser.add_argument("--rtol", type=float, metavar="R",
                        help=f"relative width of the final sigma bracket, in (0, 1) (default {DEFAULT_RTOL:g})")
    group = parser.add_argument_group("Monte Carlo (correlated noise without a certified bound, docs/MATRIX.md)")
    group.add_argument("--samples", type=int, metavar="M", help="loss samples per direction and evaluation")
    group.add_argument("--seed", type=int, metavar="N", help="seed (the same at every sigma: common random numbers)")
    group.add_argument("--error-prob", type=float, metavar="BETA",
                       help="beta of each confidence bound, in (0, 1); the answer holds with probability >= 1 - 2 beta "
                            "times the evaluations")
    add_output_arguments(parser)
    return parser


MONTE_CARLO_FLAGS = {"samples": "--samples", "seed": "--seed", "error_prob": "--error-prob"}


def flags(args) -> dict:
    return {**FLAGS, **MONTE_CARLO_FLAGS}


def _calibration_options(phases, args) -> dict:
    """The Accountant's method and options: the Monte Carlo of correlated noise without a certified
    reduction (asked for by its flags, refused otherwise), else ``engine_options``."""
    given = [flag for name, flag in MONTE_CARLO_FLAGS.items() if getattr(args, name) is not None]
    if not reduced_phases(phases)[1]:
        if given:
            raise ValueError(f"{given[0]} applies to correlated noise (--coefficients) without a certified bound; this "
                             f"run has one; got {given[0]}")
        return engine_options(phases, args)
    if not given:
        raise ValueError(f"there is no certified bound for this run ({' + '.join(p.describe() for p in phases)}; "
                         "docs/MATRIX.md): give --samples M (and --error-prob, --seed) for a Monte Carlo calibration, "
                         "not certified")
    for flag, value in ((FLAGS["method"], args.method), ("--refine", args.refine),
                        ("--max-grid-points", args.max_grid_points)):
        if value is not None:
            raise ValueError(f"{flag} does not apply to the Monte Carlo of correlated noise; got {flag} {value}")
    return {"method": "monte_carlo", "samples": args.samples, "error_prob": args.error_prob, "seed": args.seed}


def run(args) -> int:
    if args.budget_left or args.knob not in (None, "sigma"):
        return _knob(args)
    if args.sigma is not None:
        raise ValueError(f"--sigma applies with --knob {'|'.join(KNOBS[1:])} or --budget-left (calibrating sigma, "
                         f"the search starts at {START_SIGMA:g}); got --sigma {args.sigma:g}")
    phases = phases_of(args, START_SIGMA)
    options = _calibration_options(phases, args)
    result = calibrate_sigma(phases, args.target_epsilon, args.delta, relation=args.relation or DEFAULT_RELATION,
                             accuracy=accuracy(args), rtol=rtol_of(args), **options)
    if args.json:
        print(dump(answer("calibrate", "calibrations", _inputs(args), [phase.describe() for phase in result.phases],
                          {**result.attrs(), "words": WORDS}, _sigma_lines(result)[0], [result.as_row()])))
    else:
        print("\n".join(_text(result)))
    return 0


def _inputs(args) -> dict:
    """The flags as given (None: not given), the same keys for every kind of answer."""
    names = ("sampler", "sigma", "schedule", *RUN_FIELDS, "coefficients", "knob", "budget_left", "target_epsilon",
             "delta", "relation", "accuracy", "refine", "rtol", "method", "max_grid_points", *MONTE_CARLO_FLAGS)
    return {**{name: getattr(args, name) for name in names}, **run_keywords(args, SEPARATION_FIELDS)}


def _text(result) -> list[str]:
    """The table output: the run and the target, then ``_sigma_lines``."""
    lines = [f"# run at the sigma shown sufficient: {line}" for line in (p.describe() for p in result.phases)]
    lines.append(f"# target ({result.target_epsilon:g}, {result.delta:g})-DP under {result.relation}; accuracy "
                 f"{result.accuracy:g}, rtol {result.rtol:g}; {result.evaluations} evaluations")
    return lines + _sigma_lines(result)


def _sigma_lines(result) -> list[str]:
    """The sigma (a schedule: the scale) shown sufficient (the answer's statement), the one not
    shown sufficient and the one shown insufficient, in words."""
    if result.sigma is not None:
        name, sufficient, not_shown, insufficient = ("sigma", result.sigma, result.sigma_not_shown_sufficient,
                                                     result.sigma_shown_insufficient)
    else:
        name, sufficient, not_shown, insufficient = ("scale of every phase's sigma", result.scale,
                                                     result.scale_not_shown, result.scale_insufficient)
    lines = [f"{name} = {printed.upper(sufficient)}  shown sufficient ({result.method_label} on eps "
             f"{printed.upper(result.epsilon_upper)} <= {result.target_epsilon:g})",
             f"{name} = {not_shown:.6g}  not shown sufficient (its upper bound exceeds the target; the true eps may "
             "still meet it)"]
    if insufficient is None:
        lines.append(f"{name}: none shown insufficient in the search (no lower bound above the target was met)")
    else:
        lines.append(f"{name} = {printed.lower(insufficient)}  shown insufficient (its lower bound exceeds the target: "
                     "no accountant can certify it)")
    return lines


def _knob_text(knob: str, value, sufficient: bool = False) -> str:
    """A knob's value as printed: whole numbers in full; a sigma shown sufficient rounded up, a rate
    shown sufficient rounded down (the printed value is still shown sufficient)."""
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if not sufficient:
        return f"{value:.6g}"
    return printed.upper(value) if knob == "sigma" else printed.lower(value)


def _knob(args) -> int:
    """--knob other than sigma, or --budget-left: the run at --sigma (``knobs``)."""
    what = "--budget-left" if args.budget_left else f"--knob {args.knob}"
    if args.sigma is None and args.schedule is None:
        raise ValueError(f"--sigma must be given with {what} (the run's noise multiplier); got none")
    phases = phases_of(args, args.sigma)
    options = engine_options(phases, args)
    options.pop("refine")
    common = {"relation": args.relation or DEFAULT_RELATION, "accuracy": accuracy(args), **options}
    attrs = {"relation": common["relation"], "accuracy": common["accuracy"], "method": options["method"]}
    if args.budget_left:
        result = budget_left(phases, args.target_epsilon, args.delta, **common)
        kind, run, row = "budget", phases, result.as_dict()
        attrs.update(phases=[phase.as_dict() for phase in phases], phases_at_end=row.pop("phases_at_end"))
        lines = [f"# run so far: {phase.describe()}" for phase in phases]
        lines += [f"eps spent at delta {args.delta:g}: certified upper bound {printed.upper(result.epsilon_spent_upper)} (lower "
                  f"bound {printed.lower(result.epsilon_spent_lower)})",
                  f"{result.more:,} more {result.unit} of the last phase keep the run shown within eps "
                  f"{args.target_epsilon:g} (the next one is not shown to)"]
    else:
        rtol = rtol_of(args)
        result = calibrate_knob(phases, args.knob, args.target_epsilon, args.delta, rtol=rtol, **common)
        kind, run, row = "knob", result.phases, result.as_dict()
        attrs.update(rtol=rtol, phases=row.pop("phases"))
        not_shown = "none in range" if result.value_not_shown is None else _knob_text(args.knob, result.value_not_shown)
        lines = [f"# run at the value shown sufficient: {phase.describe()}" for phase in result.phases]
        lines += [f"{args.knob} = {_knob_text(args.knob, result.value, sufficient=True)}  shown sufficient (certified eps upper bound "
                  f"{printed.upper(result.epsilon_upper)} <= {args.target_epsilon:g}); {args.knob} = {not_shown}  not shown "
                  "sufficient"]
    envelope = answer("calibrate", kind, _inputs(args), [phase.describe() for phase in run], attrs, lines[-1], [row])
    print(dump(envelope) if args.json else "\n".join(lines))
    return 0
