"""The flags the accounting commands share, in the face's vocabulary, and the one table from the
face's argument names to them.

A run is described as ``run.Phase`` describes it (its module docstring): ``--steps`` is the TOTAL
number of steps; ``--epochs`` goes with ``--steps-per-epoch`` (or ``--dataset-size`` and
``--batch-size``); poisson and wor need ``--sampling-rate`` (or the dataset and batch sizes):
there is no default rate. Each flag is handed to the face as the keyword of the same name, and
the face does every check; its messages name the keyword, and ``FLAGS`` turns that into the flag.
"""

from __future__ import annotations

import argparse

from dpsampling.accountants.accountant import METHODS, Accountant
from dpsampling.accountants.certified.engine import DEFAULT_MAX_GRID_POINTS
from dpsampling.accountants.limits import DEFAULT_TIME_LIMIT
from dpsampling.accountants.relations import ADD_OR_REMOVE, DEFAULT_RELATION, REFINE_CHOICES, RELATIONS
from dpsampling.accountants.run import RUN_FIELDS, SEPARATION_FIELDS, STEPS_ALONE, Phase
from dpsampling.samplers import relation_help

FLAGS = {
    "sampler": "--sampler",
    "sigma": "--sigma",
    "steps": "--steps",
    "epochs": "--epochs",
    "steps_per_epoch": "--steps-per-epoch",
    "sampling_rate": "--sampling-rate",
    "dataset_size": "--dataset-size",
    "batch_size": "--batch-size",
    "epsilon": "--epsilon",
    "delta": "--delta",
    "target_epsilon": "--target-epsilon",
    "relation": "--relation",
    "accuracy": "--accuracy",
    "refine": "--refine",
    "method": "--method",
    "max_grid_points": "--max-grid-points",
    "coefficients": "--coefficients",
    "min_separation": "--min-separation",
    "warm_start": "--warm-start",
    "rtol": "--rtol",
    "time_limit": "--time-limit",
}
"""The face's argument name (the first word of its ValueError) -> the flag that sets it."""

DEFAULT_ACCURACY = 0.01
FLAG_METHODS = tuple(method for method in METHODS if method != "monte_carlo")
"""--method's choices (Monte Carlo of correlated noise is asked for by --samples, --seed, --error-prob)."""

def whole(text: str):
    """An integer flag: '1e12' is read as 10**12; a value that is not whole is handed on as a float
    for the face to refuse (naming the argument and the value)."""
    try:
        return int(text)
    except ValueError:
        value = float(text)  # argparse turns a ValueError here into 'invalid whole value'
        return int(value) if value.is_integer() else value


RUN_HELP = {
    "steps": ("N", whole, "TOTAL steps of the run (Opacus' steps, dp_accounting's count); epoch-based samplers: "
                        "N / T epochs, with --steps-per-epoch T (or --dataset-size and --batch-size). Not with "
                        "--epochs"),
    "epochs": ("K", whole, "epochs, with --steps-per-epoch, or --dataset-size and --batch-size (T = ceil(N / B)); "
                         "poisson and wor: also with the rate alone (T = ceil(1 / Q))"),
    "steps_per_epoch": ("T", whole, "steps (batches) per epoch"),
    "sampling_rate": ("Q", float, "poisson and wor: the sampling rate q in (0, 1] (or --dataset-size and "
                                  "--batch-size: q = B / N); there is no default rate"),
    "dataset_size": ("N", whole, "examples in the dataset (with --batch-size)"),
    "batch_size": ("B", whole, "(expected) batch size (with --dataset-size)"),
}


def add_run_arguments(parser: argparse.ArgumentParser, fields=RUN_FIELDS, required=()) -> None:
    """The run description flags of ``fields`` (``run.RUN_FIELDS``), None when not given."""
    group = parser.add_argument_group(
        "the run", "Described as in Python's Phase(sampler, sigma, steps=..., epochs=..., ...): --steps is the "
                   "total number of steps; poisson and wor need a rate. The output states the run in full.")
    for field in fields:
        metavar, kind, text = RUN_HELP[field]
        group.add_argument(FLAGS[field], dest=field, type=kind, metavar=metavar, required=field in required,
                           help=text)


