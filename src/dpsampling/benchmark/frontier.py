"""``python -m dpsampling.benchmark.frontier``: certified brackets at frontier scale (issue 31),
side by side with dp-accounting's PLD and RDP and prv-accountant on the same runs.

Per run (``RUNS``: phases and one delta), every method answers eps(delta):
- ours: ``Accountant(phases).epsilon_bounds([delta])`` (certified engine, default 1% accuracy,
  every direction refined), in this process after one untimed warm-up call (Numba compile or
  cache load). Reported: the max row's [lower, upper], its relative gap (upper - lower) / upper,
  the converged flag, the largest grid and the computation's ``relative_error`` and ``excess``
  (the floating-point charge), wall-clock and process CPU seconds (all threads: on an otherwise
  idle 2-core machine the wall-clock is at most about the CPU seconds, at least half of them; on a
  loaded one the CPU seconds are the fairer figure); all three directions go into the JSON; and,
  timed apart, the same query with ``refine="relation"`` (the max row alone to the accuracy: the
  one number the peers answer);
- dp-accounting's PLD at value discretization 1e-4, pessimistic (connect-the-dots, what
  ``PLDAccountant`` answers: an upper bound of the maximum over directions when its floating
  point holds) and optimistic (privacy buckets: an estimate from below);
- dp-accounting's RDP (Mironov's conversion, default orders): an upper bound of the maximum;
- prv-accountant (eps_error 0.01, delta_error delta / 1000): a bracket of the remove direction.
The peers model Poisson and WOR (Poisson's pair at distance 2, i.e. noise sigma / 2; lebeda24
Thm 10.2) and their compositions; balls-and-bins is not modelled by any of them. Each peer runs
in a child process of its own, killed after ``timeout`` seconds ("no answer in N s"); a peer's
exception is reported as its refusal text. Seconds are wall-clock inside the child (imports
excluded). Disagreement: a peer's upper bound below our certified lower bound (remove's for
PRV, max's for the others) is the peer's error, reported with its size.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import multiprocessing
import os
import queue
import sys
import time
from dataclasses import dataclass
from importlib import metadata as importlib_metadata
from pathlib import Path

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.run import Phase
from dpsampling.benchmark.runner import _machine
from dpsampling.io import environment_versions, write_atomically
from dpsampling.lazy import lazy_import
from dpsampling.samplers import BALLS_AND_BINS, POISSON, WOR, sampler_entry

dp_accounting = lazy_import("dp_accounting")

PLD_DISCRETIZATION = 1e-4
PRV_EPS_ERROR = 0.01
TARGET_SECONDS = 10.0  # issue 31: each query within 10 s on 2 cores
TARGET_ACCURACY = 0.01  # ... and within 1%
FULL_TIMEOUT = 120.0
QUICK_TIMEOUT = 20.0
PLD_TIME_FACTOR = 2.0  # issue 41: each query within twice the pessimistic PLD's time ...
PLD_TIME_FLOOR = 1.0  # ... or within a second
PEERS = ("pld_pessimistic", "pld_optimistic", "rdp", "prv")


@dataclass(frozen=True)
class Run:
    """One benchmark run: ``phases`` as (sampler, sigma, Phase keywords) and the delta asked."""

    name: str
    phases: tuple
    delta: float
    issue: bool = False  # one of issue 31's four runs

    def build(self) -> list:
        return [Phase(sampler, sigma, **keywords) for sampler, sigma, keywords in self.phases]

    def steps(self) -> int:
        return sum(phase.steps for phase in self.build())

    def describe(self) -> str:
        parts = []
        for sampler, sigma, keywords in self.phases:
            entry = sampler_entry(sampler)
            if entry.rate_based:
                parts.append(f"{entry.letter} sigma {sigma:g}, q {keywords['sampling_rate']:g}, "
                             f"T {keywords['steps']:,}")
            else:
                parts.append(f"{entry.letter} sigma {sigma:g}, {keywords['steps_per_epoch']:,} x "
                             f"{keywords['epochs']} epochs")
        return " then ".join(parts) + f"; delta {self.delta:g}"

    def as_dict(self) -> dict:
        return {"name": self.name, "phases": [{"sampler": s, "sigma": g, **k} for s, g, k in self.phases],
                "delta": self.delta, "total_steps": self.steps(), "issue": self.issue}


def _poisson(name, sigma, q, steps, delta, issue=False, sampler=POISSON.name):
    return Run(name, ((sampler, sigma, {"sampling_rate": q, "steps": steps}),), delta, issue)


RUNS = (
    _poisson("P1", 0.6, 4e-5, 100_000, 1.1e-10, issue=True),  # 1B-parameter DP pre-training
    _poisson("P2", 0.8, 1e-3, 1_000_000, 1e-10, issue=True),
    _poisson("P3", 1.0, 1e-4, 1_000_000, 1e-12, issue=True),
    _poisson("P4", 2.0, 1e-2, 100_000, 1e-14, issue=True),
    _poisson("P5", 0.6, 1e-5, 10_000_000, 1e-15),
    _poisson("P6", 1.0, 1e-3, 10_000_000, 1e-12),
    _poisson("P7", 1.5, 1e-2, 1_000_000, 1e-15),
    _poisson("P8", 0.8, 1e-5, 1_000_000, 1e-13),
    _poisson("P9", 2.0, 1e-3, 10_000_000, 1e-10),
    _poisson("W1", 1.0, 1e-3, 1_000_000, 1e-12, sampler=WOR.name),
    Run("B1", ((BALLS_AND_BINS.name, 1.0, {"steps_per_epoch": 1_000, "epochs": 100}),), 1e-10),
    Run("S1", ((POISSON.name, 0.8, {"sampling_rate": 1e-3, "steps": 100_000}),
               (POISSON.name, 1.2, {"sampling_rate": 1e-2, "steps": 10_000})), 1e-12),
)


def ours(run: Run) -> dict:
    """Our certified bracket, every direction; a refusal's text instead when the engine refuses."""
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        frame = Accountant(run.build()).epsilon_bounds([run.delta])
    except Exception as error:  # a refusal (ValueError) or an engine error: reported, the others still run
        return {"seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu_start,
                "refused": f"{type(error).__name__}: {error}"}
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    rows = frame.set_index("direction")
    computation = frame.attrs.get("computation", {})
    out = {"seconds": seconds, "cpu_seconds": cpu_seconds, "refused": None,
           "directions": {d: {"lower": float(rows.loc[d, "epsilon_lower"]),
                              "upper": float(rows.loc[d, "epsilon_upper"]),
                              "converged": bool(rows.loc[d, "converged"])} for d in ("remove", "add", "max")}}
    top = out["directions"]["max"]
    out.update(lower=top["lower"], upper=top["upper"], converged=top["converged"],
               gap=(top["upper"] - top["lower"]) / top["upper"] if top["upper"] > 0 else 0.0,
               grid_points=computation.get("grid_points_largest"),
               relative_error=computation.get("relative_error"), excess=computation.get("excess"),
               engine_version=computation.get("engine_version"), headline_alone=headline_alone(run))
    return out


