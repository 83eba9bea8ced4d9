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

Truncated Poisson and user-level accounting type-check for jax-privacy's own PLD classes and are
not routed here. Importing this module imports jax-privacy (and jax); ``import dpsampling`` does not.
"""

from __future__ import annotations

import dataclasses

import dp_accounting

from dpsampling.integrations.dp_accounting import CertifiedAccountant
from dpsampling.integrations.events import KeptBinsDpEvent
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


__all__ = ["CertifiedAccountantConfig", "kept_bins_event"]
