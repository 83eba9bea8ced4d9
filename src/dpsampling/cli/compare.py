"""``dpsampling compare``: what each way of batching costs for one training run, in one table."""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

import numpy as np

from dpsampling import SAMPLERS, __version__, progress
from dpsampling.accountants.compare import COMPARE_RELATIONS, Run, compare_epsilons, compare_sigmas, epsilon_bounds

EXAMPLES = """examples:
  dpsampling compare --dataset-size 50000 --batch-size 256 --epochs 10 --delta 1e-5 --sigma 1.0
  dpsampling compare --dataset-size 50000 --batch-size 256 --epochs 10 --delta 1e-5 --target-epsilon 2 --json
  dpsampling compare --dataset-size 50000 --batch-size 256 --epochs 10 --delta 1e-5 --sigma 1.0 --plot eps.png

One row per sampler (deterministic, shuffle, poisson, wor, balls_and_bins) on the same run: T =
ceil(n / b) steps per epoch; Poisson and WOR at rate q = b / n. With --sigma: eps lower and upper
bounds, the method of each, and whether the pair is tight (agrees to --accuracy) or only brackets
the truth (shuffle: its E_C lower bound and eps_D). With --target-epsilon: the sigma each sampler
needs (sufficient: from its upper bound; shuffle also the sigma its lower bound shows necessary).
Both adjacency directions are computed; --relation picks what the bounds are of.
"""

PLOT_SUFFIXES = (".png", ".pdf")


