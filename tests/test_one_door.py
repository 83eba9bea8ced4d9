"""One door, one number (issue 32.6): the same question gives the same number, bit for bit,
through the command line, the Python face and the adapters (dp_accounting's CertifiedAccountant,
Opacus' accountant class and get_noise_multiplier): one refinement policy for the headline (the
Accountant's own: get_epsilon is the headline row of epsilon_bounds) and one bisection start for
a calibration (sigma 1, whatever the phase's sigma). dp-accounting's own calibration through our
adapter searches by its own rule: its sigma is shown sufficient by the face and lies within the
tolerances of ours. Every --json answer read here is checked against the answers' schema."""

from __future__ import annotations

import json

import dp_accounting as dpa
import pytest
from answer_schema import check_answer

from dpsampling import Accountant, Phase, calibrate_sigma, compare_epsilons
from dpsampling.cli.main import main
from dpsampling.integrations import opacus as ours
from dpsampling.integrations.dp_accounting import CertifiedAccountant

N, B, EPOCHS, SIGMA, DELTA = 6_000, 60, 3, 1.1, 1e-5
RATE, STEPS = B / N, 300  # EPOCHS epochs of N / B steps


def _json(capsys, *argv) -> dict:
    """The command's --json answer, checked against the answers' schema."""
    assert main([*map(str, argv), "--json"]) == 0
    return check_answer(json.loads(capsys.readouterr().out))


def _headline(rows: list, sampler: str) -> float:
    return next(r["epsilon_upper"] for r in rows if r["sampler"] == sampler and r["direction"] == "max")


@pytest.mark.parametrize("sampler", ["poisson", "wor"])
def test_an_epsilon_is_the_same_through_every_door(sampler, capsys):
    python = Accountant(Phase(sampler, SIGMA, dataset_size=N, batch_size=B, epochs=EPOCHS)).get_epsilon(DELTA)
    by_rate = Accountant(Phase(sampler, SIGMA, sampling_rate=RATE, steps=STEPS)).epsilon_bounds([DELTA])
    account = _json(capsys, "account", "--sampler", sampler, "--sigma", SIGMA, "--dataset-size", N, "--batch-size", B,
                    "--epochs", EPOCHS, "--delta", DELTA)
    compare = _json(capsys, "compare", "--dataset-size", N, "--batch-size", B, "--epochs", EPOCHS, "--delta", DELTA,
                    "--sigma", SIGMA)
    event = (dpa.PoissonSampledDpEvent(RATE, dpa.GaussianDpEvent(SIGMA)) if sampler == "poisson"
             else dpa.SampledWithoutReplacementDpEvent(N, B, dpa.GaussianDpEvent(SIGMA)))
    dp_accounting = CertifiedAccountant().compose(event, STEPS).get_epsilon(DELTA)
    opacus = ours.accountant_class(sampler, **({"sampling_rate": RATE} if sampler == "wor" else {}))()
    opacus.history = [(SIGMA, RATE, STEPS)]
    answers = {"python": python, "python by rate": _headline([dict(r, sampler=sampler) for r in
                                                              by_rate.to_dict("records")], sampler),
               "account": _headline(account["rows"], sampler), "compare": _headline(compare["rows"], sampler),
               "compare_epsilons": _headline(compare_epsilons(SIGMA, DELTA, dataset_size=N, batch_size=B,
                                                              epochs=EPOCHS).to_dict("records"), sampler),
               "dp_accounting": dp_accounting, "opacus": opacus.get_epsilon(DELTA)}
    assert len(set(answers.values())) == 1, answers


