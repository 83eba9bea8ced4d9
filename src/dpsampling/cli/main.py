"""The ``dpsampling`` command: a table of subcommands, each in its own module, imported when it runs.

``dpsampling --help`` reads only ``COMMANDS`` (no numpy, pandas, numba or dp-accounting), so it
answers at once; ``dpsampling account ...`` imports ``dpsampling.cli.account`` (and the face)
and nothing else. Every command module has ``build_parser(prog)``, ``run(args)`` (the exit
status) and ``flags(args)``: the table from the face's argument names to the command's flags.

How a command ends (the same for every command):

- 0: the answer on stdout (a table, or one JSON document with ``--json``), printed once at the end;
- 2: bad input, one line ``dpsampling <command>: error: argument --flag: <the face's message>``
  on stderr. Bad input is a ``ValueError`` raised by a ``raise`` of the package's own checks (the
  face names the argument; ``flags(args)`` gives its flag; a message that names no argument of the
  table is printed as it is) or an argparse error;
- 1: an internal error (an ``AccountingError``: an answer that failed its own checks, or any
  other exception, including a ``ValueError`` raised outside the package, e.g. by numpy): one
  line saying so, the traceback with ``--debug``;
- 3: the query took longer than its time limit (``--time-limit``, default 50 s;
  ``accountants.limits``): one line saying so and how to raise it; not an error of the input;
- 130: Ctrl-C, one line. Output files are written atomically and stdout only at the end, so an
  interrupted command leaves nothing half-written.
"""

from __future__ import annotations

import argparse
import importlib
import linecache
import os
import re
import signal
import sys
import threading
import traceback
from pathlib import Path
from typing import NamedTuple

from dpsampling import __version__, progress


class Command(NamedTuple):
    module: str
    help: str


COMMANDS = {
    "account": Command("dpsampling.cli.account", "(eps, delta) bounds of a run: one sampler, or a schedule of phases"),
    "compare": Command("dpsampling.cli.compare", "every sampler on one training run: eps bounds, or the sigma needed"),
    "calibrate": Command("dpsampling.cli.calibrate", "the smallest sigma shown sufficient for a target (eps, delta)"),
    "estimate": Command("dpsampling.cli.estimate", "estimated core-hours per experiment of a config"),
    "report": Command("dpsampling.cli.report", "write results/REPORT.md from the results present"),
    "audit": Command("dpsampling.cli.audit", "which sampler a data loader's batches behave like; check the accountant"),
}
"""Subcommand -> (module, one-line help): the module is imported when its command runs."""

PACKAGE = Path(__file__).resolve().parent.parent
EXIT_USAGE, EXIT_INTERNAL, EXIT_TIME_LIMIT, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 2, 1, 3, 130, 141
NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE)
"""A negative number (-1e-5, -inf): a value, never taken for a flag (argparse's own test misses exponents)."""

_interrupted = threading.Event()


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2, and a negative number
    in any notation (``--delta -1e-5``) is read as a value, for the command to refuse by name."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NUMBER

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _top_parser() -> argparse.ArgumentParser:
    listing = "\n".join(f"  {name:<10} {command.help}" for name, command in COMMANDS.items())
    parser = OneLineParser(
        prog="dpsampling", usage="dpsampling [--version] COMMAND [options]",
        description="Privacy accounting of DP-SGD batch samplers, with certified lower and upper bounds.",
        epilog=f"commands:\n{listing}\n\n'dpsampling COMMAND --help' explains a command (docs/COMMANDS.md).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dpsampling {__version__}")
    parser.add_argument("command", nargs="?", choices=tuple(COMMANDS), metavar="COMMAND", help=argparse.SUPPRESS)
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def _on_sigint(signum, frame):
    _interrupted.set()
    raise KeyboardInterrupt


def _raised_by_package(error: BaseException) -> bool:
    """Whether ``error`` was raised by a ``raise`` statement of dpsampling's own code (one of its
    checks), not inside numpy, pandas or another library it calls (their errors surface in a
    frame of theirs, or at a call in ours)."""
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    if not Path(filename).resolve().is_relative_to(PACKAGE):
        return False
    return linecache.getline(filename, tb.tb_lineno).lstrip().startswith("raise ")


