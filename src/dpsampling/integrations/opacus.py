"""Opacus: an accountant with Opacus' protocol, selected by name, and ``get_noise_multiplier``.

    from dpsampling.integrations.opacus import register
    name = register()                                  # "dpsampling": Poisson, Opacus' DPDataLoader
    privacy_engine = PrivacyEngine(accountant=name)    # was: PrivacyEngine() (PRV) or "rdp"

The class has what ``opacus.accountants.IAccountant`` has: ``history`` (a list of
(noise_multiplier, sample_rate, steps), consecutive equal steps merged), ``step(noise_multiplier=,
sample_rate=)``, ``get_epsilon(delta)``, ``__len__`` (steps so far), ``mechanism()`` (the
registered name), ``state_dict`` / ``load_state_dict`` and ``get_optimizer_hook_fn``, without
subclassing it: importing this module never imports torch or opacus. ``register`` (a function:
it imports opacus, which imports torch) puts it in Opacus' registry, so that
``PrivacyEngine(accountant=name)`` and ``make_private_with_epsilon`` (which calls Opacus'
``get_noise_multiplier`` with ``accountant=mechanism()``) use it. If opacus is already imported
when this module is, the default accountant ("dpsampling") is registered at once.

Opacus tells an accountant only (noise multiplier, sample rate, steps); which sampler ran and how
its epochs are cut is fixed when the class is made (``accountant_class``): one class per
configuration, since Opacus creates accountants without arguments.

- Rate-based samplers (poisson, wor): a history entry (z, q, s) is ``Phase(sampler, z,
  sampling_rate=q, steps=s)``. A ``sampling_rate`` given to ``register`` is a check, never a
  silent replacement: a recorded q that differs from it is refused (one ValueError, at the
  ``step`` that records it or at ``get_epsilon``), since an eps at a rate the run did not use can
  be 500 times too small. With our ``BatchSampler`` as ``batch_sampler``, Opacus records
  1 / len(data_loader) = 1 / (K T), not b / n: ``register_loader(batch_sampler.accounting())``
  knows both, and accounts b / n.
- Epoch-based samplers (balls_and_bins, deterministic, shuffle) need ``steps_per_epoch`` T (the
  loader's): s steps are ceil(s / T) epochs for the upper bound (the first r steps of an epoch
  are a post-processing of the whole epoch) and floor(s / T) for the lower bound. Opacus' rate
  q = 1 / len(data_loader) must be 1 / (K T) for a whole K (a plain loader: K = 1; our
  ``BatchSampler``: its epochs); any other q contradicts T and is refused.
- ``register_loader(batch_sampler.accounting())`` takes all of it from our ``BatchSampler``,
  and charges its truncation delta (``accountants.loader.epsilon_with_truncation``; delta' of the whole run).
- Registering a name again with another configuration (``register``, ``register_loader``)
  replaces Opacus' entry, as Opacus does with ``force=True``, and says so (a ``UserWarning``
  naming what changed); the same configuration again changes nothing and says nothing.

The noise multiplier is Opacus': noise std / max_grad_norm (the face's sigma). Relations: the face's
(add_or_remove by default; substitution for wor). A noise multiplier of 0, or below a sampler's
certified grid, gives eps = inf (a bound; Opacus' own search starts from large sigma).
"""

from __future__ import annotations

import math
import sys
import warnings
from collections import OrderedDict
from copy import deepcopy

from dpsampling.accountants.accountant import Accountant
from dpsampling.accountants.calibrate import calibrate_sigma
from dpsampling.accountants.loader import LoaderAccounting, epsilon_with_truncation
from dpsampling.accountants.relations import DEFAULT_RELATION
from dpsampling.accountants.run import Phase
from dpsampling.integrations.bounds import constant_frame, run_frame
from dpsampling.lazy import lazy_import
from dpsampling.samplers import POISSON, sampler_entry
from dpsampling.validation import check_array, check_int_at_least, check_nonnegative, check_open_unit, check_rate

opacus = lazy_import("opacus") if "opacus" in sys.modules else None  # the registration hook's, read in register()

DEFAULT_SAMPLER = POISSON.name
"""What Opacus' DPDataLoader does (poisson_sampling=True, its default)."""
DEFAULT_NAME = "dpsampling"
"""The registered name of the default accountant (DEFAULT_SAMPLER, add_or_remove)."""
RATE_RTOL = 1e-6
"""Relative tolerance of the rate checks (Opacus' rate is 1 / len(data_loader), a float)."""
_REGISTERED: dict[str, dict] = {}
"""name -> the configuration registered under it in this process (to say when one is replaced)."""


