"""``dpsampling audit``: which sampler a loader's index batches behave like, and the accountant check.

    dpsampling audit train:make_loader --epochs 3
    dpsampling audit train:make_loader --assumed poisson --sigma 1.1 --sampling-rate 0.00427 --steps 4700 --delta 1e-5
    dpsampling audit train:make_loader --accountant train:make_engine --delta 1e-5

is, in Python (docs/AUDIT.md),

    from dpsampling import audit
    from dpsampling.auditing import check_accountant
    verdict = audit(make_loader(), epochs=3)
    check_accountant(verdict, Phase("poisson", 1.1, sampling_rate=0.00427, steps=4700), 1e-5).sentence

``MODULE:FUNCTION`` is imported from the current directory (or the Python path) and called with
no arguments; it returns the loader (the accountant). ``--json``: an ``audit`` answer
(``output.answer``): ``attrs.verdict`` the verdict; with a check, ``rows`` the face's long frames
(one block per run: columns ``run`` and ``sampler``), ``attrs`` also their attrs, ``run`` the
assumed and the loader's run and ``statement`` the sentence (without a check: no rows, no run,
and the verdict's line ``your loader ...``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import os
import sys
import sysconfig
import traceback
from pathlib import Path

from dpsampling import SAMPLERS
from dpsampling.accountants.relations import ADD_OR_REMOVE, DEFAULT_RELATION
from dpsampling.accountants.run import Phase
from dpsampling.auditing import DEFAULT_ALPHA, audit, check_accountant
from dpsampling.cli.arguments import whole
from dpsampling.cli.main import PACKAGE, OneLineParser, _raised_by_package
from dpsampling.cli.output import answer, dump, records

FLAGS = {"loader": "LOADER", "accountant": "--accountant", "epochs": "--epochs", "dataset_size": "--dataset-size",
         "steps_per_epoch": "--steps-per-epoch", "batch_size": "--batch-size", "seed": "--seed", "alpha": "--alpha",
         "sampler": "--assumed", "sigma": "--sigma", "sampling_rate": "--sampling-rate", "steps": "--steps",
         "delta": "--delta", "relation": "--relation"}
"""The argument names of the library's messages -> the flags that set them."""

EXAMPLES = """examples:
  dpsampling audit train:make_loader
  dpsampling audit train:make_loader --assumed poisson --sigma 1.1 --sampling-rate 0.00427 --steps 4700 --delta 1e-5
  dpsampling audit train:make_loader --accountant train:make_engine --delta 1e-5 --json

The loader is read for its index batches only (never the data): a PyTorch DataLoader (its
batch_sampler), Opacus' DPDataLoader, a Sampler or BatchSampler, a jax-privacy batch selection
strategy (with --dataset-size), dpsampling's BatchSampler, or any iterable of index batches.
The verdict names the sampler the batches behave like, or what is wrong and what it means for
the accounting; every test's false-alarm rate is at most --alpha together (docs/AUDIT.md).
"""


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description="Which sampler a data loader's batches behave like, and what it "
                                                  "means for the eps your accountant reports.",
                           epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("loader", metavar="LOADER", help="MODULE:FUNCTION returning the loader (called without "
                                                         "arguments)")
    group = parser.add_argument_group("reading the loader")
    group.add_argument("--epochs", type=whole, default=3, metavar="K", help="epochs to draw (default 3)")
    group.add_argument("--dataset-size", type=whole, metavar="N", help="examples in the dataset (default: the "
                       "loader's, else the largest index + 1)")
    group.add_argument("--steps-per-epoch", type=whole, metavar="T", help="cut one pass of the loader into epochs "
                       "of T batches (default: one iter() per epoch, or the strategy's own)")
    group.add_argument("--batch-size", type=whole, metavar="B", help="batch size of a sampler of single indices")
    group.add_argument("--seed", type=whole, default=0, metavar="S", help="seed of what the audit draws itself "
                       "(a jax-privacy strategy's rng)")
    group.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, metavar="A",
                       help=f"false-alarm rate of the whole audit, in (0, 1) (default {DEFAULT_ALPHA:g})")
    check = parser.add_argument_group("the accountant check", "What your accountant assumed: --accountant, or "
                                      "--assumed with --sigma, --steps (and --sampling-rate); then --delta.")
    check.add_argument("--accountant", metavar="MODULE:FUNCTION", help="returns an Opacus PrivacyEngine or "
                       "accountant (or its history), a dp_accounting DpEvent or a jax-privacy DpParams")
    check.add_argument("--assumed", dest="sampler", choices=SAMPLERS, help="the sampler your accountant assumed")
    check.add_argument("--sigma", type=float, metavar="S", help="noise multiplier: noise std / clip norm")
    check.add_argument("--sampling-rate", type=float, metavar="Q", help="poisson and wor: the rate assumed")
    check.add_argument("--steps", type=whole, metavar="N", help="TOTAL steps of the training run")
    check.add_argument("--delta", type=float, metavar="D", help="delta in (0, 1) of the eps reported")
    check.add_argument("--relation", choices=ADD_OR_REMOVE, default=DEFAULT_RELATION, help="adjacency relation")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")
    return parser


def flags(args) -> dict:
    return FLAGS