def headline_alone(run: Run) -> dict:
    """The same query with ``refine="relation"``: the max row alone refined to the accuracy (the
    one number the peers answer), the other rows as reached; timed on its own (no laws reused)."""
    start, cpu_start = time.perf_counter(), time.process_time()
    frame = Accountant(run.build(), refine="relation").epsilon_bounds([run.delta])
    row = frame[frame["direction"] == frame.attrs["headline"]].iloc[0]
    lower, upper = float(row["epsilon_lower"]), float(row["epsilon_upper"])
    return {"seconds": time.perf_counter() - start, "cpu_seconds": time.process_time() - cpu_start,
            "lower": lower, "upper": upper, "gap": (upper - lower) / upper if upper > 0 else 0.0,
            "converged": bool(row["converged"])}


def peer_phases(run: Run) -> list:
    """(noise multiplier at distance 1, q, steps) per phase, as the peers model them."""
    out = []
    for sampler, sigma, keywords in run.phases:
        entry = sampler_entry(sampler)
        if not entry.peers_model:
            raise NotImplementedError(f"not modelled ({sampler})")
        out.append((sigma / entry.distance, keywords["sampling_rate"], keywords["steps"]))
    return out


def _pld(phases, delta, pessimistic):
    pld = None
    for sigma, q, steps in phases:
        single = dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism(
            sigma, sampling_prob=q, pessimistic_estimate=pessimistic,
            value_discretization_interval=PLD_DISCRETIZATION, use_connect_dots=pessimistic)
        composed = single.self_compose(steps) if steps > 1 else single
        pld = composed if pld is None else pld.compose(composed)
    return {"epsilon": float(pld.get_epsilon_for_delta(delta))}


