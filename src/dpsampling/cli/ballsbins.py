"""``dpsampling account --sampler balls_and_bins --method ...``: the papers' Monte Carlo estimators,
beside the certified bounds (the Accountant's, which stay the answer and the number to report).

Per eps and direction (``accountants.ballsbins.tables``): ``delta_lower`` (bound (6), one epoch;
null for several), ``delta_estimate`` and ``delta_stderr`` (the Monte Carlo mean and its standard
error) and ``delta_upper`` (the KL upper confidence bound: >= the true delta with probability
>= 1 - error_prob, per row); the top-level pair is the relation's row (add, remove, or their
maximum). ``--delta`` queries: one sample set per direction on the eps grid 0, h, 2h, ...; each
row also carries the certified bracket (``certified``). Imported by ``cli.account`` only when
``--method`` asks for Monte Carlo (it loads the sampling kernels).
"""

from __future__ import annotations

import math
from dataclasses import replace

from dpsampling.accountants.ballsbins.device import resolve_device
from dpsampling.accountants.ballsbins.tables import BallsBinsOptions, ballsbins_delta_table, ballsbins_epsilon_table
from dpsampling.accountants.frames import statement, wide
from dpsampling.cli.output import dump, jsonable, table

OPTIONS = ("samples", "seed", "error_prob", "orders", "epsilon_step", "device")
GUARANTEE = ("each Monte Carlo delta_upper / epsilon_upper (per direction and their maximum) holds with probability "
             ">= 1 - error_prob, separately for every row; the certified bounds are guarantees")


def _options(args) -> BallsBinsOptions:
    chosen = {name: getattr(args, name) for name in OPTIONS if getattr(args, name) is not None}
    options = BallsBinsOptions(method=args.method, **chosen)
    return replace(options, device=resolve_device(options.device))  # cuda without a GPU: refused before sampling


def _check_certifiable(options: BallsBinsOptions, deltas) -> None:
    """m samples cannot certify a delta below ln(1/beta)/m (the UCB of m samples that all fall
    below eps); importance sampling draws per eps and is not limited this way."""
    if options.method.startswith("importance"):
        return
    floor = math.log(1.0 / options.error_prob) / options.samples
    smallest = min(deltas)
    if smallest < floor:
        needed = math.ceil(math.log(1.0 / options.error_prob) / smallest)
        raise ValueError(f"--samples {options.samples} cannot certify delta = {smallest:g} (the UCB of m samples is at "
                         f"least ln(1/beta)/m = {floor:.3g}); use --samples >= {needed}, or the certified bounds "
                         "alone (no --method)")


def _rows(frame, quantity: str, key: str, headline: str, fields: tuple[str, ...]) -> list[dict]:
    """One row per query value: the relation's pair at the top, each direction's fields below."""
    rows = []
    for record in jsonable(frame.to_dict("records")):
        row = {key: record[key]}
        for bound in ("lower", "upper"):
            column = f"{quantity}_{bound}" if headline == "max" else f"{headline}_{quantity}_{bound}"
            row[f"{quantity}_{bound}"] = record[column]
        for direction in ("remove", "add"):
            row[direction] = {f"{quantity}_{name}": record[f"{direction}_{quantity}_{name}"] for name in fields}
        if "epsilon_deterministic" in record:
            row["epsilon_deterministic"] = record["epsilon_deterministic"]
        rows.append(row)
    return rows


def account(args, phase, accountant) -> int:
    """Monte Carlo rows with the certified bracket of each; JSON or a table."""
    options = _options(args)
    sigma, steps, epochs = phase.sigma, phase.steps_per_epoch, phase.epochs
    if args.delta is not None:
        _check_certifiable(options, args.delta)
        frame = ballsbins_epsilon_table(sigma, steps, args.delta, epochs, options)
        quantity, key, fields = "epsilon", "delta", ("lower", "upper")
        certified = accountant.epsilon_bounds(args.delta)
    else:
        frame = ballsbins_delta_table(sigma, steps, args.epsilon, epochs, options)
        quantity, key, fields = "delta", "epsilon", ("lower", "estimate", "stderr", "upper")
        certified = accountant.delta_bounds(args.epsilon)
    rows = _rows(frame, quantity, key, accountant.headline, fields)
    for row, bounds in zip(rows, jsonable(wide(certified).to_dict("records"))):
        row["certified"] = {f"{quantity}_{b}": bounds[f"{quantity}_{b}"] for b in ("lower", "upper")}
    sentence = statement(certified)
    inputs = {"sampler": phase.sampler, "sigma": sigma, "steps_per_epoch": steps, "epochs": epochs,
              "relation": accountant.relation, "method": options.method, "samples": options.samples,
              "seed": options.seed, "error_prob": options.error_prob, "orders": options.orders,
              "device": options.device, "options": options.as_dict(), "guarantee": GUARANTEE}
    document = {"command": "account", "inputs": inputs, "run": [phase.describe()], "rows": rows,
                "certified": {"bounds": certified.to_dict("records"), "attrs": dict(certified.attrs)},
                "statement": sentence}
    if args.json:
        print(dump(document))
        return 0
    columns = [(key, key), (f"{quantity}_lower", f"{quantity}_lower"), (f"{quantity}_upper", f"{quantity}_upper")]
    flat = []
    for row in rows:
        line = {name: row[name] for name, _ in columns}
        for direction in ("remove", "add"):
            line.update({f"{direction}_{name}": row[direction][f"{quantity}_{name}"] for name in fields})
        line.update({f"certified_{b}": row["certified"][f"{quantity}_{b}"] for b in ("lower", "upper")})
        flat.append(line)
    columns += [(f"{d}_{name}", f"{d}_{name}") for d in ("remove", "add") for name in fields]
    columns += [(f"certified_{b}", f"certified_{b}") for b in ("lower", "upper")]
    print(f"# run: {phase.describe()}")
    print(f"# Monte Carlo: method={options.method}, samples={options.samples:,}, error_prob={options.error_prob:g}, "
          f"seed={options.seed}, device={options.device}; relation {accountant.relation}")
    print(table(flat, columns))
    if sentence is not None:
        print(sentence)
    return 0