def coefficients(text: str) -> list[float]:
    """--coefficients: 'c0,c1,...' or '@FILE' (numbers separated by commas or white space); a
    refusal names the flag and what it got (the face checks the values)."""
    source = text
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as handle:
                source = handle.read()
        except OSError as error:
            raise ValueError(f"--coefficients @FILE must name a readable file; got {text!r} ({error.strerror})") from None
    words = source.replace(",", " ").split()
    try:
        return [float(word) for word in words]
    except ValueError:
        raise ValueError(f"--coefficients must be numbers separated by commas or white space (or @FILE of them); got "
                         f"{text!r}") from None


def add_noise_arguments(parser: argparse.ArgumentParser) -> None:
    """--coefficients: the first column of the banded Toeplitz C of correlated noise (docs/MATRIX.md);
    --min-separation and --warm-start: b_min_sep's sampling (``run.SEPARATION_FIELDS``)."""
    parser.add_argument("--coefficients", metavar="C0,C1,...|@FILE", default=None,
                        help="correlated noise (DP matrix factorization, docs/MATRIX.md): the first column of the "
                             "banded Toeplitz C, c0,c1,... or @FILE; default 1 (DP-SGD, today's answer bit for bit); "
                             "balls_and_bins, poisson and the correlated-noise samplers cyclic_poisson, b_min_sep, "
                             "fixed_balls_and_bins")
    parser.add_argument(FLAGS["min_separation"], dest="min_separation", type=whole, metavar="B", default=None,
                        help="b_min_sep: the fewest steps between two participations of an example")
    parser.add_argument(FLAGS["warm_start"], dest="warm_start", action="store_const", const=True, default=None,
                        help="b_min_sep: start from the stationary law of the last participation (default: cold start)")


def phases_of(args, sigma: float) -> tuple[Phase, ...]:
    """The run: one Phase of --sampler at ``sigma`` and the run flags, or the schedule's phases
    (then no run flag may be given: the file describes the whole run)."""
    if args.schedule is None:
        keywords = run_keywords(args)
        if getattr(args, "coefficients", None) is not None:
            keywords["coefficients"] = coefficients(args.coefficients)
        keywords.update(run_keywords(args, SEPARATION_FIELDS))
        try:
            return (Phase(args.sampler, sigma, **keywords),)
        except ValueError as error:
            if str(error).startswith(STEPS_ALONE):
                _steps_alone(args.sampler, keywords)
            raise
    given = [FLAGS[name] for name in ("sampler", "sigma", *RUN_FIELDS, "coefficients", *SEPARATION_FIELDS)
             if getattr(args, name, None) is not None]
    if given:
        raise ValueError(f"--schedule describes the whole run (each phase's sampler, sigma and length); got "
                         f"{given[0]} too (write it into the file)")
    from dpsampling.accountants.schedule import load_schedule  # yaml, imported for a schedule only

    return load_schedule(args.schedule)


def _steps_alone(sampler: str, keywords: dict) -> None:
    """``run.Phase``'s refusal of steps alone for an epoch-based sampler, in the flags' words."""
    raise ValueError(f"--steps alone does not describe a run of sampler {sampler} (its cost depends on how the steps "
                     "are cut into epochs: 4,700 steps as one epoch cost far less than 20 epochs of 235): give "
                     "--steps-per-epoch with --epochs (or with --steps), or --dataset-size and --batch-size; got "
                     f"--steps {keywords['steps']} alone")


def run_keywords(args, fields=RUN_FIELDS) -> dict:
    """The ``Phase`` keywords the user gave."""
    return {field: getattr(args, field) for field in fields if getattr(args, field, None) is not None}


