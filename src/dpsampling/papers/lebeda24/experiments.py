"""lebeda24 experiments on the subsampled Laplace mechanism and randomized response.

Each function takes its config block (``config["lebeda24"][<name>]``) and returns a table; the
Snakemake scripts write them with ``dpsampling.io.write_table`` and plots/claims read only these.

* lebeda24_addremove (Fig. 1): exact curves for k <= 2 (``exact_addremove``); the Monte Carlo
  curves come from ``lebeda.shards``; the paper's sample size against its formula (``sample_size``).
* lebeda24_pld_cdf (ICLR Fig. 2): exact single-step CDFs, atoms, empirical k-fold CDFs.
* lebeda24_substitution (Fig. 3): the three hockey-stick divergences of Section 7.
* lebeda24_rr (Appendix B.1): randomized response in exact fractions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from dpsampling import DIRECTIONS
from dpsampling.accountants import laplace, substitution
from dpsampling.papers.lebeda24 import randomized_response

EXACT_COMPOSITIONS = (1, 2)
PAPER_SAMPLE_SIZE = {"alpha": 1e-3, "beta": 0.01, "n_epsilons": 40, "n_samples": 3_342_306}
"""Appendix B.2: the stated alpha, beta, |E| and the stated N."""


def grid(spec: dict) -> np.ndarray:
    """linspace(start, stop, num) of a config grid block."""
    return np.linspace(spec["start"], spec["stop"], spec["num"])


def exact_addremove(spec: dict, progress=print) -> pd.DataFrame:
    """Exact delta(eps) of both directions for every sampler and k in compositions with k <= 2.

    Columns: sampler, direction, compositions, epsilon, delta_exact, laplace_scale, sampling_rate.
    """
    eps = grid(spec["epsilon_grid"])
    frames = []
    for sampler in spec["samplers"]:
        scale = spec["laplace_scale"][sampler]
        for k in [k for k in spec["compositions"] if k in EXACT_COMPOSITIONS]:
            for direction in DIRECTIONS:
                values = laplace.exact_delta(eps, sampler, direction, scale, spec["sampling_rate"], k)
                frames.append(pd.DataFrame({"sampler": sampler, "direction": direction, "compositions": k,
                                            "epsilon": eps, "delta_exact": values}))
                progress(f"exact {sampler}/{direction}/k{k}: {eps.size} eps")
    frame = pd.concat(frames, ignore_index=True)
    frame["laplace_scale"] = frame["sampler"].map(spec["laplace_scale"]).astype(float)
    frame["sampling_rate"] = spec["sampling_rate"]
    return frame


def sample_size(spec: dict) -> pd.DataFrame:
    """N = ceil(ln(2|E| / beta) / (2 alpha^2)) at the paper's (alpha, beta, |E|), the stated N,
    the (|E|, beta) that give the stated N, and this config's alpha at its N."""
    alpha, beta, size = PAPER_SAMPLE_SIZE["alpha"], PAPER_SAMPLE_SIZE["beta"], PAPER_SAMPLE_SIZE["n_epsilons"]
    rows = [
        {"case": "formula at the paper's alpha, beta, |E|", "alpha": alpha, "beta": beta, "n_epsilons": size,
         "n_samples": laplace.monte_carlo_sample_size(alpha, beta, size)},
        {"case": "beta = 0.1 (10x the stated)", "alpha": alpha, "beta": 0.1, "n_epsilons": size,
         "n_samples": laplace.monte_carlo_sample_size(alpha, 0.1, size)},
        {"case": "|E| = 4 (1/10 of the stated)", "alpha": alpha, "beta": beta, "n_epsilons": 4,
         "n_samples": laplace.monte_carlo_sample_size(alpha, beta, 4)},
        {"case": "stated by the paper", "alpha": alpha, "beta": beta, "n_epsilons": size,
         "n_samples": PAPER_SAMPLE_SIZE["n_samples"]},
        {"case": "this run: alpha at its N", "alpha": laplace.hoeffding_alpha(spec["samples"], spec["beta"],
                                                                              spec["epsilon_grid"]["num"]),
         "beta": spec["beta"], "n_epsilons": spec["epsilon_grid"]["num"], "n_samples": spec["samples"]},
    ]
    frame = pd.DataFrame(rows)
    frame["ln_2E_over_beta"] = np.log(2 * frame["n_epsilons"] / frame["beta"])
    return frame


