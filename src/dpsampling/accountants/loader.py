"""The accounting of a data loader's run: what ``dpsampling account`` needs to know about a
``BatchSampler`` (``dpsampling.batches``), and its eps with the truncation delta included.

``BatchSampler.accounting()`` returns a ``LoaderAccounting``; ``epsilon_with_truncation`` is the
eps of a truncated run (chua25 App. C: the truncated run is (eps, delta(eps) + delta'(eps))-DP,
delta'(eps) = (1 + e^eps) K T Pr[Bin(n, b/n) > B], increasing in eps;
``closed_form.truncation``).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.closed_form.truncation import truncation_delta
from dpsampling.accountants.run import DP_SGD_COEFFICIENTS, Phase
from dpsampling.samplers import SAMPLERS
from dpsampling.validation import check_nonnegative, check_open_unit


@dataclass(frozen=True)
class LoaderAccounting:
    """What ``dpsampling account`` needs to know about a training run's batch sampler.

    ``sampling_rate``: the inclusion probability of one example in one batch (poisson: b/n; wor:
    b/n; balls_and_bins, fixed_balls_and_bins: 1/T; cyclic_poisson: q at its group's steps; b_min_sep:
    p, the rate of its geometric wait) or None (deterministic, shuffle). ``min_separation`` and
    ``warm_start``: b_min_sep's (None and False for the others). ``truncation_delta``: delta' of
    chua25 App. C at ``truncation_epsilon``, to add to the accountant's delta (0 without
    truncation); it is also a valid delta' for every smaller eps.

    The run in the face's terms: ``phases(sigma)`` (``Phase(sampler, sigma, dataset_size=n,
    batch_size=b, epochs=K)``: T = ceil(n / b) steps per epoch, rate b / n where the sampler has
    one; a rate-based correlated-noise sampler: ``sampling_rate``, ``steps_per_epoch`` (cyclic
    Poisson's cycle length T) and ``epochs``, and b_min_sep's ``min_separation`` and ``warm_start``;
    ``coefficients``: the first column of the noise's banded C, docs/MATRIX.md). ``get_epsilon(sigma, delta)`` and ``get_delta(sigma, epsilon)`` include the truncation
    delta (module docstring of ``closed_form.truncation``: the truncated run is (eps, delta(eps) +
    delta'(eps))-DP, delta'(eps) = (1 + e^eps) K T Pr[Bin(n, b/n) > B], increasing in eps).
    """

    sampler: str
    dataset_size: int
    batch_size: int
    steps_per_epoch: int
    epochs: int
    sampling_rate: float | None
    max_batch_size: int | None
    truncation_epsilon: float
    truncation_delta: float
    min_separation: int | None = None
    warm_start: bool = False

    @property
    def steps(self) -> int:
        """Steps over all epochs, K T."""
        return self.steps_per_epoch * self.epochs

    def run_fields(self) -> dict:
        """The face's ``Phase`` keywords of this run (T = ceil(n / b), rate b / n where used; a
        rate-based correlated-noise sampler's rate is its own, not b / n)."""
        spec = SAMPLERS[self.sampler]
        if not (spec.matrix_only and spec.rate_based):
            return {"dataset_size": self.dataset_size, "batch_size": self.batch_size, "epochs": self.epochs}
        fields = {"sampling_rate": self.sampling_rate, "steps_per_epoch": self.steps_per_epoch, "epochs": self.epochs}
        if self.min_separation is not None:
            fields.update(min_separation=self.min_separation, warm_start=self.warm_start)
        return fields

    def cli_args(self) -> list[str]:
        """The ``dpsampling account`` flags that describe this run, the Phase keywords as flags
        (add --sigma and --epsilon/--delta)."""
        args = ["--sampler", self.sampler]
        for name, value in self.run_fields().items():
            flag = f"--{name.replace('_', '-')}"
            if isinstance(value, bool):  # a switch (--warm-start): given when true
                args += [flag] if value else []
            else:
                args += [flag, repr(value) if isinstance(value, float) else str(value)]
        return args

    def phases(self, sigma: float, coefficients=DP_SGD_COEFFICIENTS) -> tuple[Phase, ...]:
        """The run as the face's phases at noise multiplier ``sigma`` (noise std / clip norm), with
        correlated noise of first column ``coefficients`` (default DP-SGD's)."""
        return (Phase(self.sampler, sigma, coefficients=coefficients, **self.run_fields()),)

    def accountant(self, sigma: float, *, coefficients=DP_SGD_COEFFICIENTS, **options) -> Accountant:
        """``Accountant(self.phases(sigma, coefficients), **options)`` (relation, accuracy, method,
        ...): the bounds WITHOUT the truncation delta (add ``truncation_delta_at(eps)`` to its deltas)."""
        return Accountant(self.phases(sigma, coefficients), **options)

    def truncation_delta_at(self, epsilon: float) -> float:
        """delta'(eps) = (1 + e^eps) K T Pr[Bin(n, b/n) > B]; 0 without truncation."""
        epsilon = check_nonnegative("epsilon", epsilon)
        if self.max_batch_size is None:
            return 0.0
        return truncation_delta(self.dataset_size, self.batch_size, self.max_batch_size, self.steps, epsilon)

    def get_delta(self, sigma: float, epsilon: float, **options) -> float:
        """The certified upper bound on the truncated run's delta at ``epsilon``: the
        accountant's plus delta'(epsilon)."""
        return min(1.0, self.accountant(sigma, **options).get_delta(epsilon) + self.truncation_delta_at(epsilon))

    def get_epsilon(self, sigma: float, delta: float, **options) -> float:
        """The certified upper bound on the truncated run's eps at total ``delta``
        (``epsilon_with_truncation``)."""
        return epsilon_with_truncation(self.accountant(sigma, **options).get_epsilon, delta,
                                       self.truncation_delta_at, self.truncation_epsilon)


def epsilon_with_truncation(get_epsilon, delta: float, truncation_delta_at, truncation_epsilon: float) -> float:
    """The smallest eps found with accountant_delta(eps) + delta'(eps) <= ``delta``: eps =
    ``get_epsilon(delta - delta'(eps'))`` with delta' charged at an eps' >= the answer (first
    ``truncation_epsilon``, raised to the answer while it is larger), so it is a valid delta' for the
    answer (delta' increases with eps). ``get_epsilon``: the accountant's certified upper bound."""
    delta = check_open_unit("delta", delta)
    charged_at = check_nonnegative("truncation_epsilon", truncation_epsilon)
    for _ in range(50):
        spent = truncation_delta_at(charged_at)
        if spent >= 1.0:
            raise ValueError(f"max_batch_size is too small for this run: the truncation's delta' = (1 + e^eps) K T "
                             f"Pr[batch size > max_batch_size] is {spent:.3g} at eps {charged_at:g}, above 1 (no delta "
                             "is left); raise max_batch_size")
        if spent >= delta:
            raise ValueError(f"delta must exceed the truncation's delta' = (1 + e^eps) K T Pr[batch size > "
                             f"max_batch_size] = {spent:.3g} (at eps {charged_at:g}); got {delta:g} (raise "
                             "max_batch_size or delta)")
        epsilon = get_epsilon(delta - spent) if spent else get_epsilon(delta)
        if epsilon <= charged_at or epsilon == float("inf"):  # inf: no eps is shown, whatever delta' is
            return epsilon
        charged_at = epsilon * (1.0 + 1e-9)
    raise ValueError(f"delta must leave room for the truncation delta; got {delta:g} (the truncation delta at the eps "
                     "found keeps growing: raise max_batch_size)")


__all__ = ["LoaderAccounting", "epsilon_with_truncation"]
