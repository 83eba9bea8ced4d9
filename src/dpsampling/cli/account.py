"""``dpsampling account``: certified (eps, delta) bounds of one run, through the one face.

    dpsampling account --sampler poisson --sigma 1.1 --sampling-rate 0.00426667 --steps 4700 --delta 1e-5

is, in Python,

    from dpsampling import Accountant, Phase, statement
    frame = Accountant(Phase("poisson", 1.1, sampling_rate=0.00426667, steps=4700)).epsilon_bounds([1e-5])
    statement(frame)

with the same numbers, bit for bit (``--json``: a ``bounds`` answer, ``output.answer``: its
``rows`` are the long frame's rows, each with its ``sampler``; ``attrs`` its attrs; the schema is
``cli/output.schema.json``). ``--schedule FILE`` is ``Accountant(load_schedule(FILE))``. Every
flag is a keyword of ``Phase`` or ``Accountant`` of the same name (``--method`` is
``Accountant(..., method=)``); the face checks them. Monte Carlo estimates of a sampler that has
them (``--estimator``: ``BallsBinsOptions(estimator=)``; the
registry's ``monte_carlo`` samplers) come from ``MONTE_CARLO_MODULE``, imported only when asked for.

Correlated noise (``--coefficients``, docs/MATRIX.md): a run with a certified reduction is answered
by the engine as any other; one without is refused unless ``--samples``, ``--seed`` or
``--error-prob`` is given, and then answered by ``Accountant(..., method="monte_carlo")``: Monte
Carlo confidence bounds, said in words to hold with probability >= 1 - beta, not certified.
"""

from __future__ import annotations

import argparse
import importlib

from dpsampling import SAMPLERS
from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.frames import statement
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
    make_accountant,
    phases_of,
    run_keywords,
)
from dpsampling.cli.main import OneLineParser
from dpsampling.cli.output import answer, bounds_records, bounds_table, dump, headline_words
from dpsampling.samplers import SAMPLERS as ENTRIES

MONTE_CARLO = tuple(name for name, spec in ENTRIES.items() if spec.monte_carlo)
"""Samplers with Monte Carlo estimators (the registry's ``monte_carlo``)."""
MONTE_CARLO_MODULE = "dpsampling.cli.ballsbins"
"""The module that runs them; imported when ``--estimator`` asks for one (it loads their kernels)."""
ESTIMATORS = ("naive", "importance", "order-stats", "importance+order-stats")
MONTE_CARLO_FLAGS = {"samples": "--samples", "seed": "--seed", "error_prob": "--error-prob", "orders": "--orders",
                     "epsilon_step": "--epsilon-step", "device": "--device", "estimator": "--estimator"}

EXAMPLES = """examples:
  dpsampling account --sampler poisson --sigma 1.1 --dataset-size 60000 --batch-size 256 --epochs 20 --delta 1e-5
  dpsampling account --sampler poisson --sigma 1.1 --sampling-rate 0.0042667 --steps 4700 --delta 1e-5
  dpsampling account --sampler wor --sigma 0.8 --sampling-rate 0.001 --steps 10000 --epsilon 1 2 --json
  dpsampling account --sampler wor --sigma 2 --sampling-rate 0.01 --steps 1000 --relation substitution --delta 1e-5
  dpsampling account --sampler balls_and_bins --sigma 1 --steps-per-epoch 196 --epochs 10 --delta 1e-5
  dpsampling account --sampler shuffle --sigma 0.5 --steps-per-epoch 1000 --epochs 10 --delta 1e-6
  dpsampling account --schedule run.yaml --delta 1e-5
  dpsampling account --sampler balls_and_bins --sigma 1 --steps-per-epoch 10 --epochs 2 --coefficients 1,0.5 \
      --epsilon 1 --samples 20000 --seed 0

The output states the run in full (total steps, steps per epoch, rate, expected batch size), the
bounds of every query value -- the headline (the relation's row) and each direction, remove =
D(P||Q), add = D(Q||P), and their maximum -- and, for --delta queries, the number to report.
Python: Accountant(Phase(...), relation=..., accuracy=...).epsilon_bounds(deltas) (docs/COMMANDS.md).
"""