class CertifiedOpacusAccountant:
    """Opacus' accountant protocol over the face (module docstring). Configured by class
    attributes (``accountant_class`` makes a configured subclass): ``sampler``, ``sampling_rate``
    (rate-based samplers: the rate the run samples at, checked against Opacus' rate),
    ``loader_steps`` (K T of our ``BatchSampler``: Opacus then records 1 / (K T)),
    ``steps_per_epoch`` (epoch-based samplers), ``relation``, ``accuracy``, ``loader`` (a
    ``LoaderAccounting`` whose truncation delta is charged) and ``name`` (what ``mechanism()``
    returns)."""

    sampler = DEFAULT_SAMPLER
    sampling_rate = None
    loader_steps = None
    steps_per_epoch = None
    relation = DEFAULT_RELATION
    accuracy = 0.01
    loader = None
    name = DEFAULT_NAME

    def __init__(self):
        self.history = []

    @classmethod
    def mechanism(cls) -> str:
        return cls.name

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """One optimization step (merged into the last history entry when it has the same values)."""
        noise_multiplier = check_nonnegative("noise_multiplier", noise_multiplier)
        sample_rate = check_rate("sample_rate", sample_rate)
        self._rate(sample_rate)
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            self.history[-1] = (noise_multiplier, sample_rate, self.history[-1][2] + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        return sum(steps for _, _, steps in self.history)

    def _rate(self, recorded: float) -> float | None:
        """The rate the run sampled at, given Opacus' recorded rate (module docstring): Opacus'
        own, or the configured one where Opacus' is explained by it; a contradiction is refused."""
        close = lambda a, b: math.isclose(a, b, rel_tol=RATE_RTOL)  # noqa: E731
        if not sampler_entry(self.sampler).rate_based:
            batches = 1.0 / recorded
            epochs = round(batches / self.steps_per_epoch)
            if epochs < 1 or not close(batches, epochs * self.steps_per_epoch):
                raise ValueError(f"sample_rate {recorded:.6g} recorded by Opacus (1 / len(data_loader): "
                                 f"{batches:.6g} batches) is not a whole number of epochs of steps_per_epoch = "
                                 f"{self.steps_per_epoch} given at registration ({self.mechanism()}); register the "
                                 "loader's T (with gradient accumulation: optimizer steps per epoch)")
            return None
        if self.sampling_rate is None or close(recorded, self.sampling_rate):
            return recorded
        if self.loader_steps is not None and close(recorded, 1.0 / self.loader_steps):
            return self.sampling_rate
        loader = "" if self.loader_steps is None else f" nor 1 / {self.loader_steps} (the loader's 1 / len)"
        raise ValueError(f"sample_rate {recorded:.6g} recorded by Opacus contradicts sampling_rate "
                         f"{self.sampling_rate:.6g}{loader} given at registration ({self.mechanism()}): the eps of a "
                         "rate the run did not use would be wrong; register without sampling_rate to account the "
                         "rate Opacus records, or register_loader(batch_sampler.accounting()) for our BatchSampler")

    def _phase(self, z: float, rate: float, steps: int, lower: bool) -> Phase | None:
        rate = self._rate(rate)
        if rate is not None:
            return Phase(self.sampler, z, sampling_rate=rate, steps=steps)
        epochs = steps // self.steps_per_epoch if lower else -(-steps // self.steps_per_epoch)
        return Phase(self.sampler, z, steps_per_epoch=self.steps_per_epoch, epochs=epochs) if epochs else None

    def _trivial(self) -> str | None:
        spec = sampler_entry(self.sampler)
        for z, _, steps in self.history:  # a history set or loaded directly is checked as step() checks
            z = check_nonnegative("noise_multiplier", z)
            if steps and (z == 0.0 or z < spec.min_sigma):
                return (f"noise multiplier {z:g} is below {spec.min_sigma} for {self.sampler} (no noise, or below "
                        "its certified grid); the only bound given is eps = inf")
        return None

    def phases(self, lower: bool = False) -> tuple[Phase, ...]:
        """The history as the face's phases (of the dominated run with ``lower``: whole epochs)."""
        phases = (self._phase(z, rate, check_int_at_least("steps", steps, 0), lower)
                  for z, rate, steps in self.history if steps)
        return tuple(phase for phase in phases if phase is not None)

    def _frame(self, quantity: str, values):
        reason = self._trivial()
        phases = self.phases()
        if reason is not None or not phases:
            return constant_frame(quantity, values, self.accuracy, reason)
        return run_frame(phases, self.phases(lower=True), quantity, values, relation=self.relation,
                         accuracy=self.accuracy)

    def epsilon_bounds(self, deltas):
        """The face's long frame of eps bounds (lower and upper, every direction; without the
        loader's truncation delta)."""
        return self._frame("epsilon", check_array("delta", deltas, check_open_unit))

    def get_epsilon(self, delta: float) -> float:
        """The certified upper bound on eps(delta) for the steps so far (the relation's headline),
        with the loader's truncation delta charged where one is configured."""
        delta = check_open_unit("delta", delta)
        if self._trivial() is not None:
            return math.inf
        phases = self.phases()
        if not phases:
            return 0.0
        get = Accountant(phases, relation=self.relation, accuracy=self.accuracy).get_epsilon
        if self.loader is None:
            return get(delta)
        return epsilon_with_truncation(get, delta, self.loader.truncation_delta_at, self.loader.truncation_epsilon)

    def get_optimizer_hook_fn(self, sample_rate: float):
        """What Opacus' IAccountant gives its DPOptimizer: one ``step`` per optimizer step."""
        def hook_fn(optim):
            self.step(noise_multiplier=optim.noise_multiplier, sample_rate=sample_rate * optim.accumulated_iterations)
        return hook_fn

    def state_dict(self, destination=None):
        destination = OrderedDict() if destination is None else destination
        destination["history"] = deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict) -> None:
        if not state_dict:
            raise ValueError("state_dict must hold 'history' and 'mechanism'; got an empty or None state_dict")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError(f"state_dict must have the key {key!r}; got keys {sorted(state_dict)}")
        if state_dict["mechanism"] != self.mechanism():
            raise ValueError(f"state_dict['mechanism'] must be {self.mechanism()!r} (this accountant's); got "
                             f"{state_dict['mechanism']!r}")
        self.history = deepcopy(list(state_dict["history"]))