def test_a_calibration_is_the_same_through_every_door(capsys):
    target = 3.0
    starts = {s: calibrate_sigma(Phase("poisson", s, sampling_rate=RATE, steps=STEPS), target, DELTA, rtol=0.01).sigma
              for s in (0.5, 1.0, 4.0)}
    calibrate = _json(capsys, "calibrate", "--sampler", "poisson", "--sampling-rate", RATE, "--steps", STEPS,
                      "--target-epsilon", target, "--delta", DELTA, "--rtol", 0.01)["rows"][0]["sigma_sufficient"]
    compare = _json(capsys, "compare", "--dataset-size", N, "--batch-size", B, "--epochs", EPOCHS, "--delta", DELTA,
                    "--target-epsilon", target, "--rtol", 0.01)
    compared = next(r["sigma_sufficient"] for r in compare["rows"] if r["sampler"] == "poisson")
    opacus = ours.get_noise_multiplier(target_epsilon=target, target_delta=DELTA, sample_rate=RATE, steps=STEPS,
                                       rtol=0.01)
    answers = {**{f"python from sigma {s}": v for s, v in starts.items()}, "calibrate": calibrate,
               "compare": compared, "opacus": opacus}
    assert len(set(answers.values())) == 1, answers


def test_dp_accountings_calibration_with_our_adapter_is_shown_sufficient_by_the_face():
    """``dp_accounting.calibrate_dp_mechanism(CertifiedAccountant, ...)`` (docs/INTEGRATIONS.md) is
    dp-accounting's own search (Brent's method to an absolute ``tol``), not our bisection (to
    ``rtol``), so its sigma differs from ``calibrate_sigma``'s by design. What must hold: the face
    shows its sigma sufficient (``Accountant(...).get_epsilon(delta) <= target``: the door reads the
    face's upper bound), and it lies within the two searches' tolerances of our bracket
    [sigma not shown sufficient, sigma shown sufficient]."""
    target, tol = 3.0, 1e-3
    ours = calibrate_sigma(Phase("poisson", 1.0, sampling_rate=RATE, steps=STEPS), target, DELTA, rtol=0.01)

    def event(sigma: float):
        return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(RATE, dpa.GaussianDpEvent(sigma)), STEPS)

    bracket = dpa.ExplicitBracketInterval(ours.sigma_not_shown_sufficient / 2, 2 * ours.sigma)
    theirs = dpa.calibrate_dp_mechanism(CertifiedAccountant, event, target, DELTA, bracket, tol=tol)
    assert Accountant(Phase("poisson", theirs, sampling_rate=RATE, steps=STEPS)).get_epsilon(DELTA) <= target
    assert ours.sigma_not_shown_sufficient - tol <= theirs <= ours.sigma + tol, (theirs, ours)


def test_a_frontier_run_is_certified_within_one_percent_through_every_door(capsys):
    """Issue 31 P4 (Poisson sigma 2, rate 0.01, T 1e5, delta 1e-14, about 0.4 CPU s): the command
    line and dp_accounting's CertifiedAccountant give the face's headline bit for bit, and the
    face's bracket is converged within 1% (0 <= lower <= upper) in every direction."""
    sigma, rate, steps, delta = 2.0, 0.01, 100_000, 1e-14
    frame = Accountant(Phase("poisson", sigma, sampling_rate=rate, steps=steps)).epsilon_bounds([delta])
    lower, upper = frame["epsilon_lower"].to_numpy(), frame["epsilon_upper"].to_numpy()
    assert frame["converged"].all() and ((0 <= lower) & (lower <= upper) & (upper - lower <= 0.01 * upper)).all()
    account = _json(capsys, "account", "--sampler", "poisson", "--sigma", sigma, "--sampling-rate", rate,
                    "--steps", steps, "--delta", delta)
    event = dpa.PoissonSampledDpEvent(rate, dpa.GaussianDpEvent(sigma))
    answers = {"python": float(frame.loc[frame["direction"] == "max", "epsilon_upper"].iloc[0]),
               "account": _headline(account["rows"], "poisson"),
               "dp_accounting": CertifiedAccountant().compose(event, steps).get_epsilon(delta)}
    assert len(set(answers.values())) == 1, answers
