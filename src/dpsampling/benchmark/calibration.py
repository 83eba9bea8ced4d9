"""``python -m dpsampling.benchmark.calibration``: how long a calibration takes (issue 41), side by side
with dp-accounting's ``calibrate_dp_mechanism`` on the same runs, in one invocation.

Each case is a ``dpsampling`` command as a user types it (README.md, docs/COMMANDS.md and the issue's
large-model run), timed as a child process end to end (start-up, imports and Numba's cache load
included: what the user waits for), after one untimed warm-up command that loads the compiled
kernels. The peer: dp-accounting's PLD accountant (value discretization 1e-4, its default
pessimistic estimate) calibrating the noise multiplier with ``calibrate_dp_mechanism`` for the same
Poisson (or WOR: noise multiplier at distance 2, the sampler's ``distance``) run, bracketed by its
RDP accountant's answer (``peer_sigma``), in a spawned child killed after ``timeout`` seconds;
uncertified, and given where it applies (one poisson or wor phase).
Reported per case: our wall-clock seconds, the target (``TARGETS``), the sigma we certify and the
peer's sigma (converted to our sigma) and seconds.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from dpsampling.benchmark.frontier import PLD_DISCRETIZATION, publish, run_peer_call
from dpsampling.benchmark.runner import _machine
from dpsampling.io import environment_versions
from dpsampling.lazy import lazy_import
from dpsampling.samplers import BALLS_AND_BINS, POISSON, WOR, sampler_entry

dp_accounting = lazy_import("dp_accounting")

SCHEDULE = """phases:
  - {sampler: poisson, sigma: 0.8, steps: 1000, sampling_rate: 0.01}
  - {sampler: balls_and_bins, sigma: 1.0, steps_per_epoch: 100, epochs: 3}
  - {sampler: wor, sigma: 2.0, steps: 500, sampling_rate: 0.01}
"""
"""docs/COMMANDS.md's run.yaml."""


@dataclass(frozen=True)
class Case:
    """One command (its arguments after ``dpsampling``), the target in seconds, and the peer's
    run where dp-accounting models it: (sampler, q, steps, target eps, delta)."""

    name: str
    arguments: tuple
    target_seconds: float
    peer: tuple | None = None


MNIST = ("--dataset-size", "60000", "--batch-size", "256", "--epochs", "20")
CASES = (
    Case("README calibrate wor", ("calibrate", "--sampler", WOR.name, "--target-epsilon", "10", "--delta", "1e-6",
                                  "--steps", "10000", "--sampling-rate", "0.001"), 5.0, (WOR.name, 0.001, 10000, 10.0, 1e-6)),
    Case("README compare --target-epsilon", ("compare", "--dataset-size", "50000", "--batch-size", "256", "--epochs",
                                             "10", "--delta", "1e-5", "--target-epsilon", "2"), 10.0),
    Case("COMMANDS calibrate poisson", ("calibrate", "--sampler", POISSON.name, *MNIST, "--target-epsilon", "2",
                                        "--delta", "1e-5"), 5.0, (POISSON.name, 256 / 60000, 20 * 235, 2.0, 1e-5)),
    Case("COMMANDS calibrate balls_and_bins", ("calibrate", "--sampler", BALLS_AND_BINS.name, "--steps-per-epoch", "196",
                                               "--epochs", "10", "--target-epsilon", "2", "--delta", "1e-5"), 5.0),
    Case("COMMANDS calibrate --schedule", ("calibrate", "--schedule", "{schedule}", "--target-epsilon", "4", "--delta",
                                           "1e-5"), 5.0),
    Case("COMMANDS calibrate --knob epochs", ("calibrate", "--knob", "epochs", "--sampler", POISSON.name, "--sigma", "1.1",
                                              *MNIST, "--target-epsilon", "2", "--delta", "1e-5"), 5.0),
    Case("COMMANDS calibrate --budget-left", ("calibrate", "--budget-left", "--sampler", POISSON.name, "--sigma", "1.1",
                                              "--sampling-rate", "0.01", "--steps", "500", "--target-epsilon", "2",
                                              "--delta", "1e-5"), 5.0),
    Case("large model: sigma", ("calibrate", "--sampler", POISSON.name, "--sampling-rate", "4e-5", "--steps", "100000",
                                "--target-epsilon", "2", "--delta", "1e-10"), 10.0, (POISSON.name, 4e-5, 100000, 2.0, 1e-10)),
    Case("large model: --knob steps", ("calibrate", "--knob", "steps", "--sampler", POISSON.name, "--sigma", "0.6",
                                       "--sampling-rate", "4e-5", "--steps", "100000", "--target-epsilon", "2",
                                       "--delta", "1e-10"), 10.0),
)