def accountant_class(sampler: str = DEFAULT_SAMPLER, *, sampling_rate: float | None = None,
                     steps_per_epoch: int | None = None, relation: str = DEFAULT_RELATION, accuracy: float = 0.01,
                     loader: LoaderAccounting | None = None, name: str | None = None,
                     loader_steps: int | None = None) -> type:
    """A configured ``CertifiedOpacusAccountant`` subclass (module docstring); ``name`` defaults to
    "dpsampling" for the default configuration, else "dpsampling-<sampler>"."""
    spec = sampler_entry(sampler)
    spec.check_relation(relation)
    if spec.rate_based and spec.matrix_only:  # cyclic Poisson's cycle, b-min-sep's separation: not in the history
        raise ValueError(f"sampler must be one whose run Opacus' history (noise, sample rate, steps) describes; "
                         f"got {sampler!r}, whose run also needs its cycle length or minimum separation: account it "
                         "with dpsampling.Accountant (or a BatchSampler's accounting().accountant(sigma))")
    if spec.rate_based:
        if steps_per_epoch is not None:
            raise ValueError(f"steps_per_epoch applies to epoch-based samplers (not {sampler}, which Opacus' steps "
                             f"and sample rate describe); got {steps_per_epoch!r}")
        sampling_rate = None if sampling_rate is None else check_rate("sampling_rate", sampling_rate)
    else:
        if sampling_rate is not None:
            raise ValueError(f"sampling_rate applies to samplers with a rate (not {sampler}: give steps_per_epoch); "
                             f"got {sampling_rate!r}")
        if steps_per_epoch is None:
            raise ValueError(f"steps_per_epoch must be given for sampler {sampler} (the loader's T: Opacus' sample "
                             "rate does not say how its epochs are cut); got None")
        steps_per_epoch = check_int_at_least("steps_per_epoch", steps_per_epoch, 1)
    accuracy = check_open_unit("accuracy", accuracy)
    default = (sampler, sampling_rate, steps_per_epoch, relation, loader) == (DEFAULT_SAMPLER, None, None,
                                                                             DEFAULT_RELATION, None)
    name = name or (DEFAULT_NAME if default else f"{DEFAULT_NAME}-{sampler}")
    if loader_steps is not None:
        loader_steps = check_int_at_least("loader_steps", loader_steps, 1)
    attributes = {"sampler": sampler, "sampling_rate": sampling_rate, "steps_per_epoch": steps_per_epoch,
                  "relation": relation, "accuracy": accuracy, "loader": loader, "name": name,
                  "loader_steps": loader_steps}
    return type(f"CertifiedOpacusAccountant_{sampler}", (CertifiedOpacusAccountant,), attributes)


