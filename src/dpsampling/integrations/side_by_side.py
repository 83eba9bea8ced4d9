"""The side-by-side of docs/INTEGRATIONS.md: each library's own accountant and ours on one run.

    python -m dpsampling.integrations.side_by_side            # n 60,000, b 256, 20 epochs, sigma 1.1, delta 1e-5
    python -m dpsampling.integrations.side_by_side --sigma 2 --epochs 5

Prints one line per (library, accountant, event): eps at delta, and our certified bracket where
it is ours, with the wall time of the call. Opacus' rows need opacus (and torch) installed, and
are left out otherwise. Timings are of one call on the machine it runs on.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import dp_accounting as dpa

from dpsampling.integrations.dp_accounting import CertifiedAccountant
from dpsampling.integrations.events import KeptBinsDpEvent, RandomAllocationDpEvent, ShuffledDpEvent
from dpsampling.integrations.opacus import accountant_class
from dpsampling.samplers import BALLS_AND_BINS, POISSON, SHUFFLE, WOR

try:  # optional: Opacus' own accountants (imports torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from opacus.accountants import GaussianAccountant, PRVAccountant, RDPAccountant
except ImportError:
    GaussianAccountant = PRVAccountant = RDPAccountant = None

REPLACE_ONE = dpa.NeighboringRelation.REPLACE_ONE


def _bracket(accountant: CertifiedAccountant, delta: float) -> str:
    frame = accountant.epsilon_bounds([delta])
    row = frame[frame["direction"] == frame.attrs["headline"]].iloc[0]
    return f"[{row['epsilon_lower']:.4f}, {row['epsilon_upper']:.4f}]"


def _row(label: str, compute) -> str:
    start = time.perf_counter()
    value = compute()
    text = f"{value:.4f}" if isinstance(value, float) else str(value)
    return f"| {label} | {text} | {time.perf_counter() - start:.2f} s |"


def rows(n: int, b: int, epochs: int, sigma: float, delta: float):
    """The table's rows (markdown), computed one by one."""
    steps_per_epoch = math.ceil(n / b)
    steps = epochs * steps_per_epoch
    gaussian = dpa.GaussianDpEvent(sigma)
    poisson = dpa.PoissonSampledDpEvent(b / n, gaussian)
    half = dpa.PoissonSampledDpEvent(b / n, dpa.GaussianDpEvent(sigma / 2))
    wor = dpa.SampledWithoutReplacementDpEvent(n, b, gaussian)
    wor_half = dpa.SampledWithoutReplacementDpEvent(n, b, dpa.GaussianDpEvent(sigma / 2))
    allocation = RandomAllocationDpEvent(gaussian, num_selected=1, num_steps=steps_per_epoch)
    kept = KeptBinsDpEvent(gaussian, cycle_length=steps_per_epoch, iterations=steps)
    shuffled = ShuffledDpEvent(gaussian, num_steps=steps_per_epoch)
    ours = {POISSON.name: lambda: CertifiedAccountant().compose(poisson, steps),
            WOR.name: lambda: CertifiedAccountant().compose(wor, steps),
            f"{WOR.name}, replace-one": lambda: CertifiedAccountant(REPLACE_ONE).compose(wor, steps),
            BALLS_AND_BINS.label: lambda: CertifiedAccountant().compose(allocation, epochs),
            "kept bins": lambda: CertifiedAccountant().compose(kept),
            SHUFFLE.name: lambda: CertifiedAccountant().compose(shuffled, epochs)}
    yield "| accountant, event | eps | time |"
    yield "| --- | --- | --- |"
    yield _row("dp_accounting PLD, Poisson", lambda: dpa.pld.PLDAccountant().compose(poisson, steps).get_epsilon(delta))
    yield _row("dp_accounting RDP, Poisson", lambda: dpa.rdp.RdpAccountant().compose(poisson, steps).get_epsilon(delta))
    yield _row("dp_accounting PLD, Poisson at sigma/2 (jax-privacy 2.0 fixed batches)",
               lambda: dpa.pld.PLDAccountant().compose(half, steps).get_epsilon(delta))
    yield _row("dp_accounting RDP, Poisson at sigma/2", lambda: dpa.rdp.RdpAccountant().compose(half, steps).get_epsilon(delta))
    yield _row("dp_accounting RDP, WOR, REPLACE_ONE (its reading of sigma)", lambda: dpa.rdp.RdpAccountant(
        neighboring_relation=REPLACE_ONE).compose(wor, steps).get_epsilon(delta))
    yield _row("dp_accounting RDP, WOR at sigma/2, REPLACE_ONE", lambda: dpa.rdp.RdpAccountant(
        neighboring_relation=REPLACE_ONE).compose(wor_half, steps).get_epsilon(delta))
    for name, make in ours.items():
        yield _row(f"ours, {name}: get_epsilon", lambda make=make: make().get_epsilon(delta))
        yield _row(f"ours, {name}: bracket", lambda make=make: _bracket(make(), delta))
    if PRVAccountant is None:
        return
    history = [(sigma, 1 / steps_per_epoch, steps)]  # Opacus' DPDataLoader rate: 1 / len(loader)
    for cls in (PRVAccountant, RDPAccountant, GaussianAccountant):
        yield _row(f"Opacus {cls.__name__}, Poisson at 1/len(loader)", lambda cls=cls: _with_history(cls(), history, delta))
    for spec in (POISSON, WOR, BALLS_AND_BINS, SHUFFLE):
        run = {} if spec.rate_based else {"steps_per_epoch": steps_per_epoch}
        yield _row(f"ours via Opacus' protocol, {spec.name}",
                   lambda spec=spec, run=run: _with_history(accountant_class(spec.name, **run)(), history, delta))


def _with_history(accountant, history, delta: float) -> float:
    accountant.history = list(history)
    return float(accountant.get_epsilon(delta))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset-size", type=int, default=60_000)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--sigma", type=float, default=1.1)
    parser.add_argument("--delta", type=float, default=1e-5)
    args = parser.parse_args(argv)
    for line in rows(args.dataset_size, args.batch_size, args.epochs, args.sigma, args.delta):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
