"""The subsampled samplers, described by a sampling rate q: Poisson (P) and sampling without
replacement (W). Dominating pairs (remove = D(P||Q), add = D(Q||P); sigma = noise std / clip norm):

- Poisson: P = (1 - q) N(0, sigma^2) + q N(1, sigma^2), Q = N(0, sigma^2) per step (chua24 Sec. 3);
- WOR: fixed-size batches without replacement, q = b / n: Poisson's pair at distance 2, i.e. at
  sigma / 2 (lebeda24 Thm 10.2, tight by Prop. 9.2). Substitution: the Appendix D construction
  (``accountants.certified.substitution``).

Both have dp-accounting's PLD as their reference method, and the peers of the benchmarks model
both (at noise sigma / distance).
"""

from __future__ import annotations

from dpsampling.samplers.base import CONSTANT, RATES, VARYING, AuditSignature, Sampler


class _Subsampled(Sampler):
    """The pair (1 - q) N(0, s^2) + q N(d, s^2) vs N(0, s^2), at distance d = ``distance``."""

    __slots__ = ()
    rate_based = True
    peers_model = True

    def inclusion_rate(self, n: int, b: int, steps: int) -> float:
        """q = b / n."""
        return b / n

    def laws(self, phase, refinement: int):
        """The engine's pair at distance 1 and noise s = sigma / d."""
        from dpsampling.accountants.certified.compose import subsampled_laws

        return subsampled_laws(phase.sigma / self.distance, phase.sampling_rate, phase.steps, refinement)

    def gaussian_weight(self, phase) -> float | None:
        """A rate-1 phase is the Gaussian mechanism at every step: T (d / sigma)^2."""
        return phase.steps * (self.distance / phase.sigma) ** 2 if phase.sampling_rate >= 1.0 else None

    def reference(self, phase, quantity: str, values, accuracy: float):
        """dp-accounting's PLD of the phase at this distance."""
        from dpsampling.accountants.reference import pld

        return pld._phase_bounds(phase, self.distance, quantity, values, accuracy)


class Poisson(_Subsampled):
    """Each example in each batch independently with probability q (chua24 Alg. 4)."""

    __slots__ = ()
    name, letter, title, label, colour = "poisson", "P", "Poisson subsampling", "Poisson", "tab:blue"
    doc = "each example in each step independently with probability q"
    variable_size = True
    correlated_noise = "cyclic_poisson"
    audit_words = "Poisson batches"
    behaviour = "draws Poisson batches (independent participation at one rate)"
    audit_signature = AuditSignature(RATES, VARYING)

    def generator_batches(self, generator, n, steps, seed=None, batch_size=None):
        """At rate 1 / T."""
        from dpsampling.batches.generators import poisson_batches

        return poisson_batches(n, steps, seed)

    def epoch_plan(self, n, steps, batch_size, rng):
        """At rate b / n."""
        from dpsampling.batches.generators import poisson_batches

        return poisson_batches(n, steps, rng, rate=batch_size / n)


class WithoutReplacement(_Subsampled):
    """Each batch a uniform subset of exactly b examples, independently across steps (lebeda24)."""

    __slots__ = ()
    name, letter, title, label, colour = "wor", "W", "sampling without replacement", "WOR", "tab:purple"
    doc = "a uniformly random batch of exactly b of n examples per step, q = b / n (lebeda24)"
    relations = (*_Subsampled.relations, "substitution")
    distance = 2.0  # its pair is Poisson's at sigma / 2 (lebeda24 Thm 10.2)
    audit_words = "fixed-size batches without replacement"
    behaviour = "draws fixed-size batches without replacement (independent draws per step)"
    audit_signature = AuditSignature(RATES, CONSTANT)

    def substitution(self, phase, quantity: str, values, accuracy: float, max_grid_points: int):
        """Bounds under substitution (lebeda24 App. D, ``certified.substitution``)."""
        from dpsampling.accountants.certified.substitution import _substitution_bounds

        return _substitution_bounds(phase, quantity, values, accuracy, max_grid_points)

    def generator_batches(self, generator, n, steps, seed=None, batch_size=None):
        """Batches of ``batch_size`` (default n // T, at least 1)."""
        from dpsampling.batches.generators import wor_batches

        return wor_batches(n, steps, batch_size or max(1, n // steps), seed)

    def epoch_plan(self, n, steps, batch_size, rng):
        from dpsampling.batches.generators import wor_batches

        return wor_batches(n, steps, batch_size, rng)


__all__ = ["Poisson", "WithoutReplacement"]
