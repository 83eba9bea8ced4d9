"""``python -m dpsampling.benchmark``: see dpsampling.benchmark and docs/BENCHMARKS.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numba

from dpsampling.benchmark.cases import CASE_NAMES, CASES
from dpsampling.benchmark.reference import load_reference
from dpsampling.benchmark.runner import DEFAULT_KS_SAMPLES, BenchmarkDisagreement, run_benchmark, write_outputs
from dpsampling.validation import check_int_at_least, check_positive


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="python -m dpsampling.benchmark",
        description="Time dpsampling's balls-and-bins estimators against the authors' "
                    "implementation (random-allocation) on identical work.")
    parser.add_argument("--output", default="results/benchmarks/mc_throughput.csv",
                        help="CSV path (the JSON sidecar goes next to it, suffix .json)")
    parser.add_argument("--cases", nargs="+", choices=CASE_NAMES, default=list(CASE_NAMES),
                        help="cases to run (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats per side (median reported)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of each case's sample count (1 = the stated sizes)")
    parser.add_argument("--threads", type=int, default=None, help="Numba threads (default: all cores)")
    parser.add_argument("--seed", type=int, default=2025, help="seed of both sides")
    parser.add_argument("--ks-samples", type=int, default=DEFAULT_KS_SAMPLES,
                        help="reference loss samples for the KS agreement check")
    parser.add_argument("--no-reference", action="store_true", help="time ours only")
    parser.add_argument("--measure-compile", action="store_true",
                        help="also time a cold compile of our kernels in a fresh process")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)

    def log(message):
        print(message, file=sys.stderr, flush=True)

    try:
        repeats = check_int_at_least("--repeats", args.repeats, 1)
        scale = check_positive("--scale", args.scale)
        ks_samples = check_int_at_least("--ks-samples", args.ks_samples, 10)
        seed = check_int_at_least("--seed", args.seed, 0)
        if args.threads is not None:
            numba.set_num_threads(check_int_at_least("--threads", args.threads, 1))
    except ValueError as error:
        print(f"python -m dpsampling.benchmark: error: {error}", file=sys.stderr)
        return 2
    reference = None
    if not args.no_reference:
        reference, reason = load_reference()
        if reference is None:
            log(reason)
    cases = [case.scaled(scale) for case in CASES if case.name in args.cases]
    try:
        table, document = run_benchmark(cases, repeats=repeats, reference=reference, seed=seed,
                                        ks_samples=ks_samples,
                                        measure_compile=args.measure_compile, log=log)
    except BenchmarkDisagreement as error:
        print(f"python -m dpsampling.benchmark: error: {error}", file=sys.stderr)
        return 1
    arguments = sys.argv[1:] if argv is None else list(argv)
    document["command"] = " ".join(["python -m dpsampling.benchmark", *arguments])
    output = Path(args.output)
    write_outputs(table, document, output, output.with_suffix(".json"))
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