MONTE_CARLO_HELP = """\
The papers' Monte Carlo estimators, reported beside the certified bounds (which stay the answer):
per direction the lower bound (6) (one epoch), the mean, its standard error and the KL upper
confidence bound (>= the true delta with probability >= 1 - --error-prob, per row). --delta
queries evaluate one sample set on the eps grid 0, h, 2h, ... (h = --epsilon-step)."""


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description="Certified lower and upper (eps, delta) bounds of one training run.",
                           epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sampler", choices=SAMPLERS, help="batch sampler (or --schedule)")
    parser.add_argument("--sigma", type=float, metavar="S", help="noise multiplier: noise std / clip norm (> 0)")
    parser.add_argument("--schedule", metavar="FILE",
                        help="a YAML file with a list 'phases' (each: sampler, sigma and the run flags' keywords): "
                             "the whole run, instead of --sampler, --sigma and the run flags")
    add_run_arguments(parser)
    add_noise_arguments(parser)
    query = parser.add_mutually_exclusive_group(required=True)
    query.add_argument("--epsilon", type=float, nargs="+", metavar="E", help="eps values (>= 0): bound delta")
    query.add_argument("--delta", type=float, nargs="+", metavar="D", help="delta values in (0, 1): bound eps")
    add_accounting_arguments(parser)
    add_output_arguments(parser)
    group = parser.add_argument_group(f"Monte Carlo ({', '.join(MONTE_CARLO)})", MONTE_CARLO_HELP)
    group.add_argument("--estimator", choices=ESTIMATORS, default=None,
                       help="naive (Alg. 4), importance (Alg. 5), order-stats (Alg. 6, needs --orders), "
                            "importance+order-stats (App. B.3)")
    group.add_argument("--samples", type=int, metavar="M", help="samples per direction (and per eps with importance)")
    group.add_argument("--seed", type=int, metavar="N", help="seed of numpy.random.SeedSequence")
    group.add_argument("--error-prob", type=float, metavar="BETA", help="beta of the upper confidence bound, in (0, 1)")
    group.add_argument("--orders", metavar="LIST", help="order statistics, e.g. '1..500,510..1000/10'")
    group.add_argument("--epsilon-step", type=float, metavar="H", help="eps grid step of --delta queries")
    group.add_argument("--device", choices=("cpu", "cuda", "auto"),
                       help="where the samples are drawn (same streams, same numbers); default cpu")
    return parser


def monte_carlo_given(args) -> list[str]:
    """The Monte Carlo flags given."""
    return [flag for name, flag in MONTE_CARLO_FLAGS.items() if getattr(args, name) is not None]


def flags(args) -> dict:
    """FLAGS; with --estimator the Monte Carlo flags too (the face's --method is refused beside it)."""
    return {**FLAGS, **MONTE_CARLO_FLAGS} if args.estimator is not None else FLAGS


MATRIX_MONTE_CARLO_FLAGS = ("samples", "seed", "error_prob")
"""The flags that ask for the Monte Carlo of correlated noise without a certified bound."""


def run(args) -> int:
    phases = phases_of(args, args.sigma)
    if reduced_phases(phases)[1]:
        return _matrix_monte_carlo(args, phases)
    if args.estimator is not None and args.method is not None:
        raise ValueError(f"--method applies without --estimator: Monte Carlo is shown beside the certified engine's "
                         f"bounds; got --method {args.method} with --estimator {args.estimator}")
    accountant = make_accountant(phases, args)
    if monte_carlo_given(args):
        return _monte_carlo(args, phases, accountant)
    # the face's answer as LongRows: the same rows as epsilon_bounds / delta_bounds, without pandas
    frame = accountant.epsilon_rows(args.delta) if args.delta is not None else accountant.delta_rows(args.epsilon)
    document = account_document(args, phases, frame)
    print(dump(document) if args.json else account_text(document, frame))
    return 0