def _rdp(phases, delta):
    logging.getLogger("absl").setLevel(logging.ERROR)
    accountant = dp_accounting.rdp.RdpAccountant()
    for sigma, q, steps in phases:
        accountant.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
    return {"epsilon": float(accountant.get_epsilon(delta))}


def _prv(phases, delta):
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

    prvs = [PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q) for s, q, _ in phases]
    counts = [steps for _, _, steps in phases]
    accountant = PRVAccountant(prvs=prvs, max_self_compositions=counts, eps_error=PRV_EPS_ERROR,
                               delta_error=delta / 1000)
    lower, estimate, upper = accountant.compute_epsilon(delta=delta, num_self_compositions=counts)
    return {"lower": float(lower), "epsilon": float(estimate), "upper": float(upper)}


def peer(method: str, run: Run) -> dict:
    """One peer's answer and seconds; ``refused`` holds its exception text when it raises."""
    start = time.perf_counter()
    try:
        phases = peer_phases(run)
        if method == "rdp":
            out = _rdp(phases, run.delta)
        elif method == "prv":
            out = _prv(phases, run.delta)
        else:
            out = _pld(phases, run.delta, pessimistic=method == "pld_pessimistic")
        out["refused"] = None
    except Exception as error:  # a peer's failure is a finding, reported in the table
        text = str(error).strip().splitlines()[0][:160] if str(error).strip() else type(error).__name__
        out = {"refused": text if isinstance(error, NotImplementedError) else f"{type(error).__name__}: {text}"}
    out["seconds"] = time.perf_counter() - start
    return out


def answered(function, arguments) -> dict:
    """function(*arguments) (a dict) with its wall ``seconds``; an exception is reported as the
    peer's refusal (its text), never raised: a peer's failure is a finding."""
    start = time.perf_counter()
    try:
        out = dict(function(*arguments))
        out.setdefault("refused", None)
    except Exception as error:
        text = str(error).strip().splitlines()[0][:160] if str(error).strip() else type(error).__name__
        out = {"refused": f"{type(error).__name__}: {text}"}
    out.setdefault("seconds", time.perf_counter() - start)
    return out


def _child(out, function, arguments):
    out.put(answered(function, arguments))


def run_peer_call(function, arguments, timeout: float | None) -> dict:
    """``answered(function, arguments)`` in a spawned child killed after ``timeout`` seconds (None:
    in this process)."""
    if timeout is None:
        return answered(function, arguments)
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    process = context.Process(target=_child, args=(out, function, arguments), daemon=True)
    process.start()
    try:
        result = out.get(timeout=timeout)
    except queue.Empty:
        result = {"refused": f"no answer in {timeout:g} s", "seconds": None, "timed_out": True}
        process.kill()
    process.join(5)
    if process.is_alive():
        process.kill()
        process.join()
    return result


def run_peer(method: str, run: Run, timeout: float | None) -> dict:
    """``peer`` in a spawned child killed after ``timeout`` seconds (None: in this process)."""
    return run_peer_call(peer, (method, run), timeout)