def resolve(name: str, spec: str):
    """Import ``MODULE:FUNCTION`` (the current directory first on the path) and call it."""
    module_name, _, function = spec.partition(":")
    if not module_name or not function:
        raise ValueError(f"{name} must be MODULE:FUNCTION; got {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target = getattr(importlib.import_module(module_name), function)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"{name} must name an importable function; got {spec!r} ({error})") from None
    except Exception as error:  # their module failed on import
        said = users_error(name, error)
        if said is None:
            raise
        raise said from error
    if not callable(target):
        raise ValueError(f"{name} must name a function; got {spec!r}, a {type(target).__name__}")
    with theirs(name):
        return target()


def users_error(name: str, error: BaseException) -> ValueError | None:
    """``error`` said as the user's, one line, where its traceback passes through their code (a
    file outside dpsampling and the installed libraries): what and where, from its last such frame."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if _users_file(f.filename)]
    if not frames:
        return None
    where = frames[-1]
    message = " ".join(str(error).split()) or "(no message)"
    return ValueError(f"{name} raised {type(error).__name__}: {message} (in your code, {Path(where.filename).name}:"
                      f"{where.lineno} in {where.name}; not an error of dpsampling)")


def _users_file(filename: str) -> bool:
    path = Path(filename).resolve()
    libraries = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sysconfig.get_paths()["purelib"])}
    return not filename.startswith("<") and not path.is_relative_to(PACKAGE) and \
        not any(path.is_relative_to(root) for root in libraries)


@contextlib.contextmanager
def theirs(name: str):
    """Run the user's code (their loader, their accountant): an exception from it is a refusal
    naming it (``users_error``); one of dpsampling's own stays as it is."""
    try:
        yield
    except Exception as error:
        said = None if isinstance(error, ValueError) and _raised_by_package(error) else users_error(name, error)
        if said is None:
            raise
        raise said from error


def _assumed(args):
    """The accountant the flags describe (None: no check asked for)."""
    given = [FLAGS[n] for n in ("sampler", "sigma", "sampling_rate") if getattr(args, n) is not None]
    if args.accountant is not None:
        if given:
            raise ValueError(f"accountant describes the assumed run itself; got {given[0]} too")
        return resolve("accountant", args.accountant)  # an object, never taken as a sampler's name
    if not given:
        if args.delta is not None:
            raise ValueError("delta applies to the accountant check: give --accountant, or --assumed with --sigma and "
                             "--steps; got --delta alone")
        return None
    if args.sampler is None or args.sigma is None or args.steps is None:
        raise ValueError("sampler (with sigma and steps) describes the run your accountant assumed; give --assumed, "
                         f"--sigma and --steps together; got {', '.join(given)}")
    if args.sampling_rate is not None:
        return Phase(args.sampler, args.sigma, sampling_rate=args.sampling_rate, steps=args.steps)
    return AssumedSampler(args.sampler)


class AssumedSampler(str):
    """--assumed of an epoch-based sampler: its phase is made on the loader's T (``_phase_of_sampler``)."""


def _phase_of_sampler(sampler: str, args, verdict) -> Phase:
    """An epoch-based assumed sampler on the loader's T batches per epoch."""
    per_epoch = verdict.facts["steps_per_epoch"]
    return Phase(sampler, args.sigma, steps_per_epoch=per_epoch, epochs=max(1, math.ceil(args.steps / per_epoch)))


def verdict_document(verdict) -> dict:
    return {"sampler": verdict.sampler, "matches": verdict.matches, "behaviour": verdict.behaviour(),
            "consequence": verdict.consequence(), "bound": list(verdict.bound) if verdict.bound else None,
            "findings": [{"kind": f.kind, "text": f.text, "p_value": f.p_value} for f in verdict.findings],
            "tests": verdict.tests, "alpha": verdict.alpha, "facts": verdict.facts}


def run(args) -> int:
    assumed = _assumed(args)
    if assumed is not None and args.delta is None:
        raise ValueError("delta must be given for the accountant check (the eps reported is at a delta); got None")
    loader = resolve("loader", args.loader)
    with theirs("loader"):
        verdict = audit(loader, epochs=args.epochs, dataset_size=args.dataset_size,
                        steps_per_epoch=args.steps_per_epoch, batch_size=args.batch_size, seed=args.seed, alpha=args.alpha)
    inputs = {k: getattr(args, k) for k in FLAGS}
    attrs, run, rows, sentence = {"verdict": verdict_document(verdict)}, [], [], f"your loader {verdict.behaviour()}"
    lines = [f"# loader: {verdict.facts['source']}", *(f"# note: {note}" for note in verdict.facts["notes"]),
             f"your loader {verdict.behaviour()}", f"accounting: {verdict.consequence()}"]
    lines += [f"  {t['test']}: p = {t['p_value']:.3g} (rejected below {t['level']:.3g}){' REJECTED' * t['rejected']}"
              for t in verdict.tests]
    if assumed is not None:
        if isinstance(assumed, AssumedSampler):
            assumed = _phase_of_sampler(assumed, args, verdict)
        with theirs("accountant"):
            check = check_accountant(verdict, assumed, args.delta, steps=args.steps, relation=args.relation)
        attrs.update(check.frame.attrs)
        run = [f"{role}: {phase.describe()}" for role, phases in (("assumed", check.assumed), ("loader", check.loader))
               for phase in phases or ()]
        rows, sentence = records(check.frame), check.sentence
        lines.append(check.sentence)
    print(dump(answer("audit", "audit", inputs, run, attrs, sentence, rows)) if args.json else "\n".join(lines))
    return 0
