"""Public samplers of the privacy loss of the balls-and-bins dominating pair (Thm 3.1).

P_B = (1/T) sum_t N(e_t, sigma^2 I_T), Q_B = N(0, sigma^2 I_T) and, with
S(x) = sum_t exp(x_t / sigma^2),

    remove: L(x) = L_{P||Q}(x) = log S(x) - log T - 1/(2 sigma^2),  x ~ P_1 = N(e_1, sigma^2 I)
    add:    L(x) = L_{Q||P}(x) = log T + 1/(2 sigma^2) - log S(x),  x ~ Q_B

(eqs. (2), (3); sampling P_1 instead of P_B is exact by symmetry). Every method returns
samples of L (not of delta), so one set serves every eps through eq. (1):
    remove: D_{e^eps}(P_B||Q_B) = E_{x~P_B}[(1 - e^{eps - L_{P||Q}(x)})_+]
    add:    D_{e^eps}(Q_B||P_B) = E_{x~Q_B}[(1 - e^{eps - L_{Q||P}(x)})_+]
            = E_{x~Q_B}[(1 - e^{eps + L_{P||Q}(x)})_+].

Methods:
- ``naive`` (Alg. 4): all T coordinates, streamed; k epochs sum k independent losses (Alg. 11).
- ``importance`` (Alg. 5, E_eps of ``importance.py``, Alg. 10): samples of L given E_{eps_0};
  ``log_weight`` = log P(E_{eps_0}); valid for every eps >= eps_0.
- ``order_statistics`` (Alg. 6 with bounds (4)/(5)): an upper bound on L per draw (pessimistic:
  delta estimates may only err upward); cost O(r) instead of O(T) per sample.
- ``importance_order_statistics`` (Appendix B.3).

What is sampled is a ``LossLaw`` (method, sigma, T, direction, orders, eps_0, k);
``sample_losses(law, samples, seed=..., samples_per_chunk=...)`` draws it.

Seeding: ``seed`` is a numpy SeedSequence or a non-negative int. The work is cut into chunks of
``samples_per_chunk`` samples; chunk c runs xoshiro256** from the 256-bit state
``seed.generate_state(4 * n_chunks, uint64)[4c:4c+4]``. The numbers therefore depend on
(seed, samples, samples_per_chunk) only, not on the numba thread count (set by the caller with
``numba.set_num_threads``). Independent shards: pass ``SeedSequence(...).spawn(n)`` children.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from dpsampling import DIRECTIONS
from dpsampling.accountants.ballsbins.importance import (
    _finite,
    _kernel_threshold_parameter,
    importance_threshold,
    log_importance_probability,
)
from dpsampling.accountants.ballsbins.orders import validate_orders
from dpsampling.lazy import lazy_import
from dpsampling.validation import check_choice, check_int_at_least, check_positive

_kernels = lazy_import("dpsampling.accountants.ballsbins._kernels")  # Numba: loaded by the first draw or reduction

METHODS = ("naive", "importance", "order_statistics", "importance_order_statistics")
DEFAULT_SAMPLES_PER_CHUNK = 1024
_BYTES_PER_SAMPLE = 8
_BYTES_PER_CHUNK = 32


@dataclass(frozen=True, eq=False)
class LossSamples:
    """Samples of the privacy loss L (see module docstring) and how they were drawn.

    ``log_weight`` is log P(E) of the importance event (0 without importance sampling) and
    ``minimum_epsilon`` the smallest eps the samples may be evaluated at (-inf without it).
    """

    losses: np.ndarray
    method: str
    direction: str
    sigma: float
    steps: int
    epochs: int = 1
    orders: np.ndarray | None = None
    importance_epsilon: float | None = None
    log_weight: float = 0.0
    seed_entropy: object = None
    seed_spawn_key: tuple = ()
    samples_per_chunk: int = DEFAULT_SAMPLES_PER_CHUNK
    extra: dict = field(default_factory=dict)

    @property
    def minimum_epsilon(self) -> float:
        return -math.inf if self.importance_epsilon is None else float(self.importance_epsilon)

    @property
    def law(self) -> LossLaw:
        """The law these are samples of."""
        return LossLaw(self.method, self.sigma, self.steps, self.direction, self.orders,
                       self.importance_epsilon, self.epochs)

    @property
    def count(self) -> int:
        return int(self.losses.shape[0])

    def parameters(self) -> dict:
        """JSON-able description (written into shard metadata)."""
        return {
            "method": self.method,
            "direction": self.direction,
            "sigma": float(self.sigma),
            "steps": int(self.steps),
            "epochs": int(self.epochs),
            "orders": None if self.orders is None else [int(k) for k in self.orders],
            "importance_epsilon": self.importance_epsilon,
            "log_weight": float(self.log_weight),
            "seed_entropy": None if self.seed_entropy is None else str(self.seed_entropy),
            "seed_spawn_key": [int(k) for k in self.seed_spawn_key],
            "samples_per_chunk": int(self.samples_per_chunk),
            "samples": self.count,
        }


def as_seed_sequence(seed) -> np.random.SeedSequence:
    """A SeedSequence from a SeedSequence or a non-negative int."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(check_int_at_least("seed", seed, 0))


