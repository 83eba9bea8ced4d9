"""Property tests of the face over the whole input space (issue 24.4): seeded random runs.

CASES runs drawn with SEED: a sampler, sigma log-uniform in [0.05, 100], delta log-uniform in
[1e-15, 0.1], T (total steps) log-uniform
up to 1e12 for the rate-based samplers and the closed forms (balls-and-bins: up to 1e6 steps per
epoch, whose engine cost grows with T), q log-uniform in [1e-9, 1], a relation the sampler supports,
and schedules of two or three composable phases. Each answer must be valid -- 0 <= lower <= upper
(delta <= 1), the max row the maximum of the directions, "converged" only within the accuracy --
or a one-line ValueError (a refusal, e.g. a delta under the run's rounding floor). Monotonicity
where theory says so, checked as lower(more private) <= upper(less private): sigma x 1.5,
T x 2, q x 2 are each a post-processing (more noise, dropped steps, Poisson thinning). Inside the
PRV accountant's bracket (remove direction) for Poisson runs where it answers. The engine runs at
accuracy 0.05 and a grid cap of 2**18 here: every bound is valid at any grid, which is what is
tested; the cap keeps a hard corner (sigma near 0.05, q near 1) within seconds. Deterministic:
no statistical test, no false failures.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.run import Phase
from dpsampling.samplers import PAPER_SAMPLERS, SAMPLERS

SEED = 20261126
CASES = 48
SCHEDULES = 8
OPTIONS = {"accuracy": 0.05, "max_grid_points": 2**18}


def _log_uniform(rng, low, high):
    return float(10 ** rng.uniform(math.log10(low), math.log10(high)))


def _random_phase(rng, name=None):
    name = name or str(rng.choice(list(PAPER_SAMPLERS)))  # the correlated-noise ones: tests/accountants/matrix
    spec = SAMPLERS[name]
    sigma = _log_uniform(rng, max(0.05, spec.min_sigma), 100.0)
    if spec.rate_based:
        return Phase(name, sigma, sampling_rate=_log_uniform(rng, 1e-9, 1.0), steps=int(_log_uniform(rng, 1, 1e12)))
    largest = 1e6 if spec.laws is not None else 1e12
    return Phase(name, sigma, steps_per_epoch=int(_log_uniform(rng, 1, largest)), epochs=int(rng.integers(1, 6)))


def _cases():
    rng = np.random.default_rng(SEED)
    cases = []
    for _ in range(CASES):
        phase = _random_phase(rng)
        relation = str(rng.choice(phase.spec.relations))
        cases.append(((phase,), relation, _log_uniform(rng, 1e-15, 0.1), _log_uniform(rng, 1e-3, 20.0)))
    composable = [name for name in PAPER_SAMPLERS if SAMPLERS[name].composable]
    for _ in range(SCHEDULES):
        phases = tuple(_random_phase(rng, str(rng.choice(composable))) for _ in range(int(rng.integers(2, 4))))
        cases.append((phases, str(rng.choice(["add", "remove", "add_or_remove"])), _log_uniform(rng, 1e-15, 0.1),
                      _log_uniform(rng, 1e-3, 20.0)))
    return cases


CASE_LIST = _cases()


def _ids():
    return [f"{i}-{'+'.join(p.sampler for p in c[0])}-{c[1]}" for i, c in enumerate(CASE_LIST)]


def _answer(phases, relation, quantity, value):
    """The long frame, or None for a one-line refusal (asserted to be one line)."""
    try:
        accountant = Accountant(phases, relation=relation, **OPTIONS)
        return getattr(accountant, f"{quantity}_bounds")([value])
    except ValueError as refusal:  # Refused is a ValueError too
        assert "\n" not in str(refusal) and str(refusal), repr(refusal)
        return None


def _check_frame(frame, quantity):
    lower, upper = frame[f"{quantity}_lower"].to_numpy(), frame[f"{quantity}_upper"].to_numpy()
    assert np.all(lower >= 0) and np.all(lower <= upper), frame
    if quantity == "delta":
        assert np.all(upper <= 1.0)
    rows = frame.set_index("direction")
    for bound in ("lower", "upper"):
        column = f"{quantity}_{bound}"
        assert rows.loc["max", column] == max(rows.loc["remove", column], rows.loc["add", column])
    converged = frame["converged"].to_numpy()
    assert np.all(frame["accuracy"].to_numpy()[converged] <= OPTIONS["accuracy"])


def _headline(frame, quantity, bound):
    return float(frame.loc[frame["direction"] == frame.attrs["headline"], f"{quantity}_{bound}"].iloc[0])


def _scaled(phases, **change):
    out = []
    for phase in phases:
        fields = {k: v for k, v in phase.as_dict().items() if k in ("steps", "sampling_rate")}
        if phase.sampling_rate is None:
            fields = {"steps_per_epoch": phase.steps_per_epoch, "epochs": phase.epochs}
        sigma = phase.sigma * change.get("sigma", 1.0)
        if "steps" in change:
            key = "steps" if "steps" in fields else "epochs"
            fields[key] = fields[key] * change["steps"]
        if "rate" in change and phase.sampling_rate is not None:
            fields["sampling_rate"] = min(1.0, phase.sampling_rate * change["rate"])
        out.append(Phase(phase.sampler, sigma, **fields))
    return tuple(out)


@pytest.mark.parametrize(("phases", "relation", "delta", "epsilon"), CASE_LIST, ids=_ids())
def test_every_answer_is_a_valid_bracket_or_a_one_line_refusal(phases, relation, delta, epsilon):
    for quantity, value in (("epsilon", delta), ("delta", epsilon)):
        frame = _answer(phases, relation, quantity, value)
        if frame is not None:
            _check_frame(frame, quantity)


@pytest.mark.parametrize(("phases", "relation", "delta", "epsilon"), CASE_LIST[::3], ids=_ids()[::3])
def test_more_noise_fewer_steps_lower_rate_never_cost_more(phases, relation, delta, epsilon):
    """lower(run that is a post-processing) <= upper(the run), for the delta at ``epsilon``."""
    base = _answer(phases, relation, "delta", epsilon)
    if base is None:
        return
    for change in ({"sigma": 1.5}, {"rate": 0.5}):
        private = _answer(_scaled(phases, **change), relation, "delta", epsilon)
        if private is not None:
            assert _headline(private, "delta", "lower") <= _headline(base, "delta", "upper"), change
    longer = _answer(_scaled(phases, steps=2), relation, "delta", epsilon)
    if longer is not None:
        assert _headline(base, "delta", "lower") <= _headline(longer, "delta", "upper")


PRV_CASES = [(0.8, 1e-3, 1000, 1e-5), (1.5, 1e-2, 300, 1e-6), (0.6, 4e-3, 5000, 1e-5), (3.0, 0.1, 100, 1e-8)]


@pytest.mark.parametrize(("sigma", "rate", "steps", "delta"), PRV_CASES)
def test_poisson_inside_the_prv_bracket(sigma, rate, steps, delta):
    """Our remove bracket and the PRV accountant's (Gopi et al. 2021, eps_error 0.01) intersect."""
    frame = Accountant(Phase("poisson", sigma, sampling_rate=rate, steps=steps)).epsilon_bounds([delta])
    ours = frame.set_index("direction").loc["remove"]
    prv = PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier=sigma, sampling_probability=rate)],
                        max_self_compositions=[steps], eps_error=0.01, delta_error=delta / 1000)
    prv_lower, _, prv_upper = prv.compute_epsilon(delta=delta, num_self_compositions=[steps])
    assert ours["epsilon_lower"] <= prv_upper and prv_lower <= ours["epsilon_upper"]