def ours(case: Case, schedule: str) -> dict:
    """The command in a child process: wall seconds, its JSON answer's sigma or value, or its refusal."""
    arguments = [a.replace("{schedule}", schedule) for a in case.arguments]
    command = [sys.executable, "-m", "dpsampling", *arguments, "--json"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        return {"seconds": seconds, "refused": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return {"seconds": seconds, "refused": None, "answer": _headline(json.loads(done.stdout))}


def _headline(answer: dict):
    """The number a calibration answers (sigma, a knob's value, further steps), whatever its shape."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            for key in ("sigma_sufficient", "value_sufficient", "more"):
                if isinstance(value.get(key), int | float) and not isinstance(value[key], bool):
                    found.append(value[key])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(answer)
    return found


def peer_sigma(sampler: str, q: float, steps: int, epsilon: float, delta: float) -> dict:
    """dp-accounting's PLD calibration of the noise multiplier (converted to our sigma), bracketed
    as a user would: its RDP accountant's sigma (an upper bound's, so sufficient) and half of it
    (both calibrations timed together)."""
    accounting = dp_accounting

    def event(noise):
        single = accounting.GaussianDpEvent(noise)
        if sampler_entry(sampler).variable_size:
            sampled = accounting.PoissonSampledDpEvent(q, single)
        else:  # fixed-size batches, b of n = 1e6 at rate q (dp-accounting's PLD does not support it: reported)
            sampled = accounting.SampledWithoutReplacementDpEvent(10**6, max(1, round(q * 10**6)), single)
        return accounting.SelfComposedDpEvent(sampled, steps)

    def fresh():
        return accounting.pld.PLDAccountant(value_discretization_interval=PLD_DISCRETIZATION)

    rdp = accounting.calibrate_dp_mechanism(accounting.rdp.RdpAccountant, event, epsilon, delta,
                                            accounting.LowerEndpointAndGuess(1e-3, 1.0), tol=1e-3)
    noise = accounting.calibrate_dp_mechanism(fresh, event, epsilon, delta,
                                              accounting.ExplicitBracketInterval(rdp / 2.0, rdp), tol=1e-3)
    distance = sampler_entry(sampler).distance
    return {"sigma": float(noise) * distance, "rdp_sigma": float(rdp) * distance}


def run_benchmark(cases, timeout: float, log=lambda message: None) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        schedule = str(Path(folder) / "run.yaml")
        Path(schedule).write_text(SCHEDULE)
        subprocess.run([sys.executable, "-m", "dpsampling", *CASES[0].arguments], capture_output=True, check=False)
        records = []
        for case in cases:
            record = {"case": case.name, "command": "dpsampling " + " ".join(case.arguments),
                      "target_seconds": case.target_seconds, "load_average_before": os.getloadavg(),
                      "ours": ours(case, schedule)}
            if case.peer is not None:
                record["peer"] = run_peer_call(peer_sigma, case.peer, timeout)
            record["meets_target"] = (record["ours"]["refused"] is None
                                      and record["ours"]["seconds"] <= case.target_seconds)
            log(f"{case.name}: {record['ours']['seconds']:.1f} s, {record['ours'].get('answer')}")
            records.append(record)
    return {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "machine": _machine(),
            "versions": environment_versions(), "settings": {"peer_timeout_seconds": timeout,
                                                             "pld_discretization": PLD_DISCRETIZATION},
            "cases": records}


def markdown(document: dict) -> str:
    lines = ["| case | ours: s (target) | ours: answer | dp-accounting PLD: sigma (s) |", "|" + " --- |" * 4]
    for record in document["cases"]:
        mine = record["ours"]
        answer = mine["refused"] or ", ".join(f"{v:.6g}" for v in mine["answer"])
        peer = record.get("peer")
        if peer is None:
            peer_cell = "not modelled"
        elif peer.get("refused"):
            peer_cell = peer["refused"]
        else:
            peer_cell = f"{peer['sigma']:.6g} ({peer['seconds']:.1f} s)"
        met = "" if record["meets_target"] else " **missed**"
        lines.append(f"| {record['case']} | {mine['seconds']:.1f} ({record['target_seconds']:g}){met} | {answer} "
                     f"| {peer_cell} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpsampling.benchmark.calibration",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="OUT", help="write every record and the machine here")
    parser.add_argument("--cases", nargs="+", choices=[c.name for c in CASES], metavar="NAME",
                        help="cases by name (default all)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds for the peer per case (default 120)")
    args = parser.parse_args(argv)
    if not args.timeout > 0:
        parser.error(f"--timeout must be positive; got {args.timeout}")
    cases = [c for c in CASES if not args.cases or c.name in args.cases]
    document = run_benchmark(cases, args.timeout, log=lambda m: print(m, file=sys.stderr, flush=True))
    publish(document, "python -m dpsampling.benchmark.calibration", argv, markdown(document), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
