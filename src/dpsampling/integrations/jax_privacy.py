"""jax-privacy 2.0: its training accountant with ours inside.

    from jax_privacy.accounting import analysis
    from dpsampling.integrations.jax_privacy import CertifiedAccountantConfig

    accountant = analysis.DpsgdTrainingAccountant(dp_accountant_config=CertifiedAccountantConfig())
    accountant.compute_epsilon(num_updates, dp_params)     # was: PldAccountantConfig() / RdpAccountantConfig()

``CertifiedAccountantConfig`` is a jax-privacy ``DpAccountantConfig`` whose ``create_accountant``
returns a fresh ``integrations.dp_accounting.CertifiedAccountant`` (ADD_OR_REMOVE_ONE, like
jax-privacy's own configs, unless ``neighboring_relation`` says otherwise). What jax-privacy 2.0
composes, and what we answer:

- ``SamplingMethod.POISSON``: ``PoissonSampledDpEvent(b / n, GaussianDpEvent(z))`` per step;
- ``SamplingMethod.FIXED_BATCH_SIZE``: the same at ``GaussianDpEvent(z / 2)`` (lebeda24's
  reduction); its main branch (and 2.0's ``experimental.accounting.fixed_dpsgd_event``) emits
  ``SampledWithoutReplacementDpEvent(n, b, GaussianDpEvent(z))`` instead: under ADD_OR_REMOVE_ONE
  both are the same wor phase (tested), under REPLACE_ONE only the WOR event is accepted
  (lebeda24's substitution);
- ``batch_selection.BallsInBinsSampling(iterations, cycle_length)`` (each example keeps its bin
  across epochs), accounted in jax-privacy by Monte Carlo only: ``kept_bins_event(strategy, z)``
  is its ``KeptBinsDpEvent``, certified through ``certified.kept_bins`` (one balls-and-bins epoch
  at z / sqrt(K); a partial last epoch is bracketed).

**Replace-one.** jax-privacy 2.0's ``DpsgdTrainingAccountant`` emits a ``PoissonSampledDpEvent``
for both sampling methods and states its guarantee through the event, not the accountant's
relation (its own configs are ADD_OR_REMOVE_ONE): FIXED_BATCH_SIZE's event (Poisson at z / 2)
under ADD_OR_REMOVE_ONE IS its replace-one guarantee (lebeda24's reduction), certified by the
default config; POISSON has no replace-one guarantee in jax-privacy. A config with
``neighboring_relation=REPLACE_ONE`` would read those events as Poisson under replace-one, which
the project has no pair for: it is refused when made, with that reason. lebeda24's exact
substitution of a fixed batch: ``CertifiedAccountant(REPLACE_ONE)`` composing
``SampledWithoutReplacementDpEvent(n, b, GaussianDpEvent(z))`` (2.0's
``experimental.accounting.fixed_dpsgd_event``).

**DP-BandMF (issue 44).** ``matrix_run_from_monte_carlo(strategy, noise_multiplier, c_col)`` reads
the configuration of 2.0's ``experimental.monte_carlo`` (balls-in-bins, b-min-sep, cyclic Poisson),
``matrix_run_from_bandmf_config(config)`` a ``BandMFExecutionPlanConfig``; both return the
``accountants.matrix.MatrixRun`` of the same mechanism (conventions and refusals in their
docstrings; docs/INTEGRATIONS.md). ``jax_privacy_strategy(run)`` is the inverse.

Truncated Poisson and user-level accounting type-check for jax-privacy's own PLD classes and are
not routed here. Importing this module imports jax-privacy (and jax); ``import dpsampling`` does not.
"""

from __future__ import annotations

import dataclasses
import math

import dp_accounting
import numpy as np

from dpsampling.accountants.matrix.run import CYCLIC, FIXED_BINS, MIN_SEP, MatrixRun
from dpsampling.integrations.dp_accounting import CertifiedAccountant
from dpsampling.integrations.events import KeptBinsDpEvent
from dpsampling.samplers import B_MIN_SEP, CYCLIC_POISSON, FIXED_BALLS_AND_BINS
from dpsampling.validation import check_open_unit

try:  # optional: the config subclasses jax-privacy's where it is installed
    from jax_privacy.accounting.accountants import DpAccountantConfig
except ImportError:  # pragma: no cover - exercised where jax-privacy is absent
    DpAccountantConfig = object


