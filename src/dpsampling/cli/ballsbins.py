"""``dpsampling account --sampler balls_and_bins --estimator ...``: the papers' Monte Carlo estimators,
beside the certified bounds (the Accountant's, which stay the answer and the number to report).

Per eps and direction (``accountants.ballsbins.tables``): ``delta_lower`` (bound (6), one epoch;
null for several), ``delta_estimate`` and ``delta_stderr`` (the Monte Carlo mean and its standard
error) and ``delta_upper`` (the KL upper confidence bound: >= the true delta with probability
>= 1 - error_prob, per row); the max row holds the maxima of the directions' lower and upper
bounds (the relation's row is the headline, as for the certified bounds). ``--delta`` queries: one sample set per direction on the eps grid 0, h, 2h, ...
``--json``: a bounds answer (``account.account_document``) whose ``rows`` are the certified long
rows (one per query value and direction), each with that direction's Monte Carlo fields beside
it, ``monte_carlo_{quantity}_{lower,estimate,stderr,upper}``. ``--estimator`` is
``BallsBinsOptions(estimator=)`` (``--method`` is the face's). Imported by ``cli.account``
only when ``--estimator`` asks for Monte Carlo (it loads the sampling kernels).
"""

from __future__ import annotations

import math
from dataclasses import replace

from dpsampling.accountants.ballsbins.device import resolve_device
from dpsampling.accountants.ballsbins.tables import BallsBinsOptions, ballsbins_delta_table, ballsbins_epsilon_table
from dpsampling.accountants.frames import QUANTITY, quantity_of, statement
from dpsampling.cli.account import account_document
from dpsampling.cli.output import bounds_records, dump, jsonable, table
from dpsampling.validation import check_int_at_least, check_open_unit

OPTIONS = ("samples", "seed", "error_prob", "orders", "epsilon_step", "device")
GUARANTEE = ("each Monte Carlo delta_upper / epsilon_upper (per direction and their maximum) holds with probability "
             ">= 1 - error_prob, separately for every row; the certified bounds are guarantees")


def _options(args) -> BallsBinsOptions:
    chosen = {name: getattr(args, name) for name in OPTIONS if getattr(args, name) is not None}
    options = BallsBinsOptions(estimator=args.estimator, **chosen)
    check_int_at_least("samples", options.samples, 1)  # before _check_certifiable divides by them
    check_open_unit("error_prob", options.error_prob)
    return replace(options, device=resolve_device(options.device))  # cuda without a GPU: refused before sampling


def _check_certifiable(options: BallsBinsOptions, deltas) -> None:
    """m samples cannot certify a delta below ln(1/beta)/m (the UCB of m samples that all fall
    below eps); importance sampling draws per eps and is not limited this way."""
    if options.estimator.startswith("importance"):
        return
    floor = math.log(1.0 / options.error_prob) / options.samples
    smallest = min(deltas)
    if smallest < floor:
        needed = math.ceil(math.log(1.0 / options.error_prob) / smallest)
        raise ValueError(f"--samples {options.samples} cannot certify delta = {smallest:g} (the UCB of m samples is at "
                         f"least ln(1/beta)/m = {floor:.3g}); use --samples >= {needed}, or the certified bounds "
                         "alone (no --estimator)")


MONTE_CARLO_FIELDS = {"delta": ("lower", "estimate", "stderr", "upper"), "epsilon": ("lower", "upper")}
"""The Monte Carlo fields of a row, per quantity: monte_carlo_{quantity}_{field}."""


def _beside(rows: list[dict], frame, quantity: str) -> list[dict]:
    """The certified long rows (3 per query value: remove, add, max), each with the Monte Carlo
    fields of its value and direction beside it (the max row: lower and upper, the maxima; no
    estimate of a maximum is made). eps queries also carry epsilon_deterministic (the grid's cap)."""
    records = jsonable(frame.to_dict("records"))
    for index, row in enumerate(rows):
        record = records[index // 3]
        prefix = "" if row["direction"] == "max" else f"{row['direction']}_"
        for name in MONTE_CARLO_FIELDS[quantity]:
            row[f"monte_carlo_{quantity}_{name}"] = record.get(f"{prefix}{quantity}_{name}")
        if "epsilon_deterministic" in record:
            row["epsilon_deterministic"] = record["epsilon_deterministic"]
    return rows


def account(args, phase, accountant) -> int:
    """The certified long rows with the Monte Carlo estimates beside them; JSON or a table."""
    options = _options(args)
    sigma, steps, epochs = phase.sigma, phase.steps_per_epoch, phase.epochs
    if args.delta is not None:
        _check_certifiable(options, args.delta)
        frame = ballsbins_epsilon_table(sigma, steps, args.delta, epochs, options)
        certified = accountant.epsilon_bounds(args.delta)
    else:
        frame = ballsbins_delta_table(sigma, steps, args.epsilon, epochs, options)
        certified = accountant.delta_bounds(args.epsilon)
    quantity = quantity_of(certified)
    rows = _beside(bounds_records(certified, phase.sampler), frame, quantity)
    attrs = {**certified.attrs, "monte_carlo": {"options": options.as_dict(), "guarantee": GUARANTEE}}
    if args.json:
        print(dump(account_document(args, [phase], certified, rows, attrs)))
        return 0
    key = QUANTITY[quantity]
    columns = [(key, key), ("direction", "direction"), (f"{quantity}_lower", "certified_lower"),
               (f"{quantity}_upper", "certified_upper")]
    columns += [(f"monte_carlo_{quantity}_{name}", f"mc_{name}") for name in MONTE_CARLO_FIELDS[quantity]]
    print(f"# run: {phase.describe()}")
    print(f"# Monte Carlo: estimator={options.estimator}, samples={options.samples:,}, error_prob={options.error_prob:g}, "
          f"seed={options.seed}, device={options.device}; relation {accountant.relation} (its row: "
          f"{accountant.headline}); mc_upper holds with probability >= 1 - error_prob per row")
    print(table(rows, columns))
    print(statement(certified))
    return 0
