"""The correlated-noise samplers of issue 44 (docs/MATRIX.md): cyclic Poisson (C), b-min-sep (M) and
fixed balls-and-bins (F). They have no laws of their own: every phase of them (coefficients [1]
too) is accounted through ``accountants.matrix``: the certified engine on the phases of
``certified_phases`` where that reduction holds (cyclic Poisson with bands <= cycle length; fixed
bins with one coefficient and whole cycles; b-min-sep with min_separation 1), else
``method="monte_carlo"``. The loader draws each as one run from one stream (``run_plan``), with the
parameters of its law in a ``batches.Participation``; a shorter run is a prefix of a longer one.
"""

from __future__ import annotations

from dpsampling.samplers.base import CYCLIC, MIN_SEPARATION, MULTINOMIAL, PARTITION, AuditSignature, Sampler


class _Correlated(Sampler):
    __slots__ = ()
    variable_size = True
    matrix_only = True


class CyclicPoisson(_Correlated):
    """k public groups (cycle length k = T, the steps per epoch); at step t each example of group
    t mod k joins independently with probability q (Choquette-Choo et al. 2023)."""

    __slots__ = ()
    name, letter, title, label, colour = ("cyclic_poisson", "C", "cyclic Poisson subsampling", "cyclic Poisson",
                                          "tab:orange")
    doc = ("k public groups (cycle length k = steps per epoch); at step t each example of group t mod k joins "
           "independently with probability q (Choquette-Choo et al. 2023)")
    rate_based = True
    correlated_noise = "cyclic_poisson"  # its reduction is exact (docs/MATRIX.md)
    audit_words = "cyclic Poisson batches"
    behaviour = ("draws cyclic Poisson batches (each example only at one step of the epoch, joining independently at "
                 "one rate)")
    audit_signature = AuditSignature(CYCLIC, epochs_repeat=False)

    def run_plan(self, n, steps, cycle_length, participation, rng):
        """The T = ``cycle_length`` groups fixed by a seeded shuffle (example order[j] in group j mod T,
        sizes differing by at most 1), then ``batches.cyclic_poisson_batches`` on the shuffled ids."""
        from dpsampling.batches.generators import BatchPlan, cyclic_poisson_batches

        order = rng.permutation(n).astype("int64")
        plan = cyclic_poisson_batches(n, steps, cycle_length, participation.sampling_rate, rng)
        return BatchPlan(order[plan.indices], plan.offsets, n)


class BMinSep(_Correlated):
    """Each example's participations at least b_sep steps apart, the next after a geometric(p)
    wait; optional warm start (Dong & Ganesh 2026)."""

    __slots__ = ()
    name, letter, title, label, colour = "b_min_sep", "M", "b-min-sep sampling", "b-min-sep", "tab:brown"
    doc = ("each example's participations at least min_separation steps apart, the next one after a geometric(p) "
           "wait; optional warm start (Dong & Ganesh 2026)")
    rate_based = True
    tight = False
    correlated_noise = "b_min_sep"
    audit_words = "b-min-sep batches"
    behaviour = "draws b-min-sep batches (each example's participations at least b steps apart, then a geometric wait)"
    audit_signature = AuditSignature(MIN_SEPARATION)

    def run_plan(self, n, steps, cycle_length, participation, rng):
        """All the run's steps as one renewal process (``batches.b_min_sep_batches``)."""
        from dpsampling.batches.generators import b_min_sep_batches

        return b_min_sep_batches(n, steps, participation.min_separation, participation.sampling_rate,
                                 participation.warm_start, rng)


class FixedBallsAndBins(_Correlated):
    """Each example in one uniform step of the cycle, the same step in every cycle (jax-privacy's
    balls-in-bins, Choquette-Choo et al. 2024)."""

    __slots__ = ()
    name, letter, title, label, colour = ("fixed_balls_and_bins", "F", "fixed balls-and-bins", "fixed balls-and-bins",
                                          "tab:olive")
    doc = ("each example in one uniformly random step of the cycle, the same step in every cycle (jax-privacy's "
           "balls-in-bins, Choquette-Choo et al. 2024)")
    correlated_noise = "fixed_balls_and_bins"
    audit_words = "fixed balls-and-bins batches"
    behaviour = "draws fixed balls-and-bins batches (the same balls-and-bins partition every epoch)"
    audit_signature = AuditSignature(PARTITION, MULTINOMIAL, epochs_repeat=True)  # the bins kept

    def inclusion_rate(self, n: int, b: int, steps: int) -> float:
        """1 / T."""
        return 1.0 / steps

    def run_plan(self, n, steps, cycle_length, participation, rng):
        """Each example's bin drawn once, kept for every epoch (``batches.fixed_balls_and_bins_batches``)."""
        from dpsampling.batches.generators import fixed_balls_and_bins_batches

        return fixed_balls_and_bins_batches(n, steps, cycle_length, rng)


__all__ = ["BMinSep", "CyclicPoisson", "FixedBallsAndBins"]