def loader_class(accounting: LoaderAccounting, **options) -> type:
    """``accountant_class`` for the run of our ``BatchSampler`` (``batch_sampler.accounting()``):
    its sampler, rate or steps per epoch, and its truncation delta."""
    if not isinstance(accounting, LoaderAccounting):
        raise ValueError(f"accounting must be a BatchSampler's accounting() (LoaderAccounting); got {accounting!r}")
    if sampler_entry(accounting.sampler).rate_based:
        run = {"sampling_rate": accounting.sampling_rate, "loader_steps": accounting.steps}
    else:
        run = {"steps_per_epoch": accounting.steps_per_epoch}
    loader = accounting if accounting.max_batch_size is not None else None
    return accountant_class(accounting.sampler, loader=loader, **run, **options)


def register(sampler: str = DEFAULT_SAMPLER, *, force: bool = True, **options) -> str:
    """Register ``accountant_class(sampler, **options)`` with Opacus (imports opacus, hence torch)
    and return its name, for ``PrivacyEngine(accountant=name)``."""
    return _register(accountant_class(sampler, **options), force)


def register_loader(accounting: LoaderAccounting, *, force: bool = True, **options) -> str:
    """Register ``loader_class(accounting, **options)`` with Opacus and return its name."""
    return _register(loader_class(accounting, **options), force)


def configuration(cls: type) -> dict:
    """What a configured class accounts: its sampler, rates, epochs, relation, accuracy, loader."""
    names = ("sampler", "sampling_rate", "loader_steps", "steps_per_epoch", "relation", "accuracy", "loader")
    return {key: getattr(cls, key) for key in names}


def _register(cls: type, force: bool) -> str:
    global opacus
    opacus = opacus or lazy_import("opacus")
    name, new = cls.mechanism(), configuration(cls)
    opacus.accountants.register_accountant(name, cls, force=force)
    old = _REGISTERED.get(name)
    if old is not None and old != new:  # the same configuration again changes nothing (register() at import)
        changed = [key for key in new if old[key] != new[key]]
        warnings.warn(f"Opacus accountant {name!r} registered again: "
                      f"{', '.join(f'{k}={new[k]!r}' for k in changed)} now replaces "
                      f"{', '.join(f'{k}={old[k]!r}' for k in changed)}; PrivacyEngine(accountant={name!r}) uses the "
                      "latest (name=... keeps both)", UserWarning, stacklevel=3)
    _REGISTERED[name] = new
    return name


def get_noise_multiplier(*, target_epsilon: float, target_delta: float, sample_rate: float, epochs: float | None = None,
                         steps: int | None = None, sampler: str = DEFAULT_SAMPLER, steps_per_epoch: int | None = None,
                         **options) -> float:
    """Opacus' ``get_noise_multiplier`` for every sampler: the smallest noise multiplier shown
    sufficient (certified eps upper bound <= target_epsilon; the face's ``calibrate_sigma``, whose
    ``relation``, ``accuracy`` and ``rtol`` are the ``options``). Exactly one of ``epochs`` /
    ``steps``; as in Opacus, steps = int(epochs / sample_rate). Epoch-based samplers: T =
    ``steps_per_epoch`` (default round(1 / sample_rate)), whole epochs ceil(steps / T)."""
    if (epochs is None) == (steps is None):
        raise ValueError(f"exactly one of epochs and steps must be given; got epochs={epochs!r}, steps={steps!r}")
    sample_rate = check_rate("sample_rate", sample_rate)
    if steps is None:
        steps = int(check_nonnegative("epochs", epochs) / sample_rate)
    steps = check_int_at_least("steps", steps, 1)
    run = {"relation": options.get("relation", DEFAULT_RELATION)}
    if not sampler_entry(sampler).rate_based:
        run["steps_per_epoch"] = steps_per_epoch or max(1, round(1.0 / sample_rate))
    accountant = accountant_class(sampler, **run)()
    accountant.history = [(1.0, sample_rate, steps)]
    return calibrate_sigma(accountant.phases(), target_epsilon, target_delta, **options).sigma


if opacus is not None:  # opacus (and torch) already imported: the default name works at once
    register()

__all__ = ["DEFAULT_NAME", "DEFAULT_SAMPLER", "CertifiedOpacusAccountant", "accountant_class", "get_noise_multiplier",
           "loader_class", "register", "register_loader"]