def add_accounting_arguments(parser: argparse.ArgumentParser, relations=RELATIONS, engine: bool = True) -> None:
    """--relation and --accuracy; with ``engine``: --refine, --method (the face's ``method=``) and
    --max-grid-points."""
    group = parser.add_argument_group("accounting", f"Relations per sampler: {relation_help()}.")
    group.add_argument("--relation", choices=relations, default=None,
                       help=f"adjacency relation the headline bounds are of (default {DEFAULT_RELATION}: the maximum "
                            "of the remove and add directions; every direction is reported)")
    group.add_argument("--accuracy", type=float, metavar="A", default=None,
                       help=f"refine until (upper - lower) / upper <= A, in (0, 1) (default {DEFAULT_ACCURACY:g})")
    group.add_argument("--time-limit", type=float, metavar="S", default=DEFAULT_TIME_LIMIT,
                       help=f"refuse a query once both its CPU and its wall-clock time pass S seconds (default "
                            f"{DEFAULT_TIME_LIMIT:g}; 'inf': none); a terminal sees the engine's estimates")
    if not engine:
        return
    group.add_argument("--refine", choices=REFINE_CHOICES, default=None,
                       help="certified engine: bring every direction within --accuracy (all, the default) or only "
                            "the one --relation reads (relation: faster, the others as reached)")
    group.add_argument(FLAGS["method"], dest="method", choices=FLAG_METHODS, default=None,
                       help="certified (the engine, the default), or a reference method of dp-accounting for one "
                            "poisson or wor phase, not certified: dp_accounting (its PLD, under add/remove) or rdp "
                            "(its RDP accountant: an upper bound only)")
    group.add_argument("--max-grid-points", type=whole, metavar="N", default=None,
                       help=f"certified engine: the largest discrete law it may build (default {DEFAULT_MAX_GRID_POINTS:,})")


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")


def engine_options(phases, args) -> dict:
    """Accountant keywords from the flags; --refine and --max-grid-points are refused where the
    Accountant says it answers without refining a grid (``Accountant.closed_form``: they would
    change nothing)."""
    options = {"method": args.method or METHODS[0], "refine": args.refine or REFINE_CHOICES[0],
               "max_grid_points": DEFAULT_MAX_GRID_POINTS if args.max_grid_points is None else args.max_grid_points}
    closed = make_accountant(phases, args, options).closed_form()
    for flag, value in (("--refine", args.refine), ("--max-grid-points", args.max_grid_points)):
        if value is not None and closed:
            raise ValueError(f"{flag} applies where the certified engine refines a grid; {closed}, so it would change "
                             f"nothing; got {flag} {value}")
    if args.refine is not None and (args.relation or DEFAULT_RELATION) not in ADD_OR_REMOVE:
        raise ValueError(f"--refine applies to the add and remove directions; under {args.relation} both are one "
                         f"curve, refined as a whole; got --refine {args.refine}")
    return options


def make_accountant(phases, args, options: dict | None = None) -> Accountant:
    """The one Accountant of the flags (the face checks them); ``options``: engine_options'."""
    return Accountant(phases, relation=args.relation or DEFAULT_RELATION, accuracy=accuracy(args),
                      **(engine_options(phases, args) if options is None else options))


def rtol(args) -> float:
    """--rtol, or calibrate's default (the face checks it: ``calibrate.check_rtol``)."""
    from dpsampling.accountants.calibrate import DEFAULT_RTOL

    return DEFAULT_RTOL if args.rtol is None else args.rtol


def accuracy(args) -> float:
    """--accuracy, or the default (the face checks it: ``Accountant``)."""
    return DEFAULT_ACCURACY if args.accuracy is None else args.accuracy


__all__ = ["DEFAULT_ACCURACY", "accuracy", "rtol", "FLAGS", "add_accounting_arguments", "add_output_arguments", "add_run_arguments",
           "add_noise_arguments", "coefficients", "engine_options", "make_accountant", "run_keywords"]