BAD = [
    ({"sampler": "poisson", "sigma": 0.0, "sampling_rate": 0.1, "steps": 10}, "sigma"),
    ({"sampler": "poisson", "sigma": float("nan"), "sampling_rate": 0.1, "steps": 10}, "sigma"),
    ({"sampler": "poisson", "sigma": float("inf"), "sampling_rate": 0.1, "steps": 10}, "sigma"),
    ({"sampler": "poisson", "sigma": 1.0, "sampling_rate": 0.0, "steps": 10}, "sampling_rate"),
    ({"sampler": "wor", "sigma": 1.0, "sampling_rate": 1.5, "steps": 10}, "sampling_rate"),
    ({"sampler": "poisson", "sigma": 1.0, "steps": 10}, "sampling_rate"),
    ({"sampler": "poisson", "sigma": 1.0, "sampling_rate": 0.1, "steps": 0}, "steps"),
    ({"sampler": "poisson", "sigma": 1.0, "sampling_rate": 0.1, "steps": 10, "epochs": 2}, "steps"),
    ({"sampler": "balls_and_bins", "sigma": 1.0, "steps_per_epoch": 10, "epochs": 0}, "epochs"),
    ({"sampler": "shuffle", "sigma": 1.0, "sampling_rate": 0.1, "steps": 10}, "sampling_rate"),
    ({"sampler": "deterministic", "sigma": 1.0}, "steps"),
    ({"sampler": "dataloader", "sigma": 1.0, "steps": 10}, "sampler"),
    ({"sampler": "poisson", "sigma": 1.0, "dataset_size": 100, "steps": 10}, "batch_size"),
    ({"sampler": "poisson", "sigma": 1.0, "dataset_size": 100, "batch_size": 200, "steps": 10}, "batch_size"),
    ({"sampler": "wor", "sigma": 0.06, "sampling_rate": 0.1, "steps": 10}, "sigma"),
]