@dataclasses.dataclass(kw_only=True)
class CertifiedAccountantConfig(DpAccountantConfig):
    """jax-privacy's accountant config for ``CertifiedAccountant`` (module docstring)."""

    neighboring_relation: dp_accounting.NeighboringRelation = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    accuracy: float = 0.01

    def __post_init__(self):
        check_open_unit("accuracy", self.accuracy)
        if self.neighboring_relation != dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE:
            raise ValueError(f"neighboring_relation must be ADD_OR_REMOVE_ONE for jax-privacy's DpsgdTrainingAccountant "
                             "(its events state the relation: FIXED_BATCH_SIZE's Poisson event at z / 2 under "
                             "ADD_OR_REMOVE_ONE is its replace-one guarantee; POISSON has none); got "
                             f"{self.neighboring_relation!r} (lebeda24's substitution: CertifiedAccountant(REPLACE_ONE) "
                             "with SampledWithoutReplacementDpEvent)")

    def create_accountant(self) -> CertifiedAccountant:
        """A fresh accountant (jax-privacy creates one per ``compute_epsilon``)."""
        return CertifiedAccountant(self.neighboring_relation, accuracy=self.accuracy)


def kept_bins_event(strategy, noise_multiplier: float) -> KeptBinsDpEvent:
    """The ``KeptBinsDpEvent`` of a jax-privacy ``BallsInBinsSampling(iterations, cycle_length)``
    run at ``noise_multiplier`` (any object with those two attributes)."""
    for name in ("iterations", "cycle_length"):
        if not hasattr(strategy, name):
            raise ValueError(f"strategy must have {name} (a jax-privacy BallsInBinsSampling); got {strategy!r}")
    return KeptBinsDpEvent(dp_accounting.GaussianDpEvent(noise_multiplier), cycle_length=strategy.cycle_length,
                           iterations=strategy.iterations)


# --- DP-BandMF (issue 44): jax-privacy's configuration as a MatrixRun ------------------------------

def _positive_finite(name: str, value) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be finite and > 0 (a zero noise multiplier has no privacy to account); "
                         f"got {value!r}")
    return value


def _refuse_truncation(strategy) -> None:
    if getattr(strategy, "truncated_batch_size", None) is not None:
        raise ValueError(f"truncated_batch_size={strategy.truncated_batch_size} is not supported: truncated "
                         "batches (Dong & Ganesh 2026 App. D; truncated Poisson) have no pair in "
                         "dpsampling.accountants.matrix; set truncated_batch_size=None")


def matrix_run_from_monte_carlo(strategy, noise_multiplier: float, c_col) -> MatrixRun:
    """The ``MatrixRun`` of jax-privacy 2.0's Monte Carlo configuration ``(strategy, noise_multiplier,
    c_col)`` (the arguments of ``experimental.monte_carlo.sample_generation.get_privacy_loss_sample``).

    Same mechanism: y = C g + noise_multiplier Z with C banded Toeplitz of first column ``c_col``,
    noise_multiplier on the clip norm, *not* divided by ||c_col|| (jax-privacy's docstring: "not
    accounting for the norm of c_col"), zero-out = add/remove without truncation. Samplers:
    ``BallsInBinsSampling`` -> ``fixed_balls_and_bins`` (one bin for all cycles), ``BMinSepSampling``
    -> ``b_min_sep`` (its ``warm_start``, default True in jax-privacy, is copied), and
    ``CyclicPoissonSampling`` -> ``cyclic_poisson`` (jax-privacy accounts it by PLD, not Monte
    Carlo; either partition type: the worst group bounds a random one). Refused (ValueError):
    truncation, user-level or fixed-size strategies, a zero noise multiplier, c_col[0] = 0.
    """
    from jax_privacy import batch_selection

    sigma = _positive_finite("noise_multiplier", noise_multiplier)
    coefficients = np.asarray(c_col, dtype=np.float64)
    if isinstance(strategy, batch_selection.BallsInBinsSampling):
        return MatrixRun(coefficients, FIXED_BALLS_AND_BINS.name, sigma, strategy.iterations,
                         cycle_length=strategy.cycle_length)
    if isinstance(strategy, batch_selection.BMinSepSampling):
        _refuse_truncation(strategy)
        return MatrixRun(coefficients, B_MIN_SEP.name, sigma, strategy.iterations, min_separation=strategy.min_sep,
                         sampling_rate=strategy.sampling_prob, warm_start=bool(strategy.warm_start))
    if isinstance(strategy, batch_selection.CyclicPoissonSampling):
        _refuse_truncation(strategy)
        return MatrixRun(coefficients, CYCLIC_POISSON.name, sigma, strategy.iterations,
                         cycle_length=strategy.cycle_length, sampling_rate=strategy.sampling_prob)
    raise ValueError("strategy must be a jax-privacy BallsInBinsSampling, BMinSepSampling or CyclicPoissonSampling "
                     f"(example-level DP-BandMF); got {type(strategy).__name__}")