def disagreements(record: dict) -> list[str]:
    """Plain statements where a peer's bound is below our certified lower bound (its error)."""
    mine, notes = record["ours"], []
    if mine.get("refused"):
        return notes
    for method in PEERS:
        answer = record["peers"][method]
        if answer.get("refused"):
            continue
        if method == "prv":
            lower = mine["directions"]["remove"]["lower"]
            value, what = answer["upper"], "PRV's upper bound (remove)"
        else:
            lower, value = mine["lower"], answer["epsilon"]
            what = {"pld_pessimistic": "PLD pessimistic", "pld_optimistic": "PLD optimistic estimate",
                    "rdp": "RDP"}[method]
        if value < lower:
            notes.append(f"{what} {value:.4g} is below our certified lower bound {lower:.4g} "
                         f"by {lower - value:.3g} ({(lower - value) / lower:.1%})")
    return notes


def benchmark_run(run: Run, timeout: float | None, log=lambda message: None) -> dict:
    """One run: ours in this process, every peer under ``timeout``; a JSON-able record."""
    record = {"run": run.as_dict(), "load_average_before": os.getloadavg(), "ours": ours(run), "peers": {}}
    log(f"{run.name}: ours {_ours_cell(record['ours'])} in {record['ours']['seconds']:.2f} s")
    for method in PEERS:
        record["peers"][method] = run_peer(method, run, timeout)
        log(f"{run.name}: {method} {_peer_cell(record['peers'][method], method)}")
    record["load_average_after"] = os.getloadavg()
    mine = record["ours"]
    record["meets_targets"] = (not mine.get("refused") and mine["converged"] and mine["gap"] <= TARGET_ACCURACY
                               and mine["seconds"] <= TARGET_SECONDS)
    record["within_pld_time"] = within_pld_time(mine, record["peers"]["pld_pessimistic"])
    if not mine.get("refused"):
        mine["headline_alone"]["within_pld_time"] = within_pld_time(mine["headline_alone"],
                                                                    record["peers"]["pld_pessimistic"])
    record["disagreements"] = disagreements(record)
    return record


def within_pld_time(mine: dict, pld: dict) -> bool | None:
    """Issue 41's target: our query in at most PLD_TIME_FACTOR times the pessimistic PLD's seconds on
    the same run, or in at most PLD_TIME_FLOOR seconds (None where the PLD gave no time)."""
    if mine.get("refused"):
        return False
    if mine["seconds"] <= PLD_TIME_FLOOR:
        return True
    if pld.get("seconds") is None:
        return None
    return mine["seconds"] <= PLD_TIME_FACTOR * pld["seconds"]


def run_benchmark(runs, timeout: float | None, log=lambda message: None) -> dict:
    """The JSON document: machine, versions, date, settings and one record per run."""
    Accountant(Phase(POISSON.name, 1.0, steps=10, sampling_rate=0.1)).epsilon_bounds([1e-5])  # warm-up
    records = [benchmark_run(run, timeout, log) for run in runs]
    return {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": _machine(), "versions": {**environment_versions(), "prv-accountant": _version("prv-accountant")},
            "settings": {"peer_timeout_seconds": timeout, "pld_discretization": PLD_DISCRETIZATION,
                         "prv_eps_error": PRV_EPS_ERROR, "target_seconds": TARGET_SECONDS,
                         "target_accuracy": TARGET_ACCURACY},
            "runs": records}


def _version(package: str) -> str | None:
    try:
        return importlib_metadata.version(package)
    except importlib_metadata.PackageNotFoundError:
        return None


def _ours_cell(mine: dict) -> str:
    if mine.get("refused"):
        return f"refused: {mine['refused'][:120]}"
    return f"[{mine['lower']:.5g}, {mine['upper']:.5g}]"


def _seconds(answer: dict) -> str:
    return f" ({answer['seconds']:.1f} s)" if answer.get("seconds") is not None else ""


def _peer_cell(answer: dict, method: str) -> str:
    if answer.get("refused"):
        return answer["refused"]
    if method == "prv":
        return f"[{answer['lower']:.4g}, {answer['upper']:.4g}]{_seconds(answer)}"
    return f"{answer['epsilon']:.4g}{_seconds(answer)}"