@pytest.mark.parametrize(("fields", "argument"), BAD, ids=[f"{i}-{a}" for i, (_, a) in enumerate(BAD)])
def test_bad_run_descriptions_are_one_line_refusals_naming_the_argument(fields, argument):
    fields = dict(fields)
    with pytest.raises(ValueError) as error:
        Phase(fields.pop("sampler"), fields.pop("sigma"), **fields)
    message = str(error.value)
    assert "\n" not in message and message.startswith(argument), message


@pytest.mark.parametrize(("options", "argument"), [({"accuracy": 0.0}, "accuracy"), ({"accuracy": 1.0}, "accuracy"),
                                                  ({"relation": "replace"}, "relation"),
                                                  ({"relation": "substitution"}, "relation"),
                                                  ({"refine": "max"}, "refine"), ({"method": "prv"}, "method"),
                                                  ({"max_grid_points": 1}, "max_grid_points")])
def test_bad_accountant_options_are_one_line_refusals(options, argument):
    with pytest.raises(ValueError) as error:
        Accountant(Phase("poisson", 1.0, sampling_rate=0.01, steps=100), **options)
    assert "\n" not in str(error.value) and str(error.value).startswith(argument), str(error.value)


def test_a_delta_below_the_proven_floor_is_refused_and_a_delta_query_there_answered_with_it():
    """The tails the engine charges to every delta (``computation["excess"]``, ~1e-16) are its
    proven floor: an eps query for a delta below it is refused naming it; a delta query whose
    answer is that small carries it in the upper bound."""
    accountant = Accountant(Phase("poisson", 1.0, sampling_rate=0.01, steps=1000), accuracy=0.05)
    with pytest.raises(ValueError, match="^delta must be above the proven floor"):
        accountant.epsilon_bounds([1e-18])
    frame = accountant.delta_bounds([40.0])
    _check_frame(frame, "delta")
    # excess is the larger direction's charge; the max row carries it (each direction its own)
    assert _headline(frame, "delta", "upper") >= frame.attrs["computation"]["excess"]


FRONTIER_SEED = 20261127
FRONTIER = 5


def _frontier_cases():
    """Runs where large private models are trained (issue 31): Poisson or WOR, T log-uniform in
    [1e5, 1e7], delta in [1e-15, 1e-10], q in [1e-5, 1e-2], sigma in [0.6, 2]."""
    rng = np.random.default_rng(FRONTIER_SEED)
    return [(str(rng.choice(["poisson", "wor"])), _log_uniform(rng, 0.6, 2.0), _log_uniform(rng, 1e-5, 1e-2),
             int(_log_uniform(rng, 1e5, 1e7)), _log_uniform(rng, 1e-15, 1e-10)) for _ in range(FRONTIER)]


@pytest.mark.parametrize(("sampler", "sigma", "q", "steps", "delta"), _frontier_cases())
def test_frontier_runs_get_certified_brackets_within_one_percent(sampler, sigma, q, steps, delta):
    """At the default accuracy (1%) every frontier run is answered, converged, with 0 <= lower <=
    upper in every direction, the relative gap <= 1%, and the certified lower bound not above
    dp-accounting's RDP eps (an upper bound: RDP over-estimates, it never under-estimates; for WOR
    at twice the sensitivity, i.e. Poisson at sigma / 2, lebeda24 Thm 10.2)."""
    from dpsampling.accountants.reference import rdp

    frame = Accountant(Phase(sampler, sigma, sampling_rate=q, steps=steps)).epsilon_bounds([delta])
    assert frame["converged"].all()
    lower, upper = frame["epsilon_lower"].to_numpy(), frame["epsilon_upper"].to_numpy()
    assert np.all((0 <= lower) & (lower <= upper) & np.isfinite(upper))
    assert np.all(upper - lower <= 0.01 * upper)
    rdp_sigma = sigma if sampler == "poisson" else sigma / 2.0
    assert lower.max() <= rdp.query(rdp.poisson_accountant(rdp_sigma, q, steps), "epsilon", [delta])[0]
