"""The samplers that put each example in one batch per epoch: deterministic (D), shuffle (S) and
balls-and-bins (B). Dominating pairs (remove = D(P||Q), add = D(Q||P); sigma = noise std / clip norm):

- deterministic: K epochs are the Gaussian mechanism N(sqrt(K), sigma^2) vs N(0, sigma^2) (chua24
  Sec. 3), symmetric, exact;
- shuffle: a fresh permutation per epoch; no dominating pair is known. Lower bound: the sets E_C of
  chua24 eq. (3) on its worst-case pair; upper bound: delta_S <= delta_D (chua24 Thm 4.1). It
  cannot be composed with other phases (there is no pair to compose);
- balls-and-bins: each example in one uniformly random step of the epoch; the average of T copies
  of Y per epoch (chua25 Thm 3.1; proofs in ``accountants.certified.ballsbins``).
"""

from __future__ import annotations

import math

from dpsampling.samplers.base import EXACT, FIXED, MULTINOMIAL, PARTITION, AuditSignature, Sampler

SHUFFLE_LOWER_EPOCHS = 100_000
"""The most epochs shuffle's lower bound is computed over (10**9 ran out of memory, issue 42)."""


class Deterministic(Sampler):
    """Examples in order, T batches of sizes differing by at most 1 (chua24 Alg. 2)."""

    __slots__ = ()
    name, letter, title, label, colour = "deterministic", "D", "deterministic batches", "deterministic", "black"
    doc = "each example in exactly one fixed batch per epoch: the Gaussian mechanism, exact"
    lower_method = upper_method = EXACT
    audit_words = "deterministic batches"
    behaviour = "is deterministic (the same batches, in index order, every epoch)"
    audit_signature = AuditSignature(PARTITION, FIXED, epochs_repeat=True, index_order=True, exact=True)

    def gaussian_weight(self, phase) -> float:
        """K / sigma^2: K epochs are one Gaussian mechanism of sensitivity sqrt(K)."""
        return phase.epochs / phase.sigma**2

    def generator_batches(self, generator, n, steps, seed=None, batch_size=None):
        from dpsampling.batches.generators import deterministic_batches

        return deterministic_batches(n, steps)

    def epoch_plan(self, n, steps, batch_size, rng):
        from dpsampling.batches.generators import deterministic_batches

        return deterministic_batches(n, steps)


class Shuffle(Sampler):
    """A uniform permutation per epoch, cut as the deterministic batches (chua24 Alg. 3)."""

    __slots__ = ()
    name, letter, title, label, colour = "shuffle", "S", "shuffled batches", "shuffle", "tab:red"
    doc = "a fresh permutation per epoch cut into fixed batches; a bracket, no tight pair known"
    lower_method = "E_C sets (chua24 eq. (3))"
    upper_method = "delta_S <= delta_D (chua24 Thm 4.1)"
    tight = False
    audit_words = "shuffled batches"
    behaviour = "shuffles (every example once per epoch, fixed batch sizes)"
    audit_signature = AuditSignature(PARTITION, FIXED, index_order=False)

    def closed_form(self, phase, quantity: str, values):
        """Lower: the sets E_C per direction (chua24 eq. (3)); upper: delta_D (Thm 4.1), both directions."""
        import numpy as np

        from dpsampling.accountants.closed_form import gaussian, shuffle

        sigma, steps, epochs = phase.sigma, phase.steps_per_epoch, phase.epochs
        sensitivity = math.sqrt(epochs)
        # the lower bound's arrays grow with the epochs; the first SHUFFLE_LOWER_EPOCHS epochs are a
        # post-processing of all of them, so their lower bound is one of the whole run's
        seen = min(epochs, SHUFFLE_LOWER_EPOCHS)
        if quantity == "delta":
            lower = shuffle.shuffle_delta_lower(values, sigma, steps, seen)
            upper = gaussian.gaussian_delta_bounds(values, sigma, sensitivity)[1]  # docs/PROOF.md Lemma 16
        else:
            lower = shuffle.shuffle_epsilon_lower(values, sigma, steps, seen)
            upper = np.array([gaussian.gaussian_epsilon_bounds(d, sigma, sensitivity)[1] for d in values])
        bounds = np.empty((values.size, 3, 2))
        for column, direction in enumerate(("remove", "add", "max")):
            bounds[:, column, 0] = lower[direction]
            bounds[:, column, 1] = upper
        # the E_C bound is at most delta_D (Thm 4.1); where both are the same curve up to rounding,
        # the lower one is not allowed above the upper one
        bounds[..., 0] = np.minimum(bounds[..., 0], bounds[..., 1])
        return bounds, {"method": "closed forms (chua24 eq. (3) and Thm 4.1)", "c_grid": list(shuffle.DEFAULT_C_GRID)}

    def generator_batches(self, generator, n, steps, seed=None, batch_size=None):
        from dpsampling.batches.generators import shuffle_batches

        return shuffle_batches(n, steps, seed)

    def epoch_plan(self, n, steps, batch_size, rng):
        from dpsampling.batches.generators import shuffle_batches

        return shuffle_batches(n, steps, rng)


class BallsAndBins(Sampler):
    """Each example to one uniform batch of the T, independently (chua25 Alg. 3); its variant
    ``balls_and_bins_sequential`` (chua25 Sec. 5) draws the same law."""

    __slots__ = ()
    name, letter, title, label, colour = "balls_and_bins", "B", "balls-and-bins", "balls-and-bins", "tab:green"
    doc = "each example in one uniformly random step of each epoch (chua25)"
    variable_size = True
    monte_carlo = True
    variants = ("balls_and_bins_sequential",)
    correlated_noise = "balls_and_bins"
    audit_words = "balls-and-bins"
    behaviour = "draws balls-and-bins batches (every example once per epoch, multinomial sizes)"
    audit_signature = AuditSignature(PARTITION, MULTINOMIAL, epochs_repeat=False)

    def inclusion_rate(self, n: int, b: int, steps: int) -> float:
        """1 / T."""
        return 1.0 / steps

    def laws(self, phase, refinement: int):
        from dpsampling.accountants.certified.compose import ballsbins_run_laws

        return ballsbins_run_laws(phase.sigma, phase.steps_per_epoch, phase.epochs, refinement)

    def generator_batches(self, generator, n, steps, seed=None, batch_size=None):
        from dpsampling.batches.generators import balls_and_bins_batches, balls_and_bins_sequential_batches

        sequential = generator in self.variants
        return (balls_and_bins_sequential_batches if sequential else balls_and_bins_batches)(n, steps, seed)

    def epoch_plan(self, n, steps, batch_size, rng):
        from dpsampling.batches.generators import balls_and_bins_batches

        return balls_and_bins_batches(n, steps, rng)


__all__ = ["SHUFFLE_LOWER_EPOCHS", "BallsAndBins", "Deterministic", "Shuffle"]