def inputs(args) -> dict:
    """The flags as given (None: not given)."""
    names = ("sampler", "sigma", "schedule", *RUN_FIELDS, "coefficients", "epsilon", "delta", "relation", "accuracy",
             "refine", "method", "max_grid_points", *MONTE_CARLO_FLAGS)
    return {**{name: getattr(args, name) for name in names}, **run_keywords(args, SEPARATION_FIELDS)}


def account_document(args, phases, frame, rows: list[dict] | None = None, attrs: dict | None = None) -> dict:
    """The bounds answer: the run, the long frame's rows (each with its sampler; ``rows``: those
    rows with more fields), its attrs (``attrs``: with more) and the number to report."""
    sampler = " + ".join(phase.sampler for phase in phases)
    return answer("account", "bounds", inputs(args), [phase.describe() for phase in phases],
                  dict(frame.attrs) if attrs is None else attrs, statement(frame),
                  bounds_records(frame, sampler) if rows is None else rows)


def account_text(document: dict, frame) -> str:
    lines = [f"# run: {line}" for line in document["run"]]
    lines.append(f"# {headline_words(frame.attrs)}")
    lines.append(bounds_table(frame))
    lines.append(document["statement"])
    return "\n".join(lines)


def _matrix_monte_carlo(args, phases) -> int:
    """Correlated noise without a certified reduction: refused unless a Monte Carlo flag is given,
    then the face's Monte Carlo answer (module docstring)."""
    given = [MONTE_CARLO_FLAGS[name] for name in MONTE_CARLO_FLAGS if getattr(args, name) is not None]
    if not any(getattr(args, name) is not None for name in MATRIX_MONTE_CARLO_FLAGS):
        raise ValueError(f"there is no certified bound for this run ({' + '.join(p.describe() for p in phases)}; "
                         "docs/MATRIX.md): give --samples M (and --error-prob, --seed) for a Monte Carlo answer with "
                         "a confidence bound, not certified")
    extra = [flag for flag in given if flag not in ("--samples", "--seed", "--error-prob")]
    extra += [flag for flag, value in ((FLAGS["method"], args.method), ("--refine", args.refine),
                                       ("--max-grid-points", args.max_grid_points)) if value is not None]
    if extra:
        raise ValueError(f"{extra[0]} does not apply to the Monte Carlo of correlated noise (--samples, --seed, "
                         f"--error-prob do); got {extra[0]}")
    accountant = Accountant(phases, relation=args.relation or DEFAULT_RELATION, accuracy=accuracy(args),
                            method="monte_carlo", samples=args.samples, error_prob=args.error_prob, seed=args.seed)
    frame = accountant.epsilon_rows(args.delta) if args.delta is not None else accountant.delta_rows(args.epsilon)
    document = account_document(args, phases, frame)
    print(dump(document) if args.json else account_text(document, frame))
    return 0


def _monte_carlo(args, phases, accountant) -> int:
    if len(phases) != 1 or phases[0].sampler not in MONTE_CARLO:
        what = "a schedule" if args.schedule is not None else f"sampler {phases[0].sampler}"
        raise ValueError(f"{monte_carlo_given(args)[0]} applies to the Monte Carlo estimators of "
                         f"{', '.join(MONTE_CARLO)} (one phase) only; got it with {what}")
    if args.estimator is None:
        raise ValueError(f"{monte_carlo_given(args)[0]} applies to the Monte Carlo estimators: choose --estimator "
                         f"{' | '.join(ESTIMATORS)}; got no --estimator")
    return importlib.import_module(MONTE_CARLO_MODULE).account(args, phases[0], accountant)
