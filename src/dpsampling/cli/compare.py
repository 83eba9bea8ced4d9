"""``dpsampling compare``: what each way of batching costs for one training run, through the face.

    dpsampling compare --dataset-size 50000 --batch-size 256 --epochs 10 --delta 1e-5 --sigma 1
    dpsampling compare --dataset-size 50000 --batch-size 256 --epochs 10 --delta 1e-5 --target-epsilon 2

are, in Python, ``compare_epsilons(1.0, 1e-5, dataset_size=50000, batch_size=256, epochs=10)`` and
``compare_sigmas(2.0, 1e-5, dataset_size=50000, batch_size=256, epochs=10)``, the same numbers bit
for bit. Every sampler runs the same data: poisson and wor at rate q = B / N, the others in
T = ceil(N / B) batches per epoch. The answer ends with the number to report for the sampler your
data loader runs (``--sampler``); without it, with ``--sigma``, one sentence per sampler, each
led by its sampler's name (no single sentence to paste by mistake), and with ``--target-epsilon``
none (``--sampler`` asks for it). ``--json``: a ``bounds`` answer (``attrs.statements``: every
sampler's sentence; ``attrs.plot``: the curves of ``--plot``) or a ``calibrations`` answer
(``attrs.words``: what each sigma is); ``statement`` is null without ``--sampler``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.calibrate import DEFAULT_RTOL
from dpsampling.accountants.compare import COMPARE_RELATIONS, compare_epsilons, compare_sigmas
from dpsampling.accountants.frames import statement, wide
from dpsampling.accountants.relations import DEFAULT_RELATION
from dpsampling.accountants.run import Phase
from dpsampling.cli.arguments import FLAGS, accuracy, add_accounting_arguments, add_output_arguments, add_run_arguments
from dpsampling.cli.arguments import rtol as rtol_of
from dpsampling.cli.arguments import run_keywords as _keywords
from dpsampling.cli.main import OneLineParser
from dpsampling.cli.output import WORDS, answer, bounds_records, dump, records, table
from dpsampling.cli.paths import output_file
from dpsampling.cli.plot import PLOT_SUFFIXES, plot_comparison
from dpsampling.samplers import PAPER_SAMPLERS

RUN = ("dataset_size", "batch_size", "epochs", "steps")
"""The run flags of compare: the data, and its length (epochs, or total steps)."""

EXAMPLES = """examples:
  dpsampling compare --dataset-size 50000 --batch-size 256 --epochs 10 --delta 1e-5 --sigma 1.0 --sampler shuffle
  dpsampling compare --dataset-size 50000 --batch-size 256 --epochs 10 --delta 1e-5 --target-epsilon 2 --json
  dpsampling compare --dataset-size 50000 --batch-size 256 --steps 1960 --delta 1e-5 --sigma 1.0 --plot eps.png