def matrix_run_from_bandmf_config(config) -> MatrixRun:
    """The ``MatrixRun`` of a jax-privacy 2.0 ``experimental.execution_plan.BandMFExecutionPlanConfig``.

    Its plan adds noise of standard deviation ``noise_multiplier * sensitivity * ||strategy||`` and
    samples by ``CyclicPoissonSampling(sampling_prob, iterations, cycle_length=len(strategy))``, so
    in our convention (noise on the clip norm, not divided by ||c||) sigma = noise_multiplier *
    ||strategy||: ``certified_phases`` of the result is jax-privacy's ``amplified_bandmf_event``
    (Poisson at noise_multiplier, rate sampling_prob, ceil(iterations / bands) steps). Refused
    (ValueError): no noise_multiplier (calibrated inside ``config.plan``), ``column_normalize``
    (C is then not Toeplitz), truncation, and a REPLACE_ONE accountant (our pair is zero-out /
    add-remove; jax-privacy doubles the sensitivity there).
    """
    if config.noise_multiplier is None:
        raise ValueError("config.noise_multiplier is None (it is calibrated from (epsilon, delta) inside "
                         "config.plan): give the config a noise_multiplier")
    if config.column_normalize:
        raise ValueError("column_normalize=True rescales C's last columns, so C is not banded Toeplitz; "
                         "only column_normalize=False is supported")
    if config.truncated_batch_size is not None:
        raise ValueError(f"truncated_batch_size={config.truncated_batch_size} is not supported (truncated Poisson "
                         "has no pair in dpsampling.accountants.matrix)")
    relation = config.accountant.neighboring_relation
    if relation == dp_accounting.NeighboringRelation.REPLACE_ONE:
        raise ValueError("accountant.neighboring_relation REPLACE_ONE is not supported: the matrix pairs are "
                         "zero-out (REPLACE_SPECIAL) / add-remove")
    coefficients = np.asarray(config.strategy, dtype=np.float64)
    sigma = _positive_finite("noise_multiplier", config.noise_multiplier) * float(np.linalg.norm(coefficients))
    return MatrixRun(coefficients, CYCLIC_POISSON.name, sigma, config.iterations, cycle_length=coefficients.size,
                     sampling_rate=config.sampling_prob)


def phase_from_monte_carlo(strategy, noise_multiplier: float, c_col):
    """The face's ``Phase`` of jax-privacy's Monte Carlo configuration (``matrix_run_from_monte_carlo``,
    then ``matrix.face.phase_of``): ``Accountant(phase)`` accounts it, certified where a reduction
    holds, else with ``method="monte_carlo"``; ValueError where the face cannot describe it."""
    from dpsampling.accountants.matrix.face import phase_of

    return phase_of(matrix_run_from_monte_carlo(strategy, noise_multiplier, c_col))


def phase_from_bandmf_config(config):
    """The face's ``Phase`` of a ``BandMFExecutionPlanConfig`` (``matrix_run_from_bandmf_config``,
    then ``matrix.face.phase_of``); ValueError where the run ends inside a cycle (the face describes
    cyclic Poisson in whole cycles: use the ``MatrixRun`` and ``certified_phases`` then)."""
    from dpsampling.accountants.matrix.face import phase_of

    return phase_of(matrix_run_from_bandmf_config(config))


def jax_privacy_strategy(run: MatrixRun):
    """The inverse: jax-privacy's batch-selection strategy for ``run`` (fixed balls-and-bins,
    b-min-sep or cyclic Poisson; ValueError for per-epoch balls-and-bins, which jax-privacy lacks)."""
    from jax_privacy import batch_selection

    if run.kind == FIXED_BINS:
        return batch_selection.BallsInBinsSampling(iterations=run.steps, cycle_length=run.cycle_length)
    if run.kind == MIN_SEP:
        return batch_selection.BMinSepSampling(sampling_prob=run.sampling_rate, iterations=run.steps,
                                               min_sep=run.min_separation, warm_start=run.warm_start)
    if run.kind == CYCLIC:
        return batch_selection.CyclicPoissonSampling(sampling_prob=run.sampling_rate, iterations=run.steps,
                                                     cycle_length=run.cycle_length)
    raise ValueError(f"jax-privacy 2.0 has no strategy for sampler {run.sampler} (a fresh bin per epoch)")


__all__ = ["CertifiedAccountantConfig", "jax_privacy_strategy", "kept_bins_event", "matrix_run_from_bandmf_config", "phase_from_bandmf_config", "phase_from_monte_carlo",
           "matrix_run_from_monte_carlo"]