def usage_line(error: ValueError, table: dict) -> str:
    """The face's message, led by the flag of the argument it names (its first word)."""
    message = " ".join(str(error).split())
    flag = table.get(message.split(" ", 1)[0])
    return f"argument {flag}: {message}" if flag else message


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    parser = _top_parser()
    top = parser.parse_args(argv)
    if top.command is None:
        parser.error(f"a COMMAND is required, one of {', '.join(COMMANDS)}")
    name, rest = top.command, top.arguments
    prog = f"dpsampling {name}"
    debug = "--debug" in rest
    table: dict = {}
    main_thread = threading.current_thread() is threading.main_thread()  # signals are set there only
    handler = signal.signal(signal.SIGINT, _on_sigint) if main_thread else None
    _interrupted.clear()
    try:
        module = importlib.import_module(COMMANDS[name].module)
        args = module.build_parser(prog).parse_args(rest)
        table = module.flags(args)
        progress.enable(not getattr(args, "json", False))
        if getattr(args, "time_limit", None) is None:
            return module.run(args)
        from dpsampling.accountants import limits  # not for --help
        limits.set_query_limit(args.time_limit)
        try:
            return module.run(args)
        finally:
            limits.set_query_limit(None)
    except KeyboardInterrupt:
        return _interrupt(prog)
    except BrokenPipeError:  # the reader of stdout left (| head): stop quietly, as a pipeline expects
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except ValueError as error:
        if _interrupted.is_set():
            return _interrupt(prog)
        if type(error).__name__ == "TimeLimitExceeded":  # accountants.limits, not imported for --help
            return _timed_out(prog, error, rest)
        if _raised_by_package(error):
            print(f"{prog}: error: {usage_line(error, table)}", file=sys.stderr)
            return EXIT_USAGE
        return _internal(prog, error, debug)
    except Exception as error:  # an AccountingError, or a fault anywhere below: not the user's input
        if _interrupted.is_set():  # Ctrl-C inside compiled code surfaces as another exception
            return _interrupt(prog)
        return _internal(prog, error, debug)
    finally:
        if main_thread:  # the handler before ours (None: one not set from Python, i.e. the default)
            signal.signal(signal.SIGINT, signal.default_int_handler if handler is None else handler)


def _timed_out(prog: str, error: ValueError, rest: list[str]) -> int:
    """Exit 3: the query was stopped at the time limit (given, or the default): what, and how to raise it."""
    from dpsampling.accountants.limits import DEFAULT_TIME_LIMIT

    given = None
    for i, argument in enumerate(rest):
        if argument.startswith("--time-limit="):
            given = argument.split("=", 1)[1]
        elif argument == "--time-limit" and i + 1 < len(rest):
            given = rest[i + 1]
    limit = f"{float(given):g} s (--time-limit {given})" if given else \
        f"{DEFAULT_TIME_LIMIT:g} s (--time-limit, default {DEFAULT_TIME_LIMIT:g})"
    message = " ".join(str(error).split())
    detail = message.split("(CPU and wall-clock time) ", 1)[-1]
    print(f"{prog}: stopped: the query took longer than the time limit of {limit}, CPU and wall-clock time, so it "
          f"has no answer; stopped {detail}", file=sys.stderr)
    return EXIT_TIME_LIMIT


def _interrupt(prog: str) -> int:
    print(f"{prog}: interrupted (Ctrl-C); nothing was written", file=sys.stderr)
    return EXIT_INTERRUPTED


def _internal(prog: str, error: BaseException, debug: bool) -> int:
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    message = " ".join(str(error).split()) or "(no message)"
    message = message.removeprefix("internal error: ")
    hint = "" if debug else "; rerun with --debug for the traceback"
    print(f"{prog}: internal error: {type(error).__name__}: {message}{hint} (please report it with the command)",
          file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
