"""Closed-form single-step dominating pairs of subsampled Gaussian and Laplace mechanisms (lebeda24:
the Laplace mechanism, the substitution curves and the tests' references of the engine).

For a base noise distribution N_c (Gaussian N(c, scale^2) or Laplace Lap(c, scale)) and a
sampling rate q, the pair of Theorem 10 / Proposition 9 (shifted so the base is centred at 0) is

    B = N_0,            A = (1 - q) N_0 + q N_d,

with d the distance between the two datasets' sums (1 for Poisson, 2 for WOR). The directions:

* remove: the curve is H_{e^eps}(A || B); its privacy loss is L = ln(A/B)(Y), Y ~ A.
* add:    the curve is H_{e^eps}(B || A); its privacy loss is L = -ln(A/B)(Y), Y ~ B.

The likelihood ratio A/B(y) = (1 - q) + q exp(g(y)) is non-decreasing in y, where
g(y) = (2 y d - d^2) / (2 scale^2) (Gaussian) or g(y) = (|y| - |y - d|) / scale (Laplace, which
is constant outside [0, d] -- the atoms of the Laplace PLD). So every hockey-stick divergence is
a difference of two CDF values at the threshold y where the loss crosses eps, for any real eps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from dpsampling.accountants.relations import check_direction
from dpsampling.validation import check_choice, check_positive, check_rate

NOISES = ("gaussian", "laplace")


@dataclass(frozen=True)
class SubsampledPair:
    """The pair (A, B) above. ``scale`` is the Gaussian std or the Laplace scale."""

    noise: str
    scale: float
    rate: float
    distance: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "noise", check_choice("noise", self.noise, NOISES))
        name = "sigma" if self.noise == "gaussian" else "laplace_scale"
        object.__setattr__(self, "scale", check_positive(name, self.scale))
        object.__setattr__(self, "rate", check_rate("sampling_rate", self.rate))
        object.__setattr__(self, "distance", check_positive("distance", self.distance))

    # --- the base noise (closed forms; scipy.stats' frozen distributions are ~100x slower) ----
    def _cdf(self, y, loc):
        z = (np.asarray(y, dtype=float) - loc) / self.scale
        if self.noise == "gaussian":
            return special.ndtr(z)
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(z, 0.0)))

    def _sf(self, y, loc):
        return self._cdf(2 * loc - np.asarray(y, dtype=float), loc)  # both noises are symmetric

    def _pdf(self, y, loc):
        z = (np.asarray(y, dtype=float) - loc) / self.scale
        if self.noise == "gaussian":
            return np.exp(-0.5 * z * z) / (self.scale * math.sqrt(2 * math.pi))
        return 0.5 * np.exp(-np.abs(z)) / self.scale

    def base_cdf(self, y):
        return self._cdf(y, 0.0)

    def base_sf(self, y):
        return self._sf(y, 0.0)

    def mixture_cdf(self, y):
        q = self.rate
        return (1 - q) * self._cdf(y, 0.0) + q * self._cdf(y, self.distance)

    def mixture_sf(self, y):
        q = self.rate
        return (1 - q) * self._sf(y, 0.0) + q * self._sf(y, self.distance)

    def base_pdf(self, y):
        return self._pdf(y, 0.0)

    def mixture_pdf(self, y):
        q = self.rate
        return (1 - q) * self._pdf(y, 0.0) + q * self._pdf(y, self.distance)

    # --- the privacy loss ln(A/B) ---------------------------------------------------
    def _exponent(self, y):
        y = np.asarray(y, dtype=float)
        d, s = self.distance, self.scale
        if self.noise == "gaussian":
            return (2.0 * y * d - d * d) / (2.0 * s * s)
        return (np.abs(y) - np.abs(y - d)) / s

    def loss_remove(self, y):
        """ln(A/B)(y) = ln((1 - q) + q e^{g(y)}), non-decreasing in y."""
        q = self.rate
        g = self._exponent(y)
        if q == 1.0:
            return g
        return np.logaddexp(math.log1p(-q), math.log(q) + g)

    @property
    def loss_range(self) -> tuple[float, float]:
        """(inf, sup) of ln(A/B); for the Laplace both are attained (the atoms)."""
        q = self.rate
        if self.noise == "gaussian":
            return (math.log1p(-q) if q < 1 else -math.inf, math.inf)
        r = self.distance / self.scale
        lo = math.log((1 - q) + q * math.exp(-r))
        hi = math.log((1 - q) + q * math.exp(r))
        return lo, hi

    def loss_inverse(self, t: float) -> float:
        """The y with ln(A/B)(y) = t, for t strictly inside loss_range (Laplace: closed)."""
        q, d, s = self.rate, self.distance, self.scale
        g = math.log((math.exp(t) - (1 - q)) / q) if q < 1 else t
        if self.noise == "gaussian":
            return (g * s * s + d * d / 2.0) / d
        return (d + s * g) / 2.0

    # --- hockey-stick divergences, for any real eps -----------------------------------
    def hockey_stick(self, epsilon, direction: str) -> np.ndarray:
        """remove: H_{e^eps}(A || B); add: H_{e^eps}(B || A); elementwise over ``epsilon``.

        remove: the region {ln(A/B) > eps} is (y*, inf) with ln(A/B)(y*) = eps, so the value is
        A(Y > y*) - e^eps B(Y > y*); everything if eps < inf ln(A/B) (value 1 - e^eps), nothing
        if eps >= sup ln(A/B). add: the region is (-inf, y**) with ln(A/B)(y**) = -eps.
        """
        check_direction(direction)
        eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
        lo, hi = self.loss_range
        t = eps if direction == "remove" else -eps
        # at the Laplace atoms (t == lo or t == hi) both formulas agree: the likelihood ratio
        # equals e^eps there, which adds nothing to the divergence
        inside = (t > lo) & (t < hi)
        out = np.zeros(eps.size)
        everything = (t <= lo) if direction == "remove" else (t >= hi)
        out[everything] = -np.expm1(eps[everything])
        if np.any(inside):
            e = eps[inside]
            ti = t[inside]
            q, d, s = self.rate, self.distance, self.scale
            g = np.log((np.exp(ti) - (1 - q)) / q) if q < 1 else ti
            if self.noise == "gaussian":
                y = (g * s * s + d * d / 2.0) / d
            else:
                y = (d + s * g) / 2.0
            alpha = np.exp(np.minimum(e, 700.0))
            if direction == "remove":
                value = self.mixture_sf(y) - alpha * self.base_sf(y)
            else:
                value = self.base_cdf(y) - alpha * self.mixture_cdf(y)
            out[inside] = value
        return np.clip(out, 0.0, 1.0)

    # --- the PLD of one step: atoms and a continuous part over y -----------------------
    def pld_parts(self, direction: str):
        """(atoms, continuous) of the single-step PLD of ``direction``.

        atoms: list of (loss value, probability); continuous: (y_low, y_high, loss(y), pdf(y))
        so that the continuous part of L is loss(Y) restricted to Y in (y_low, y_high) with
        Y's density pdf. For the Gaussian there are no atoms and (y_low, y_high) = R.
        """
        check_direction(direction)
        sign = 1.0 if direction == "remove" else -1.0
        pdf = self.mixture_pdf if direction == "remove" else self.base_pdf
        cdf = self.mixture_cdf if direction == "remove" else self.base_cdf
        sf = self.mixture_sf if direction == "remove" else self.base_sf

        def loss(y):
            return sign * self.loss_remove(y)

        if self.noise == "gaussian":
            return [], (-math.inf, math.inf, loss, pdf)
        lo, hi = self.loss_range
        atoms = [(sign * lo, float(cdf(0.0))), (sign * hi, float(sf(self.distance)))]
        return atoms, (0.0, self.distance, loss, pdf)

    def pld_cdf(self, values, direction: str) -> np.ndarray:
        """P(L <= t) for the single-step PLD of ``direction`` (exact, atoms included)."""
        check_direction(direction)
        lo, hi = self.loss_range
        out = []
        for t in np.atleast_1d(np.asarray(values, dtype=float)):
            if direction == "remove":  # P(ln(A/B)(Y) <= t), Y ~ A
                if t < lo:
                    out.append(0.0)
                elif t >= hi:
                    out.append(1.0)
                else:
                    out.append(float(self.mixture_cdf(self.loss_inverse(t))))
            else:  # P(ln(A/B)(Y) >= -t), Y ~ B
                if -t > hi:
                    out.append(0.0)
                elif -t <= lo:
                    out.append(1.0)
                else:
                    out.append(float(self.base_sf(self.loss_inverse(-t))))
        return np.array(out)

    def sample_loss(self, rng: np.random.Generator, size: int, direction: str) -> np.ndarray:
        """``size`` independent draws of the single-step privacy loss of ``direction``."""
        check_direction(direction)
        if self.noise == "gaussian":
            y = rng.normal(0.0, self.scale, size)
        else:
            y = rng.laplace(0.0, self.scale, size)
        if direction == "remove":
            y += self.distance * (rng.random(size) < self.rate)
            return self.loss_remove(y)
        return -self.loss_remove(y)