def add_compare_command(commands) -> None:
    parser = commands.add_parser("compare", help="eps (or the sigma needed) of every sampler for one training run",
                                 description="What each way of batching costs in privacy for one training run.",
                                 epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset-size", required=True, type=int, metavar="N", help="examples in the dataset (>= 1)")
    parser.add_argument("--batch-size", required=True, type=int, metavar="B", help="(expected) batch size, 1 <= B <= N")
    parser.add_argument("--epochs", required=True, type=int, metavar="K", help="epochs (>= 1)")
    parser.add_argument("--delta", required=True, type=float, metavar="D", help="target delta in (0, 1)")
    parser.add_argument("--sigma", type=float, metavar="S", help="noise multiplier: report eps bounds")
    parser.add_argument("--target-epsilon", type=float, metavar="E", help="target eps: report the sigma needed")
    parser.add_argument("--relation", choices=COMPARE_RELATIONS, default="add_or_remove",
                        help="adjacency relation bounded (default add_or_remove: the maximum of both directions)")
    parser.add_argument("--accuracy", type=float, default=0.01, metavar="A",
                        help="relative agreement of lower and upper bounds to refine to, in (0, 1) (default 0.01)")
    parser.add_argument("--plot", metavar="FILE", help="also draw eps vs sigma for every sampler (.png or .pdf)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _check_plot_path(path: str | None) -> Path | None:
    """An output file we can write (checked before any computation; nothing is written yet)."""
    if path is None:
        return None
    target = Path(path)
    if target.suffix.lower() not in PLOT_SUFFIXES:
        raise ValueError(f"--plot must end in {' or '.join(PLOT_SUFFIXES)}; got {path!r}")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"--plot must be in an existing folder; got {path!r} ({folder} does not exist)")
    if target.is_dir() or not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise ValueError(f"--plot must be a writable file; got {path!r}")
    return target


def _check(args) -> Run:
    if (args.sigma is None) == (args.target_epsilon is None):
        given = "both" if args.sigma is not None else "neither"
        raise ValueError(f"exactly one of --sigma and --target-epsilon must be given; got {given}")
    if args.sigma is not None and not args.sigma > 0:
        raise ValueError(f"--sigma must be positive; got {args.sigma!r}")
    if args.target_epsilon is not None and not args.target_epsilon > 0:
        raise ValueError(f"--target-epsilon must be positive; got {args.target_epsilon!r}")
    if not 0 < args.accuracy < 1:
        raise ValueError(f"--accuracy must be in (0, 1); got {args.accuracy!r}")
    if args.plot is not None and args.sigma is None:
        raise ValueError("--plot needs --sigma (the plot marks the run's sigma); got --target-epsilon")
    names = {"dataset_size": "--dataset-size", "batch_size": "--batch-size", "epochs": "--epochs", "delta": "--delta"}
    try:
        return Run(args.dataset_size, args.batch_size, args.epochs, args.delta)
    except ValueError as error:
        message = str(error)
        for name, flag in names.items():
            if message.startswith(name):
                message = flag + message[len(name):]
        raise ValueError(message) from None


def _number(value):
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _records(frame) -> list[dict]:
    return [{k: (_number(v) if isinstance(v, float | np.floating) else v) for k, v in r.items()}
            for r in frame.to_dict("records")]


def _print_epsilons(frame, run: Run, args) -> None:
    print(f"# n={run.dataset_size}, b={run.batch_size}, K={run.epochs} epochs of T={run.steps} steps, "
          f"sigma={args.sigma}, delta={run.delta:g}, relation={args.relation}")
    print(f"{'sampler':<15}{'steps':>7}{'batch':>9}{'eps_lower':>11}{'eps_upper':>11}  {'pair':<9}lower / upper method")
    for r in frame.to_dict("records"):
        pair = "tight" if r["tight"] else "brackets"
        print(f"{r['sampler']:<15}{r['steps'] * r['epochs']:>7}{r['expected_batch_size']:>9.1f}{r['epsilon_lower']:>11.4g}"
              f"{r['epsilon_upper']:>11.4g}  {pair:<9}{r['lower_method']} / {r['upper_method']}")


def _print_sigmas(frame, run: Run, args) -> None:
    print(f"# n={run.dataset_size}, b={run.batch_size}, K={run.epochs} epochs of T={run.steps} steps, "
          f"target eps={args.target_epsilon}, delta={run.delta:g}, relation={args.relation}")
    print(f"{'sampler':<15}{'sigma_sufficient':>17}{'sigma_necessary':>16}  how")
    for r in frame.to_dict("records"):
        necessary = "-" if r["sigma_necessary"] is None else f"{r['sigma_necessary']:.4g}"
        how = r["sufficient_method"] + ("" if r["necessary_method"] is None else f"; necessary: {r['necessary_method']}")
        print(f"{r['sampler']:<15}{r['sigma_sufficient']:>17.4g}{necessary:>16}  {how}")


def plot_comparison(run: Run, sigma: float, relation: str, accuracy: float, path: Path, points: int = 9) -> dict:
    """eps vs sigma for every sampler on the run (lower..upper as a band), the run's sigma marked."""
    from dpsampling.pipeline.plotting import SAMPLER_COLOR, SAMPLER_LETTER, plt

    sigmas = np.geomspace(sigma / 2.5, sigma * 2.5, points)
    curves = {}
    with progress.bar("plot: eps vs sigma", total=len(SAMPLERS) * points) as bar:
        for sampler in SAMPLERS:
            values = []
            for s in sigmas:
                values.append(epsilon_bounds(sampler, run, float(s), relation, accuracy))
                bar.update()
            curves[sampler] = np.array(values)
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for sampler, values in curves.items():
        color, letter = SAMPLER_COLOR[sampler], SAMPLER_LETTER[sampler]
        lower, upper = values[:, 0], values[:, 1]
        if np.allclose(lower, upper, rtol=accuracy):
            ax.plot(sigmas, upper, color=color, label=f"{letter} ({sampler}): {_label(sampler)}")
        else:
            ax.fill_between(sigmas, lower, upper, color=color, alpha=0.25)
            ax.plot(sigmas, upper, color=color, label=f"{letter} ({sampler}): upper bound")
            ax.plot(sigmas, lower, color=color, ls="--", label=f"{letter} ({sampler}): lower bound")
    ax.axvline(sigma, color="gray", ls=":", label=f"your sigma = {sigma:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("noise multiplier sigma")
    ax.set_ylabel(f"epsilon at delta = {run.delta:g} ({relation})")
    ax.set_title(f"n = {run.dataset_size:,}, batch {run.batch_size}, {run.epochs} epochs (T = {run.steps} steps/epoch)",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return {"sigmas": sigmas.tolist(), "curves": {k: v.tolist() for k, v in curves.items()}}


def _label(sampler: str) -> str:
    return "exact" if sampler == "deterministic" else "lower = upper bound (within accuracy)"


def run_compare(args) -> int:
    run = _check(args)
    plot_path = _check_plot_path(args.plot)
    inputs = {"dataset_size": run.dataset_size, "batch_size": run.batch_size, "epochs": run.epochs,
              "steps_per_epoch": run.steps, "delta": run.delta, "sigma": args.sigma,
              "target_epsilon": args.target_epsilon, "relation": args.relation, "accuracy": args.accuracy,
              "poisson_wor_rate": run.rate, "version": __version__}
    if args.sigma is not None:
        frame = compare_epsilons(run, args.sigma, args.relation, args.accuracy)
    else:
        frame = compare_sigmas(run, args.target_epsilon, args.relation, args.accuracy)
    if plot_path is not None:
        plot_comparison(run, args.sigma, args.relation, args.accuracy, plot_path)
        inputs["plot"] = str(plot_path)
    if args.json:
        print(json.dumps({"inputs": inputs, "rows": _records(frame)}, indent=2))
    elif args.sigma is not None:
        _print_epsilons(frame, run, args)
    else:
        _print_sigmas(frame, run, args)
    return 0
