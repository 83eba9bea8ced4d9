"""``python -m dpsampling.benchmark.pld``: certified balls-and-bins PLD bounds against
pld-accounting (PyPI ``pld-accounting``, module ``PLD_accounting``) on the same queries.

For every setting both sides answer the same eps query at delta (default 1e-5):
ours the face's ``Accountant`` on a balls-and-bins phase (max direction, ``--accuracy`` relative gap), the peer
``gaussian_allocation_epsilon_range`` (its adaptive geometric-convolution route) at its default
accuracy (upper / lower <= 1.1) or, with ``--peer-matched``, asked for an absolute gap of
``accuracy * our eps_upper``; it runs in a child process killed after ``--peer-timeout``
seconds. Settings marked "grid" (chua25 figures) also time our delta bounds
on the eps grid 0, 0.5, ..., 20 (the figures' work). Agreement: both answers are brackets of
the same eps, so they must overlap (1e-9 relative slack); the table says "yes"/"NO".
The first call of ours (Numba compile or cache load) is made before timing. Output: a
Markdown table on stdout (and in ``--output`` if given).
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import platform
import queue
import sys
import time

import numpy as np

from ..accountants.accountant import Accountant
from ..accountants.run import Phase
from ..samplers import BALLS_AND_BINS

# (name, sigma, steps, epochs, time the eps grid too)
SETTINGS = (
    ("eps query", 1.5, 10_000, 1, False),
    ("user example", 1.0, 196, 10, False),
    ("chua25 fig", 0.3, 36_133, 1, True),
    ("chua25 fig", 0.3, 4_517, 1, True),
    ("chua25 fig", 0.3, 12_497, 1, True),
    ("chua25 fig", 0.3, 1_563, 1, True),
    ("chua25 fig", 0.4, 5_000, 1, True),
    ("chua25 fig", 0.35, 10_000, 1, True),
    ("chua25 fig", 0.32, 100_000, 1, True),
    ("chua25 fig", 0.25, 1_000_000, 1, True),
)
EPSILON_GRID = np.linspace(0.0, 20.0, 41)


def _peer_worker(out, delta, sigma, steps, epochs, absolute_accuracy):
    import PLD_accounting as peer

    start = time.perf_counter()
    upper, lower = peer.gaussian_allocation_epsilon_range(
        delta=delta, sigma=sigma, num_steps=steps, num_epochs=epochs,
        epsilon_accuracy=absolute_accuracy)
    out.put((time.perf_counter() - start, float(lower), float(upper)))


def _peer(delta, sigma, steps, epochs, absolute_accuracy, timeout):
    """(seconds, lower, upper) or (None, reason) from pld-accounting in a child process."""
    try:
        import PLD_accounting  # noqa: F401
    except ImportError:
        return None, "not installed"
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    out = context.Queue()
    child = context.Process(target=_peer_worker,
                            args=(out, delta, sigma, steps, epochs, absolute_accuracy))
    child.start()
    try:
        result = out.get(timeout=timeout)
    except queue.Empty:
        result = None
    child.join(1)
    if child.is_alive():
        child.terminate()
        child.join()
    if result is None:
        return None, f"timeout {timeout:g} s" if child.exitcode in (None, -15) else "failed"
    return result, ""


MAX_GRID_POINTS = 40_000  # the grid cap of the chua25 experiments (config chua25.certified_max_grid_points)


def _accountant(sigma, steps, epochs, accuracy=0.01) -> Accountant:
    """Our certified balls-and-bins bounds: T = ``steps`` steps per epoch, ``epochs`` epochs."""
    return Accountant(Phase(BALLS_AND_BINS.name, sigma, steps_per_epoch=steps, epochs=epochs), accuracy=accuracy,
                      max_grid_points=MAX_GRID_POINTS)


def _ours(sigma, steps, epochs, delta, accuracy, grid):
    start = time.perf_counter()
    frame = _accountant(sigma, steps, epochs, accuracy).epsilon_bounds([delta])
    seconds = time.perf_counter() - start
    row = frame[frame["direction"] == "max"].iloc[0]
    grid_seconds = grid_gap = None
    if grid:
        start = time.perf_counter()
        table = _accountant(sigma, steps, epochs, accuracy).delta_bounds(EPSILON_GRID)
        grid_seconds = time.perf_counter() - start
        grid_gap = table.attrs["computation"]["accuracy_reached"]
    return (seconds, float(row["epsilon_lower"]), float(row["epsilon_upper"]),
            frame.attrs["computation"]["accuracy_reached"], grid_seconds, grid_gap)


def run(delta=1e-5, accuracy=0.01, peer_timeout=300.0, with_peer=True, settings=SETTINGS,
        peer_matched=False):
    """Markdown table (str) of every setting; see the module docstring."""
    _accountant(1.0, 4, 2).epsilon_bounds([1e-3])  # compile / load the kernels
    peer_goal = (f"absolute gap {accuracy:g} * our eps_upper" if peer_matched
                 else "its default accuracy (upper / lower <= 1.1)")
    lines = [
        (f"delta = {delta:g}; ours: relative eps gap <= {accuracy:g}; peer: pld-accounting "
         f"gaussian_allocation_epsilon_range at {peer_goal}."),
        "",
        ("| setting | sigma | T | K | ours s | eps_lower | eps_upper | ours gap | "
        "ours grid s (41 eps) | grid gap | peer s | peer eps [lower, upper] | "
        "peer s / ours s | agree |"),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, sigma, steps, epochs, grid in settings:
        seconds, lower, upper, gap, grid_seconds, grid_gap = _ours(
            sigma, steps, epochs, delta, accuracy, grid)
        peer_cell, ratio, agree = "not run", "", ""
        peer_seconds = ""
        if with_peer:
            goal = accuracy * upper if peer_matched else -1.0
            result, reason = _peer(delta, sigma, steps, epochs, goal, peer_timeout)
            if result is None:
                peer_seconds, peer_cell = reason, ""
            else:
                p_seconds, p_lower, p_upper = result
                peer_seconds = f"{p_seconds:.1f}"
                peer_cell = f"[{p_lower:.4f}, {p_upper:.4f}]"
                ratio = f"{p_seconds / seconds:.1f}"
                overlap = (p_lower <= upper * (1 + 1e-9)) and (lower <= p_upper * (1 + 1e-9))
                agree = "yes" if overlap else "NO"
        grid_cells = (f"{grid_seconds:.1f} | {grid_gap:.2e}" if grid_seconds is not None
                      else " | ")
        lines.append(f"| {name} | {sigma:g} | {steps} | {epochs} | {seconds:.1f} | {lower:.4f} | "
                     f"{upper:.4f} | {gap:.1e} | {grid_cells} | {peer_seconds} | {peer_cell} | "
                     f"{ratio} | {agree} |")
        print(lines[-1], file=sys.stderr, flush=True)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    lines += ["", (f"Run {stamp} on {platform.machine()} {platform.processor() or ''} "
              f"({os.cpu_count()} cores, load average at the end {load[0]:.2f}).")]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpsampling.benchmark.pld",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--accuracy", type=float, default=0.01)
    parser.add_argument("--peer-timeout", type=float, default=300.0,
                        help="seconds per pld-accounting call before it is killed")
    parser.add_argument("--no-peer", action="store_true", help="time ours only")
    parser.add_argument("--peer-matched", action="store_true",
                        help="ask the peer for our accuracy (absolute gap) instead of its default")
    parser.add_argument("--quick", action="store_true",
                        help="only the first two settings (eps query, user example)")
    parser.add_argument("--output", default=None, help="also write the table here")
    args = parser.parse_args(argv)
    settings = SETTINGS[:2] if args.quick else SETTINGS
    table = run(args.delta, args.accuracy, args.peer_timeout, not args.no_peer, settings,
                args.peer_matched)
    print(table)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
