"""The loader side: re-iterable, seeded, epoch-aware batch samplers (a PyTorch ``batch_sampler``).

``BatchSampler`` gives the batches of a whole run (K epochs of T = ceil(n / b) steps) for any
sampler of the registry, with optional truncation/padding (the papers' samplers whose sizes vary)
and ``accounting()``: the run in the accountant face's terms, with its truncation delta
(``accountants.loader.LoaderAccounting``; docs/LOADERS.md, docs/INTEGRATIONS.md).

Each sampler's plan is its class's (``dpsampling.samplers``), never chosen by comparing names:

- the papers' samplers draw one epoch at a time, epoch e from its own stream
  SeedSequence(seed, spawn_key=(e,)) (their ``epoch_plan``);
- the correlated-noise samplers (registry ``matrix_only``, docs/MATRIX.md) draw the whole run from
  one stream, SeedSequence(seed), shared by all epochs (their ``run_plan``), with the parameters of
  their law in a ``Participation``: cyclic Poisson (cycle length T; the T groups fixed by a seeded
  shuffle; each example joins at each step of its group with probability q), b-min-sep (the
  registry's generator: minimum separation, rate p, warm start, over all K T steps as one renewal
  process) and fixed balls-and-bins (each example's bin drawn once, kept for every epoch). Their
  plans are prefixes of one run: the first e + 1 epochs drawn alone are the first e + 1 of the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpsampling.accountants.closed_form.truncation import max_batch_size as smallest_max_batch_size
from dpsampling.accountants.closed_form.truncation import truncation_delta
from dpsampling.accountants.matrix.run import law_fields
from dpsampling.batches.generators import BatchPlan, pad_or_truncate
from dpsampling.samplers import SAMPLER_NAMES, SAMPLERS, generator_entry
from dpsampling.validation import check_choice, check_int_at_least, check_nonnegative, check_open_unit, check_rate

PAD_INDEX = -1  # the index of a padding slot (weight 0), as in pad_or_truncate


class PaddedBatch(np.ndarray):
    """A batch of a truncating ``BatchSampler``: an int64 array that may hold PAD_INDEX. Numpy
    indexing (``X[batch]``) and ``tolist()`` work as for any array, but iterating one that holds
    padding (what a DataLoader does to fetch ``dataset[i]`` for each i) is refused: -1 would read
    the last example as a real one. ``PaddedDataset`` reads it whole (its ``__getitems__``)."""

    def __iter__(self):
        if self.ndim == 1 and (np.asarray(self) == PAD_INDEX).any():
            raise ValueError(f"a padded batch holds the padding index {PAD_INDEX}, which a dataset would read as "
                             "its last example: wrap the dataset in PaddedDataset(dataset) (padding then weighs 0), "
                             "or use batch.tolist() with BatchSampler.weights(batch)")
        return iter(np.asarray(self))


@dataclass(frozen=True)
class Participation:
    """The parameters of a correlated-noise sampler's law that n, b and the epochs do not give
    (docs/LOADERS.md): ``sampling_rate`` (cyclic_poisson: q, at each step of an example's group;
    b_min_sep: p, the geometric wait's rate), ``min_separation`` and ``warm_start`` (b_min_sep).
    Each applies to the samplers whose law takes it (``accountants.matrix.run.law_fields``)."""

    sampling_rate: float | None = None
    min_separation: int | None = None
    warm_start: bool = False


LOADER_SAMPLERS = tuple(name for name, spec in SAMPLERS.items() if spec.epoch_plan is not None)
"""The samplers ``BatchSampler`` draws from n, b and the epochs alone, one epoch at a time (the
papers'; the others draw their whole run: their ``run_plan``)."""


def make_batches(generator: str, n: int, steps: int, seed=None, batch_size: int | None = None) -> BatchPlan:
    """One epoch of T = ``steps`` batches over n examples, drawn by ``generator`` (one of
    GENERATORS: its sampler's ``generator_batches``); ``batch_size`` only for wor (default n // T)."""
    return generator_entry(generator).generator_batches(generator, n, steps, seed, batch_size)


@dataclass(frozen=True)
class Truncation:
    """A fixed batch size B for the samplers whose batch sizes vary (chua25 App. C): either
    ``max_batch_size`` B, or ``delta_target`` d, which picks the smallest B with delta' <= d at
    eps = ``epsilon`` (default 10, as chua25). ``epsilon`` is also the eps at which
    ``BatchSampler.accounting()`` reports delta'."""

    max_batch_size: int | None = None
    delta_target: float | None = None
    epsilon: float = 10.0


def _epoch_rng(seed: int, epoch: int) -> np.random.Generator:
    """Epoch e's stream: the e-th child of SeedSequence(seed), so each epoch stands alone."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(epoch,)))


def _run_rng(seed: int) -> np.random.Generator:
    """The stream of a run plan, shared by all epochs: SeedSequence(seed) itself (no epoch's child)."""
    return np.random.default_rng(np.random.SeedSequence(seed))


def _check_participation(sampler: str, participation) -> Participation | None:
    """``participation`` checked against the law of ``sampler``: every field its law takes given
    and valid, no other field given; None for the samplers without one."""
    participation = Participation() if participation is None else participation
    if not isinstance(participation, Participation):
        raise ValueError(f"participation must be a Participation or None; got {participation!r}")
    spec = SAMPLERS[sampler]
    takes = law_fields(spec.correlated_noise) if spec.matrix_only else ()
    given = {"sampling_rate": participation.sampling_rate, "min_separation": participation.min_separation,
             "warm_start": participation.warm_start or None}
    for name, value in given.items():
        if value is not None and name not in takes:
            allowed = [s for s in SAMPLER_NAMES if SAMPLERS[s].matrix_only and name in law_fields(s)]
            raise ValueError(f"participation.{name} applies to sampler(s) {', '.join(allowed)} only; got {value!r} "
                             f"with sampler {sampler!r}")
    if not spec.matrix_only:
        return None
    for name in ("sampling_rate", "min_separation"):
        if name in takes and given[name] is None:
            raise ValueError(f"participation.{name} must be given for sampler {sampler} (BatchSampler({sampler!r}, "
                             f"..., participation=Participation({name}=...))); got none")
    rate = check_rate("participation.sampling_rate", participation.sampling_rate) if "sampling_rate" in takes else None
    separation = (check_int_at_least("participation.min_separation", participation.min_separation, 1)
                  if "min_separation" in takes else None)
    if not isinstance(participation.warm_start, bool | np.bool_):
        raise ValueError(f"participation.warm_start must be True or False; got {participation.warm_start!r}")
    return Participation(rate, separation, bool(participation.warm_start))


class BatchSampler:
    """Batches of example indices for DP-SGD, epoch after epoch; re-iterable and reproducible.

    ``BatchSampler(sampler, dataset_size, batch_size, *, epochs=1, seed=0, truncation=None,
    participation=None)``, ``sampler`` one of the registry's (``dpsampling.samplers``),
    ``truncation`` a ``Truncation`` or None, ``participation`` a ``Participation`` (the
    correlated-noise samplers' own parameters) or None.

    With n = dataset_size and b = batch_size, an epoch has T = ceil(n / b) steps (chua24/chua25
    write T = n / b with b dividing n):

    - deterministic, shuffle: the n examples (in order, or uniformly permuted) cut into T batches
      whose sizes differ by at most 1 (so each is at most b; exactly b when b divides n);
    - poisson: each example in each batch independently with probability q = b / n;
    - balls_and_bins: each example in one uniform batch of the T, independently (rate 1/T,
      expected batch size n / T <= b);
    - wor: each batch a uniform subset of exactly b examples, independently across steps (q = b / n);
    - cyclic_poisson (``Participation(sampling_rate=q)``): cycle length T; the n examples cut into T
      groups by a seeded shuffle (sizes differing by at most 1, about b each), group g's examples
      each joining independently with probability q at the steps t = g mod T (expected batch q n / T);
    - b_min_sep (``Participation(sampling_rate=p, min_separation=b_sep, warm_start=False)``): each
      example independently, its next participation b_sep - 1 + G steps after the last, G ~
      Geometric(p) on {1, 2, ...}, over all K T steps (``generators.b_min_sep_batches``);
    - fixed_balls_and_bins: each example in one uniform batch of the T, drawn once: the same batches
      every epoch (expected batch n / T <= b).

    Iterating yields numpy int64 arrays, K T of them (K = epochs); ``len()`` is K T. Epoch e uses
    the stream SeedSequence(seed, spawn_key=(e,)) (the correlated-noise samplers: one stream,
    SeedSequence(seed), for the whole run), so iterating twice gives the same batches and
    ``epoch(e)`` alone gives epoch e's batches. Any object with __iter__ and __len__ like this is
    what ``torch.utils.data.DataLoader(dataset, batch_sampler=...)`` takes.

    Truncation and padding (the papers' samplers whose sizes vary: poisson and balls_and_bins; chua25 App. C): with
    ``Truncation(max_batch_size=B)`` (or ``Truncation(delta_target=d, epsilon=eps)``: B the
    smallest size whose delta' at eps is at most d), every batch has exactly B slots: a
    larger batch is replaced by a uniform subset of B of its examples, a smaller one is padded with
    PAD_INDEX (-1). The padding slots carry weight 0: ``weights(batch)`` (= batch != -1) is the mask
    a weighted loss needs, ``with_weights()`` yields (indices, weights) pairs, and
    ``PaddedDataset`` makes a dataset return (example, weight) for a DataLoader. The price is
    delta' = (1 + e^eps) K T Pr[Bin(n, b/n) > B] (``accounting().truncation_delta``).
    """

    def __init__(self, sampler: str, dataset_size: int, batch_size: int, *, epochs: int = 1, seed: int = 0,
                 truncation: Truncation | None = None, participation: Participation | None = None):
        truncation = Truncation() if truncation is None else truncation
        if not isinstance(truncation, Truncation):
            raise ValueError(f"truncation must be a Truncation or None; got {truncation!r}")
        max_batch_size, truncation_delta_target = truncation.max_batch_size, truncation.delta_target
        self.sampler = check_choice("sampler", sampler, SAMPLER_NAMES)
        self.participation = _check_participation(self.sampler, participation)
        self.dataset_size = check_int_at_least("dataset_size", dataset_size, 1)
        self.batch_size = _check_int_in("batch_size", batch_size, 1, self.dataset_size, "dataset_size")
        self.epochs = check_int_at_least("epochs", epochs, 1)
        self.seed = check_int_at_least("seed", seed, 0)
        self.truncation_epsilon = check_nonnegative("truncation.epsilon", truncation.epsilon)
        self.steps_per_epoch = -(-self.dataset_size // self.batch_size)
        if (max_batch_size is not None or truncation_delta_target is not None) \
                and not (self.spec.variable_size and self.spec.epoch_plan is not None):
            given = "truncation.max_batch_size" if max_batch_size is not None else "truncation.delta_target"
            raise ValueError(f"{given} applies to samplers {', '.join(n for n in LOADER_SAMPLERS if SAMPLERS[n].variable_size)} only "
                             f"(their batch sizes vary); got it with sampler {self.sampler!r}")
        if max_batch_size is not None and truncation_delta_target is not None:
            raise ValueError("truncation.max_batch_size and truncation.delta_target must not both be given; got "
                             f"{max_batch_size!r} and {truncation_delta_target!r}")
        if truncation_delta_target is not None:
            target = check_open_unit("truncation.delta_target", truncation_delta_target)
            max_batch_size = smallest_max_batch_size(self.dataset_size, self.batch_size, self.steps,
                                                     self.truncation_epsilon, target)
        elif max_batch_size is not None:
            # below the expected batch size most batches are cut and the truncation delta passes 1
            max_batch_size = _check_int_in("truncation.max_batch_size", max_batch_size, self.batch_size,
                                           self.dataset_size, "dataset_size")
        self.max_batch_size = max_batch_size
        self._frozen = True

    def __setattr__(self, name, value):
        if getattr(self, "_frozen", False):  # batches and accounting() must describe the same run
            raise AttributeError(f"BatchSampler is immutable (make a new one); got {name} = {value!r}")
        object.__setattr__(self, name, value)

    @property
    def spec(self):
        """The sampler drawn (``dpsampling.samplers``)."""
        return SAMPLERS[self.sampler]

    @property
    def steps(self) -> int:
        """Steps over all epochs, K T."""
        return self.steps_per_epoch * self.epochs

    @property
    def sampling_rate(self) -> float | None:
        """Inclusion probability of an example in a batch: b/n (poisson, wor), 1/T (balls_and_bins,
        fixed_balls_and_bins), the participation's rate (cyclic_poisson: at its group's steps;
        b_min_sep: of the geometric wait), else None."""
        if self.participation is not None and self.participation.sampling_rate is not None:
            return self.participation.sampling_rate
        return self.spec.inclusion_rate(self.dataset_size, self.batch_size, self.steps_per_epoch)

    def __len__(self) -> int:
        return self.steps

    def __iter__(self):
        if self.spec.run_plan is not None:  # one draw of the whole run
            run = self._run(self.steps)
            yield from (run.batch(t).copy() for t in range(run.steps))
            return
        for e in range(self.epochs):
            yield from self.epoch(e)

    def __repr__(self) -> str:
        return (f"BatchSampler({self.sampler!r}, dataset_size={self.dataset_size}, batch_size={self.batch_size}, "
                f"epochs={self.epochs}, seed={self.seed}, truncation=Truncation(max_batch_size={self.max_batch_size}, "
                f"epsilon={self.truncation_epsilon}), participation={self.participation!r})")

    def plan(self, epoch: int) -> BatchPlan:
        """Epoch ``epoch``'s batches before truncation and padding (a BatchPlan of T batches)."""
        epoch = _check_int_in("epoch", epoch, 0, self.epochs - 1, "epochs - 1")
        if self.spec.run_plan is not None:
            return self._run_epoch(epoch)
        return self._plan(_epoch_rng(self.seed, epoch))

    def _plan(self, rng: np.random.Generator) -> BatchPlan:
        return self.spec.epoch_plan(self.dataset_size, self.steps_per_epoch, self.batch_size, rng)

    def _run(self, steps: int) -> BatchPlan:
        """The first ``steps`` steps of a run plan's run (its one stream)."""
        return self.spec.run_plan(self.dataset_size, steps, self.steps_per_epoch, self.participation,
                                       _run_rng(self.seed))

    def _run_epoch(self, epoch: int) -> BatchPlan:
        """Epoch ``epoch`` of a run plan: its T steps cut from the run's first (epoch + 1) T."""
        run, first = self._run((epoch + 1) * self.steps_per_epoch), epoch * self.steps_per_epoch
        offsets = run.offsets[first:]
        return BatchPlan(run.indices[offsets[0]:offsets[-1]], offsets - offsets[0], self.dataset_size)

    def epoch(self, epoch: int) -> list[np.ndarray]:
        """Epoch ``epoch``'s T batches (int64 arrays; exactly max_batch_size long when it is set:
        then ``PaddedBatch``, which no dataset but ``PaddedDataset`` can be indexed with)."""
        epoch = _check_int_in("epoch", epoch, 0, self.epochs - 1, "epochs - 1")
        if self.spec.run_plan is not None:
            plan = self._run_epoch(epoch)
            return [plan.batch(t).copy() for t in range(plan.steps)]
        rng = _epoch_rng(self.seed, epoch)
        plan = self._plan(rng)
        if self.max_batch_size is None:
            return [plan.batch(t).copy() for t in range(plan.steps)]
        # The truncation subsets come from the same epoch stream, after the plan.
        return [pad_or_truncate(plan.batch(t), self.max_batch_size, rng)[0].view(PaddedBatch) for t in range(plan.steps)]

    @staticmethod
    def weights(batch: np.ndarray) -> np.ndarray:
        """Loss weights of a batch's slots: 1.0 for an example, 0.0 for padding (PAD_INDEX)."""
        return (np.asarray(batch) != PAD_INDEX).astype(np.float64)

    def with_weights(self):
        """Yield (indices, weights) for every step; padding slots have index PAD_INDEX and weight 0."""
        for batch in self:
            yield batch, self.weights(batch)

    def truncation_delta(self, epsilon: float | None = None) -> float:
        """delta' = (1 + e^eps) K T Pr[Bin(n, b/n) > B] (chua25 App. C); 0 without truncation.

        For balls_and_bins the batch size is Bin(n, 1/T) with 1/T <= b/n, so this is an upper bound."""
        epsilon = self.truncation_epsilon if epsilon is None else check_nonnegative("epsilon", epsilon)
        if self.max_batch_size is None:
            return 0.0
        return truncation_delta(self.dataset_size, self.batch_size, self.max_batch_size, self.steps, epsilon)

    def accounting(self):
        """The parameters an accountant needs, and delta' to add to its delta
        (``accountants.loader.LoaderAccounting``)."""
        from dpsampling.accountants.loader import LoaderAccounting

        separation = self.participation.min_separation if self.participation is not None else None
        return LoaderAccounting(self.sampler, self.dataset_size, self.batch_size, self.steps_per_epoch, self.epochs,
                                self.sampling_rate, self.max_batch_size, self.truncation_epsilon,
                                self.truncation_delta(), separation,
                                separation is not None and self.participation.warm_start)


class PaddedDataset:
    """``dataset[i]`` as (example, weight): weight 1.0, or 0.0 and ``dataset[fill_index]`` for PAD_INDEX.

    For ``DataLoader(PaddedDataset(dataset), batch_sampler=BatchSampler(..., truncation=Truncation(max_batch_size=B)))``:
    the default collate then gives (examples, weights), weights a float32 tensor of length B.
    Weights are numpy float32 scalars (so that they collate to float32)."""

    def __init__(self, dataset, fill_index: int = 0):
        self.dataset = dataset
        self.fill_index = check_int_at_least("fill_index", fill_index, 0)

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitems__(self, indices):
        """A whole batch (what torch's DataLoader fetches with, where the dataset has it)."""
        return [self[index] for index in np.asarray(indices).tolist()]

    def __getitem__(self, index):
        index = int(index)
        if index == PAD_INDEX:
            return self.dataset[self.fill_index], np.float32(0.0)
        if index < 0:
            raise IndexError(f"index must be >= 0 or the padding index {PAD_INDEX}; got {index}")
        return self.dataset[index], np.float32(1.0)


def _check_int_in(name: str, value, lower: int, upper: int, upper_name: str) -> int:
    """An integer in [lower, upper]: ``batch_size must be in [1, dataset_size=100]; got 200``."""
    try:
        x = check_int_at_least(name, value, lower)
    except ValueError:
        x = None
    if x is None or x > upper:
        raise ValueError(f"{name} must be an integer in [{lower}, {upper_name}={upper}]; got {value!r}")
    return x