With --sigma: each sampler's eps bracket at delta (the relation's row; every direction in
--json), whether its pair is tight (else the bounds only bracket eps: shuffle) and whether the
bracket met --accuracy. With --target-epsilon: the sigma each sampler needs -- shown sufficient
(its certified upper bound meets the target), the largest not shown sufficient, and the largest
shown insufficient (its lower bound exceeds the target) -- the one calibration of
`dpsampling calibrate` and Python's calibrate_sigma.
"""


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description="Every batch sampler on one training run: eps bounds at a sigma, or "
                                                  "the sigma each needs for a target eps.",
                           epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(parser, RUN, required=("dataset_size", "batch_size"))
    parser.add_argument("--delta", type=float, required=True, metavar="D", help="delta in (0, 1)")
    noise = parser.add_mutually_exclusive_group(required=True)
    noise.add_argument("--sigma", type=float, metavar="S", help="noise multiplier: report each sampler's eps bounds")
    noise.add_argument("--target-epsilon", type=float, metavar="E", help="target eps: report the sigma each needs")
    parser.add_argument("--sampler", choices=PAPER_SAMPLERS,
                        help="the sampler your data loader runs: its row gives the number to report")
    add_accounting_arguments(parser, relations=COMPARE_RELATIONS, engine=False)
    parser.add_argument("--rtol", type=float, metavar="R",
                        help=f"--target-epsilon: relative width of each sigma bracket (default {DEFAULT_RTOL:g})")
    parser.add_argument("--plot", metavar="FILE", help="--sigma: also draw eps against sigma for every sampler (.png "
                                                       "or .pdf; written whole or not at all)")
    add_output_arguments(parser)
    return parser


def flags(args) -> dict:
    return FLAGS


def run(args) -> int:
    keywords = _keywords(args, RUN)
    if args.sigma is not None:
        if args.rtol is not None:
            raise ValueError(f"--rtol applies to --target-epsilon (the width of a sigma bracket); got --rtol {args.rtol} "
                             "with --sigma")
        document, text = _epsilons(args, keywords, _plot_path(args.plot))
    else:
        if args.plot is not None:
            raise ValueError("--plot applies to --sigma (it marks the run's sigma); got --plot with --target-epsilon")
        document, text = _sigmas(args, keywords)
    print(dump(document) if args.json else "\n".join(text))
    return 0


def _plot_path(path: str | None) -> Path | None:
    """A file that can be written (checked before any computation; nothing is written yet)."""
    return None if path is None else output_file(path, "--plot", PLOT_SUFFIXES)


def _epsilons(args, keywords: dict, plot: Path | None) -> tuple[dict, list[str]]:
    relation = args.relation or DEFAULT_RELATION
    frame = compare_epsilons(args.sigma, args.delta, relation=relation, accuracy=accuracy(args), **keywords)
    samplers = list(dict.fromkeys(frame["sampler"]))
    sampler = args.sampler
    statements = {name: statement(frame, sampler=name) for name in samplers}
    run = [Phase(name, args.sigma, **keywords).describe() for name in samplers]
    attrs = {**frame.attrs, "statements": statements}
    if plot is not None:
        attrs["plot"] = {"file": str(plot), **plot_comparison(args.sigma, args.delta, relation, accuracy(args), keywords,
                                                              plot)}
    document = answer("compare", "bounds", _inputs(args), run, attrs, statements.get(sampler), bounds_records(frame))
    rows = wide(frame).to_dict("records")
    for row in rows:
        row["pair"] = "tight" if row["tight_pair"] else "bracket"
    columns = [("sampler", "sampler"), ("steps", "total_steps"), ("steps_per_epoch", "steps/epoch"),
               ("sampling_rate", "rate"), ("expected_batch_size", "batch"), ("epsilon_lower", "eps_lower"),
               ("epsilon_upper", "eps_upper"), ("converged", "converged"), ("pair", "pair")]
    text = [f"# run: N = {args.dataset_size:,} examples, batch size {args.batch_size}, {_length(frame)}; sigma "
            f"{args.sigma:g}, delta {args.delta:g}, relation {relation} (eps_lower/eps_upper: the {frame.attrs['headline']} "
            f"row), accuracy {accuracy(args):g}",
            table(rows, columns, width=10)]
    text += [f"  {row['sampler']}: lower {row['lower_method']}; upper {row['upper_method']}" for row in rows]
    if plot is not None:
        text.append(f"wrote {plot}")
    if sampler is not None:
        text += [f"Number to report for {sampler} (--sampler):", statements[sampler]]
    else:
        text.append("Number to report, per sampler (the one your data loader runs; --sampler gives it alone):")
        text += [f"  {name}: {sentence}" for name, sentence in statements.items()]
    return document, text


def _length(frame) -> str:
    first = frame.iloc[0]
    return f"{first['epochs']} epoch(s) of {first['steps_per_epoch']} steps ({first['steps']} steps)"


def _sigmas(args, keywords: dict) -> tuple[dict, list[str]]:
    relation = args.relation or DEFAULT_RELATION
    rtol = rtol_of(args)
    frame = compare_sigmas(args.target_epsilon, args.delta, relation=relation, accuracy=accuracy(args), rtol=rtol,
                           **keywords)
    rows = records(frame)
    sampler, sentence, sigma = args.sampler, None, None
    if sampler is not None:
        sigma = next(row for row in rows if row["sampler"] == sampler)["sigma_sufficient"]
        at = Phase(sampler, sigma, **keywords)
        sentence = statement(Accountant(at, relation=relation, accuracy=accuracy(args)).epsilon_bounds([args.delta]))
    run = [Phase(row["sampler"], row["sigma_sufficient"], **keywords).describe() for row in rows]
    document = answer("compare", "calibrations", _inputs(args), run, {**frame.attrs, "words": WORDS}, sentence, rows)
    columns = [("sampler", "sampler"), ("steps", "total_steps"), ("sampling_rate", "rate"),
               ("sigma_sufficient", "shown_sufficient"), ("sigma_not_shown_sufficient", "not_shown_suff"),
               ("sigma_shown_insufficient", "shown_insuff"), ("epsilon_upper", "eps_upper")]
    text = [
        f"# run: N = {args.dataset_size:,} examples, batch size {args.batch_size}; target eps {args.target_epsilon:g}, "
        f"delta {args.delta:g}, relation {relation}, accuracy {accuracy(args):g}, rtol {rtol:g}",
        "# sigma shown sufficient: the certified upper bound meets the target; not shown sufficient: the largest sigma "
        "tried whose upper bound does not; shown insufficient: the largest whose lower bound exceeds it (- if none)",
        table(rows, columns, width=10)]
    if sampler is not None:
        text += [f"Number to report for {sampler} at sigma {sigma:.6g} (--sampler):", sentence]
    else:
        text.append("Number to report: --sampler (the sampler your data loader runs) gives its sentence at its sigma")
    return document, text


def _inputs(args) -> dict:
    names = (*RUN, "delta", "sigma", "target_epsilon", "sampler", "relation", "accuracy", "rtol", "plot")
    return {name: getattr(args, name) for name in names}