def markdown(document: dict) -> str:
    """The side-by-side table, one line per run."""
    lines = ["| run | ours, max [lower, upper] | gap | s (CPU s) | converged | grid | relative_error | excess "
             "| PLD pessimistic | PLD optimistic | RDP | PRV remove | 10 s and 1% | <= 2x PLD or 1 s "
             "| max row alone: [lower, upper] s, <= 2x PLD or 1 s |",
             "|" + " --- |" * 15]
    for record in document["runs"]:
        mine = record["ours"]
        description = record["run"]
        cells = [f"{description['name']}: " + _describe(description), _ours_cell(mine)]
        if mine.get("refused"):
            cells += ["-", f"{mine['seconds']:.1f} ({mine['cpu_seconds']:.1f})", "-", "-", "-", "-"]
        else:
            cells += [f"{mine['gap']:.2%}", f"{mine['seconds']:.1f} ({mine['cpu_seconds']:.1f})", "yes" if mine["converged"] else "no",
                      f"{mine['grid_points']:,}" if mine["grid_points"] else "-",
                      f"{mine['relative_error']:.2g}" if mine["relative_error"] is not None else "-",
                      f"{mine['excess']:.2g}" if mine["excess"] is not None else "-"]
        cells += [_peer_cell(record["peers"][m], m) for m in PEERS]
        cells.append("yes" if record["meets_targets"] else "no")
        cells.append({True: "yes", False: "no", None: "-"}[record.get("within_pld_time")])
        alone = mine.get("headline_alone")
        cells.append("-" if not alone else f"[{alone['lower']:.5g}, {alone['upper']:.5g}] {alone['seconds']:.2f} s, "
                     + {True: "yes", False: "no", None: "-"}[alone.get("within_pld_time")])
        lines.append("| " + " | ".join(cells) + " |")
    notes = [f"- {r['run']['name']}: {note}" for r in document["runs"] for note in r["disagreements"]]
    if notes:
        lines += ["", "Peers below our certified lower bound:", *notes]
    return "\n".join(lines) + "\n"


def _describe(description: dict) -> str:
    run = Run(description["name"], tuple((p["sampler"], p["sigma"],
                                          {k: v for k, v in p.items() if k not in ("sampler", "sigma")})
                                         for p in description["phases"]), description["delta"])
    return run.describe()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpsampling.benchmark.frontier",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="OUT", help="write every record and the machine here")
    parser.add_argument("--quick", action="store_true",
                        help=f"issue 31's four runs only, peers limited to {QUICK_TIMEOUT:g} s each")
    parser.add_argument("--runs", nargs="+", choices=[r.name for r in RUNS], help="runs by name (default all)")
    parser.add_argument("--timeout", type=float, help=f"seconds per peer and run (default {FULL_TIMEOUT:g}; "
                                                      f"--quick: {QUICK_TIMEOUT:g})")
    args = parser.parse_args(argv)
    if args.timeout is not None and not args.timeout > 0:
        parser.error(f"--timeout must be positive; got {args.timeout}")
    runs = [r for r in RUNS if (r.name in args.runs if args.runs else (r.issue or not args.quick))]
    timeout = args.timeout or (QUICK_TIMEOUT if args.quick else FULL_TIMEOUT)
    document = run_benchmark(runs, timeout, log=lambda m: print(m, file=sys.stderr, flush=True))
    publish(document, "python -m dpsampling.benchmark.frontier", argv, markdown(document), args.json)
    return 0


def publish(document: dict, program: str, argv, table: str, json_path: str | None) -> None:
    """Record the command line in ``document``, print the table, write the JSON (if asked)."""
    document["command"] = " ".join([program, *(sys.argv[1:] if argv is None else argv)])
    print(table)
    if json_path:
        write_atomically(Path(json_path), lambda tmp: Path(tmp).write_text(
            json.dumps(document, indent=2, default=float) + "\n"))


if __name__ == "__main__":
    sys.exit(main())
