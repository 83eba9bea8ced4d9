"""``python -m dpsampling.benchmark.subsampled``: certified Poisson bounds against the PRV
accountant and dp-accounting's PLDAccountant, side by side in one run.

Per setting (sigma, sampling rate q, steps T, delta) each side answers eps(delta) in a child
process of its own (time and peak memory of that process; the child is killed after
``--timeout`` seconds):
- ours: ``dpsampling.Accountant`` at ``--accuracy``, twice: every direction refined
  (remove, add and their maximum each within the accuracy), and the maximum alone (the
  guarantee, what ``get_epsilon`` answers; the other directions reported as reached);
- PRV (PyPI ``prv-accountant``, the algorithm Opacus ships) at eps_error 0.01 and delta_error
  delta / 1000; it models the remove direction only, so its bracket is compared with ours for
  remove;
- dp-accounting's ``PLDAccountant`` (its defaults: value discretization 1e-4, pessimistic), an
  upper bound of the maximum over directions.
Agreement: our remove bracket and PRV's must overlap; dp-accounting's upper bound must not be
below our lower bound. The first call of ours (Numba compile or cache load) is made before
timing. Output: a Markdown table on stdout (and in ``--output``).
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import platform
import queue
import resource
import time

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.run import Phase
from dpsampling.lazy import lazy_import
from dpsampling.samplers import POISSON

dp_accounting = lazy_import("dp_accounting")

SETTINGS = (  # (sigma, q, T, delta)
    (0.4, 1e-5, 100_000, 1e-6),   # chua24 Fig. 4
    (0.8, 1e-3, 100_000, 1e-6),
    (1.0, 1e-2, 10_000, 1e-6),
    (1.0, 1e-3, 1_000_000, 1e-6),
    (2.0, 1e-2, 100_000, 1e-5),
    (10.0, 1.0, 1_000, 1e-5),
    (0.5, 1e-6, 1_000_000, 1e-6),
    (0.3, 1e-6, 1_000_000, 1e-6),
    (0.5, 1e-4, 1_000_000, 1e-6),
)


def _ours(sigma, q, steps, delta, accuracy, refine="all"):
    Accountant(Phase(POISSON.name, 1.0, steps=10, sampling_rate=0.1)).epsilon_bounds([1e-5])  # compile / cache load
    start = time.perf_counter()
    frame = Accountant(Phase(POISSON.name, sigma, steps=steps, sampling_rate=q), accuracy=accuracy,
                       refine=refine).epsilon_bounds([delta])
    seconds = time.perf_counter() - start
    rows = frame.set_index("direction")
    return seconds, {d: (float(rows.loc[d, "epsilon_lower"]), float(rows.loc[d, "epsilon_upper"]))
                     for d in ("remove", "add", "max")}


def _prv(sigma, q, steps, delta, accuracy):
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    start = time.perf_counter()
    accountant = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=q)],
                               max_self_compositions=[steps], eps_error=0.01, delta_error=delta / 1000)
    lower, _, upper = accountant.compute_epsilon(delta=delta, num_self_compositions=[steps])
    return time.perf_counter() - start, {"remove": (float(lower), float(upper))}


def _dp_accounting(sigma, q, steps, delta, accuracy):
    start = time.perf_counter()
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
    upper = accountant.get_epsilon(delta)
    return time.perf_counter() - start, {"max": (float("nan"), float(upper))}


def _ours_max(sigma, q, steps, delta, accuracy):
    return _ours(sigma, q, steps, delta, accuracy, refine="relation")


SIDES = {"ours": _ours, "ours_max": _ours_max, "prv": _prv, "dp_accounting": _dp_accounting}


def _worker(out, side, args):
    try:
        seconds, bounds = SIDES[side](*args)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        out.put((seconds, bounds, peak_mb))
    except Exception as error:  # reported in the table, not raised: one side failing is a finding
        out.put((None, f"{type(error).__name__}: {error}".splitlines()[0][:80], None))


def run_side(side, args, timeout):
    """(seconds, bounds, peak MB) or (None, reason, None), from a child process."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    process = context.Process(target=_worker, args=(out, side, args))
    process.start()
    try:
        result = out.get(timeout=timeout)
    except queue.Empty:
        result = (None, f"no answer in {timeout:g} s", None)
    process.join(5)
    if process.is_alive():
        process.kill()
    return result


def _fmt(bounds, direction):
    lower, upper = bounds[direction]
    return f"[{lower:.4g}, {upper:.4g}]" if lower == lower else f"<= {upper:.4g}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpsampling.benchmark.subsampled", description=__doc__.splitlines()[0])
    parser.add_argument("--accuracy", type=float, default=0.01, help="our relative gap (default 0.01)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per side and setting")
    parser.add_argument("--settings", type=int, nargs="+", help="indices into SETTINGS (default all)")
    parser.add_argument("--output", help="also write the Markdown table here")
    args = parser.parse_args(argv)
    chosen = [SETTINGS[i] for i in args.settings] if args.settings else list(SETTINGS)
    lines = [f"Measured {datetime.date.today()} on {platform.machine()}, {os.cpu_count()} cores "
             f"({platform.processor() or platform.platform()}); each side in its own process.", "",
             "| sigma | q | T | delta | ours remove | ours add | ours max | s | MB | ours, max alone | s | MB "
             "| PRV remove | s | MB | dp-accounting max | s | MB | PRV / ours | PRV / ours, max alone | agree |",
             "|" + "---|" * 21]
    for sigma, q, steps, delta in chosen:
        results = {side: run_side(side, (sigma, q, steps, delta, args.accuracy), args.timeout) for side in SIDES}
        cells, agree = [], []
        ours_s, ours, ours_mb = results["ours"]
        cells += ([_fmt(ours, d) for d in ("remove", "add", "max")] + [f"{ours_s:.2f}", f"{ours_mb:.0f}"]
                  if ours_s is not None else [ours, "-", "-", "-", "-"])
        max_s, max_bounds, max_mb = results["ours_max"]
        cells += ([_fmt(max_bounds, "max"), f"{max_s:.2f}", f"{max_mb:.0f}"] if max_s is not None
                  else [max_bounds, "-", "-"])
        for side, direction in (("prv", "remove"), ("dp_accounting", "max")):
            seconds, bounds, mb = results[side]
            if seconds is None:
                cells += [bounds, "-", "-"]
                continue
            cells += [_fmt(bounds, direction), f"{seconds:.2f}", f"{mb:.0f}"]
            lower, upper = bounds[direction]
            for mine in (ours, max_bounds):
                if isinstance(mine, dict):
                    if side == "prv":
                        agree.append(lower <= mine[direction][1] * (1 + 1e-9) and mine[direction][0] <= upper * (1 + 1e-9))
                    else:
                        agree.append(upper >= mine[direction][0] * (1 - 1e-9))
        prv_s = results["prv"][0]
        for seconds in (ours_s, max_s):
            cells.append(f"{prv_s / seconds:.1f}x" if prv_s is not None and seconds is not None else "-")
        cells.append("yes" if agree and all(agree) else ("NO" if agree else "-"))
        lines.append(f"| {sigma:g} | {q:g} | {steps:,} | {delta:g} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        with open(args.output, "w") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