def pld_cdf(spec: dict, addremove: dict, curves: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cdf, atoms). cdf rows: sampler, direction, compositions, method (exact | monte_carlo),
    loss, cdf. Exact single-step CDFs (atoms included, right-continuous) on the loss grid plus
    the points just left and right of each atom; empirical CDFs of the k-fold loss for every
    curve in ``curves`` ({(sampler, direction, k): samples}). atoms: the single-step atoms with
    their exact mass and the fraction of k = 1 samples within 1e-9 of each (when k = 1 is there)."""
    losses = grid(spec["loss_grid"])
    rate = addremove["sampling_rate"]
    frames, atom_rows = [], []
    for sampler in addremove["samplers"]:
        scale = addremove["laplace_scale"][sampler]
        for direction in DIRECTIONS:
            atoms = laplace.pld_atoms(sampler, direction, scale, rate)
            points = np.unique(np.concatenate([losses, *[[v - 1e-9, v, v + 1e-9] for v, _ in atoms]]))
            frames.append(pd.DataFrame({"sampler": sampler, "direction": direction, "compositions": 1,
                                        "method": "exact", "loss": points,
                                        "cdf": laplace.exact_pld_cdf(points, sampler, direction, scale, rate)}))
            single = curves.get((sampler, direction, 1))
            for value, mass in atoms:
                share = math.nan if single is None else float(np.mean(np.abs(single - value) <= 1e-9))
                atom_rows.append({"sampler": sampler, "direction": direction, "loss": value, "mass": mass,
                                  "mc_share": share, "mc_samples": 0 if single is None else single.size})
    for (sampler, direction, k), samples in sorted(curves.items()):
        frames.append(pd.DataFrame({"sampler": sampler, "direction": direction, "compositions": k,
                                    "method": "monte_carlo", "loss": losses,
                                    "cdf": laplace.empirical_pld_cdf(samples, losses)}))
    return pd.concat(frames, ignore_index=True), pd.DataFrame(atom_rows)


def substitution_laplace(spec: dict) -> pd.DataFrame:
    """Section 7, Fig. 3: H(PxP||QxQ), H(QxQ||PxP), H(PxQ||QxP) over eps, and the largest."""
    frame = substitution.laplace_substitution_curves(grid(spec["epsilon_grid"]), spec["laplace_scale"],
                                                     spec["sampling_rate"])
    frame["laplace_scale"] = spec["laplace_scale"]
    frame["sampling_rate"] = spec["sampling_rate"]
    return frame


def _fraction(pair) -> Fraction:
    return Fraction(int(pair[0]), int(pair[1]))


def randomized_response_table(spec: dict) -> pd.DataFrame:
    """Appendix B.1 in exact rationals: per alpha, H_alpha(P||Q) and H_alpha(Q||P) as
    numerator/denominator integers, as text and as floats."""
    rows = randomized_response.randomized_response_divergences(
        [_fraction(a) for a in spec["alphas"]], _fraction(spec["sampling_rate"]), spec["runs"],
        _fraction(spec["keep_probability"]))
    out = []
    for row in rows:
        record = {"alpha": str(row["alpha"]), "alpha_value": float(row["alpha"]), "runs": spec["runs"],
                  "sampling_rate": str(_fraction(spec["sampling_rate"]))}
        for name in ("H_P_Q", "H_Q_P"):
            value = row[name]
            record.update({name: str(value), f"{name}_numerator": value.numerator,
                           f"{name}_denominator": value.denominator, f"{name}_value": float(value)})
        out.append(record)
    return pd.DataFrame(out)