def physical_memory_bytes() -> int:
    """Physical memory of this machine (os.sysconf)."""
    return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))


def _check_memory(samples: int, samples_per_chunk: int) -> None:
    n_chunks = -(-samples // samples_per_chunk)
    needed = _BYTES_PER_SAMPLE * samples + _BYTES_PER_CHUNK * n_chunks
    available = physical_memory_bytes()
    if needed > available:
        limit = available // (_BYTES_PER_SAMPLE + _BYTES_PER_CHUNK / samples_per_chunk)
        raise ValueError(
            f"samples must be at most {int(limit)} with samples_per_chunk={samples_per_chunk} "
            f"({needed} bytes needed, {available} bytes of physical memory); got {samples}")


def _chunk_states(seed: np.random.SeedSequence, samples: int, samples_per_chunk: int) -> np.ndarray:
    n_chunks = -(-samples // samples_per_chunk)
    states = seed.generate_state(4 * n_chunks, np.uint64).reshape(n_chunks, 4)
    zero = ~states.any(axis=1)
    states[zero, 0] = np.uint64(0x9E3779B97F4A7C15)  # xoshiro must not start from all zeros
    return np.ascontiguousarray(states)


@dataclass(frozen=True)
class LossLaw:
    """What is sampled: the privacy loss L (module docstring) of the pair with noise ``sigma``
    over T = ``steps`` steps in ``direction``, summed over k = ``epochs`` epochs (Alg. 11), drawn
    by ``method`` (one of METHODS) with the order statistics ``orders`` (order-statistics
    methods) and the event E_{importance_epsilon} (importance methods; k must be 1)."""

    method: str
    sigma: float
    steps: int
    direction: str
    orders: object = None
    importance_epsilon: float | None = None
    epochs: int = 1

    def checked(self) -> LossLaw:
        """This law with every field validated (ValueError naming the bad value): ``orders`` an
        int64 array and ``importance_epsilon`` a float where ``method`` uses them, else None."""
        method = check_choice("method", self.method, METHODS)
        steps = check_int_at_least("steps", self.steps, 1)
        epochs = check_int_at_least("epochs", self.epochs, 1)
        if method.startswith("importance") and epochs != 1:
            raise ValueError(f"epochs must be 1 for importance sampling (Appendix B.4); got {epochs}")
        sigma = check_positive("sigma", self.sigma)
        direction = check_choice("direction", self.direction, DIRECTIONS)
        orders = validate_orders(self.orders, steps) if "order_statistics" in method else None
        importance_epsilon = (_finite("importance_epsilon", self.importance_epsilon)
                              if method.startswith("importance") else None)
        return LossLaw(method, sigma, steps, direction, orders, importance_epsilon, epochs)

    def kernel_inputs(self) -> dict:
        """For a checked law: the kernels' ``params`` and ``settings`` (``_kernels.kernel_scalars``),
        ``orders`` and ``log_weights`` (None for the coordinate methods) and the importance
        ``log_weight`` = log P(E) (0 without importance sampling)."""
        threshold = parameter = log_weight = 0.0
        importance = self.method.startswith("importance")
        if importance:
            eps0, direction = self.importance_epsilon, self.direction
            parameter = _kernel_threshold_parameter(self.sigma, self.steps, eps0, direction)
            log_weight = log_importance_probability(self.sigma, self.steps, eps0, direction)
            if self.method == "importance":
                threshold = importance_threshold(self.sigma, self.steps, eps0, direction) / self.sigma
        params, settings = _kernels.kernel_scalars(self.sigma, self.steps, self.epochs,
                                                   (self.direction == "remove", importance),
                                                   threshold, parameter)
        weights = None if self.orders is None else _kernels.order_log_weights(self.orders, self.steps)
        return {"params": params, "settings": settings, "orders": self.orders,
                "log_weights": weights, "log_weight": log_weight}


def run_cpu_kernel(inputs: dict, states: np.ndarray, samples: int, samples_per_chunk: int,
                   out: np.ndarray) -> None:
    """Fill ``out`` with the ``samples`` losses of the chunks ``states`` (``LossLaw.kernel_inputs``)."""
    settings = _kernels.chunking(inputs["settings"], samples, samples_per_chunk)
    if inputs["orders"] is None:
        _kernels.coordinate_kernel(inputs["params"], settings, states, out)
    else:
        _kernels.order_statistics_kernel(inputs["params"], settings, inputs["orders"],
                                         inputs["log_weights"], states, out)


def _result(losses, law: LossLaw, log_weight, seed, samples_per_chunk) -> LossSamples:
    return LossSamples(losses=losses, method=law.method, direction=law.direction, sigma=law.sigma,
                       steps=law.steps, epochs=law.epochs, orders=law.orders,
                       importance_epsilon=law.importance_epsilon, log_weight=log_weight,
                       seed_entropy=seed.entropy, seed_spawn_key=tuple(seed.spawn_key),
                       samples_per_chunk=samples_per_chunk)


def sample_losses(law: LossLaw, samples, *, seed=0,
                  samples_per_chunk=DEFAULT_SAMPLES_PER_CHUNK) -> LossSamples:
    """``samples`` draws of the loss of ``law`` (a ``LossLaw``; see the module docstring for the
    methods and the seeding)."""
    law = law.checked()
    samples = check_int_at_least("samples", samples, 1)
    samples_per_chunk = check_int_at_least("samples_per_chunk", samples_per_chunk, 1)
    seed = as_seed_sequence(seed)
    _check_memory(samples, samples_per_chunk)
    inputs = law.kernel_inputs()
    out = np.empty(samples, dtype=np.float64)
    run_cpu_kernel(inputs, _chunk_states(seed, samples, samples_per_chunk), samples,
                   samples_per_chunk, out)
    return _result(out, law, inputs["log_weight"], seed, samples_per_chunk)


def sample_naive_losses(sigma, steps, samples, direction, *, epochs=1, seed=0,
                        samples_per_chunk=DEFAULT_SAMPLES_PER_CHUNK) -> LossSamples:
    """``samples`` draws of L (sum over ``epochs`` epochs) by drawing all T coordinates."""
    return sample_losses(LossLaw("naive", sigma, steps, direction, epochs=epochs), samples,
                         seed=seed, samples_per_chunk=samples_per_chunk)


def sample_importance_losses(sigma, steps, samples, direction, importance_epsilon, *, seed=0,
                             samples_per_chunk=DEFAULT_SAMPLES_PER_CHUNK) -> LossSamples:
    """Draws of L conditioned on E_{importance_epsilon}; weight P(E) in ``log_weight``."""
    law = LossLaw("importance", sigma, steps, direction, importance_epsilon=importance_epsilon)
    return sample_losses(law, samples, seed=seed, samples_per_chunk=samples_per_chunk)


def sample_order_statistics_losses(sigma, steps, samples, direction, orders, *, epochs=1, seed=0,
                                   samples_per_chunk=DEFAULT_SAMPLES_PER_CHUNK) -> LossSamples:
    """Draws of an upper bound on L from the order statistics ``orders`` (Alg. 6, (4)/(5))."""
    law = LossLaw("order_statistics", sigma, steps, direction, orders, epochs=epochs)
    return sample_losses(law, samples, seed=seed, samples_per_chunk=samples_per_chunk)


def sample_importance_order_statistics_losses(sigma, steps, samples, direction, orders,
                                              importance_epsilon, *, seed=0,
                                              samples_per_chunk=DEFAULT_SAMPLES_PER_CHUNK
                                              ) -> LossSamples:
    """Order-statistics upper bounds on L given E_{importance_epsilon} (Appendix B.3)."""
    law = LossLaw("importance_order_statistics", sigma, steps, direction, orders,
                  importance_epsilon)
    return sample_losses(law, samples, seed=seed, samples_per_chunk=samples_per_chunk)
