"""lebeda24 figures from result tables only (never recomputes). Each legend entry names the sampler,
the method and whether the curve is exact, an upper bound, a lower bound or a Monte Carlo estimate;
a footer states sample counts, beta and discretizations.

``PLOTS[experiment](tables, pdf, png)``: ``tables`` maps the plot rule's input names to
(frame, metadata) pairs from ``dpsampling.io.read_table``.
"""

from __future__ import annotations

import math

from dpsampling.pipeline.plotting import plt, save_figure

SAMPLER_NAME = {"poisson": "Poisson (P)", "wor": "WOR (W)"}
DIRECTION_COLOR = {"remove": "tab:blue", "add": "tab:orange"}
ICLR_ATOM = -math.log(0.1 + 0.9 / math.e)


def plot_addremove(tables, pdf, png) -> None:
    """Fig. 1: delta(eps) under remove and add per k; MC mean with its band, exact for k <= 2."""
    mc, meta = tables["mc"]
    exact, _ = tables["exact"]
    ks = sorted(mc["compositions"].unique())
    columns = min(2, len(ks))
    rows = math.ceil(len(ks) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.6 * rows), squeeze=False)
    for ax, k in zip(axes.flat, ks):
        for sampler, style in (("wor", "-"), ("poisson", "--")):
            for direction in ("remove", "add"):
                part = mc[(mc.sampler == sampler) & (mc.direction == direction) & (mc.compositions == k)]
                if part.empty:
                    continue
                color = DIRECTION_COLOR[direction]
                ax.plot(part.epsilon, part.delta_mc, style, color=color, lw=1.4 if sampler == "wor" else 0.9,
                        label=f"{SAMPLER_NAME[sampler]} {direction}: MC estimate")
                if sampler == "wor":
                    ax.fill_between(part.epsilon, part.delta_mc_low, part.delta_mc_high, color=color, alpha=0.25,
                                    lw=0, label=f"{SAMPLER_NAME[sampler]} {direction}: MC band (+-alpha)")
                ex = exact[(exact.sampler == sampler) & (exact.direction == direction) & (exact.compositions == k)]
                if sampler == "wor" and not ex.empty:
                    ax.plot(ex.epsilon, ex.delta_exact, ":", color="black", lw=1.0,
                            label="exact (atoms + quadrature)" if direction == "remove" else None)
        ax.set_title(f"k = {k} compositions", fontsize=10)
        ax.set_xlabel("eps")
        ax.set_ylabel("delta(eps)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.25)
        ax.legend(fontsize=6.5)
    for ax in list(axes.flat)[len(ks):]:
        ax.axis("off")
    spec = meta["parameters"]["spec"]
    first = mc.iloc[0]
    footer = (f"lebeda24_addremove: subsampled Laplace, rate {spec['sampling_rate']}, Laplace scale "
              f"{spec['laplace_scale']} (distance/scale = 1 for both samplers: the curves coincide). Monte Carlo of the "
              f"PLD (App. B.2): N = {int(first.n_samples):,} per curve, |E| = {spec['epsilon_grid']['num']}, "
              f"beta = {first.beta} per curve, alpha = {first.alpha:.2e} (Hoeffding + union bound). Linear y axis.")
    save_figure(fig, footer, pdf, png)


def plot_pld_cdf(tables, pdf, png) -> None:
    """ICLR Fig. 2: CDFs of the remove and add PLDs (exact single step; MC for k-fold), atoms marked."""
    cdf, meta = tables["cdf"]
    atoms, _ = tables["atoms"]
    ks = sorted(cdf["compositions"].unique())
    fig, axes = plt.subplots(1, len(ks), figsize=(5.2 * len(ks), 3.8), squeeze=False)
    for ax, k in zip(axes.flat, ks):
        for direction in ("remove", "add"):
            color = DIRECTION_COLOR[direction]
            for method, style in (("exact", "-"), ("monte_carlo", "--")):
                part = cdf[(cdf.sampler == "wor") & (cdf.direction == direction) & (cdf.compositions == k)
                           & (cdf.method == method)].sort_values("loss")
                if part.empty:
                    continue
                label = f"WOR {direction}: {'exact' if method == 'exact' else 'MC estimate'}"
                ax.step(part.loss, part.cdf, where="post", ls=style, color=color, lw=1.3 if method == "exact" else 0.9,
                        label=label)
        if k == 1:
            for row in atoms[atoms.sampler == "wor"].itertuples():
                ax.axvline(row.loss, color=DIRECTION_COLOR[row.direction], lw=0.5, alpha=0.6)
        ax.axvline(ICLR_ATOM, color="black", ls=":", lw=1.0, label=f"-ln(0.1 + 0.9/e) = {ICLR_ATOM:.4f}")
        ax.set_title(f"PLD of k = {k} step{'s' if k > 1 else ''}", fontsize=10)
        ax.set_xlabel("privacy loss")
        ax.set_ylabel("CDF")
        ax.grid(True, alpha=0.25)
        ax.legend(fontsize=7, loc="upper left")
    addremove = meta["parameters"]["addremove"]
    footer = (f"lebeda24_pld_cdf: subsampled Laplace, WOR, rate {addremove['sampling_rate']}, scale "
              f"{addremove['laplace_scale']['wor']} (distance 2). Jumps of the CDF are atoms (thin vertical lines, "
              f"k = 1). MC CDFs from the cached addremove samples (N = {addremove['samples']:,}).")
    save_figure(fig, footer, pdf, png)


def plot_sigma_vs_rate(tables, pdf, png) -> None:
    """Fig. 2: smallest sigma for (eps, delta) vs sampling rate, log-log."""
    frame, meta = tables["sigma"]
    spec = meta["parameters"]["spec"]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, ((sampler, eps), part) in enumerate(frame.groupby(["sampler", "epsilon"])):
        part = part.sort_values("sampling_rate")
        ax.plot(part.sampling_rate, part.sigma, "--" if sampler == "wor" else "-", marker="o", ms=3,
                color="black" if sampler == "wor" else colors[i % len(colors)],
                label=f"{SAMPLER_NAME[sampler]}, eps = {eps:g}: PLD upper bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sampling rate")
    ax.set_ylabel("smallest sigma")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7)
    footer = (f"lebeda24_sigma_vs_rate: add_or_remove, delta = {spec['delta']}, {spec['steps']:,} steps; bisection on "
              f"log sigma to relative width {spec['rtol']}, dp-accounting PLD (pessimistic) at discretization "
              f"{spec['discretization']}.")
    save_figure(fig, footer, pdf, png)


def plot_substitution(tables, pdf, png) -> None:
    """Fig. 3: the three substitution divergences of the WOR Laplace example."""
    frame, meta = tables["curves"]
    spec = meta["parameters"]["spec"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    labels = {"H_PxP_QxQ": "H(PxP || QxQ)", "H_QxQ_PxP": "H(QxQ || PxP)", "H_PxQ_QxP": "H(PxQ || QxP)"}
    for name, label in labels.items():
        ax.plot(frame.epsilon, frame[name], label=f"{label}: exact")
    ax.set_yscale("log")
    ax.set_xlabel("eps")
    ax.set_ylabel("hockey-stick divergence")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8)
    footer = (f"lebeda24_substitution: WOR, n = 2, batch 1 (rate {spec['sampling_rate']}), Laplace scale "
              f"{spec['laplace_scale']}, 2 queries; P = .5 Lap(-1) + .5 Lap(1), Q = Lap(-1). Exact (atoms + quadrature).")
    save_figure(fig, footer, pdf, png)


def plot_subst_gaussian(tables, pdf, png) -> None:
    """Fig. 4: single-step curves (left) and composed bounds under substitution (right)."""
    composed, meta = tables["composed"]
    single, _ = tables["single_step"]
    spec = meta["parameters"]["spec"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.4, 4.0))
    left.plot(single.epsilon, single.delta_remove, color=DIRECTION_COLOR["remove"], label="H(A || B) (remove pair): exact")
    left.plot(single.epsilon, single.delta_add, color=DIRECTION_COLOR["add"], label="H(B || A) (add pair): exact")
    left.plot(single.epsilon, single.delta_max, "k:", lw=1.5, label="pointwise maximum (dominating pair)")
    left.set_title("one step", fontsize=10)
    right.plot(composed.epsilon, composed.delta_upper, "k-", label="W substitution: upper bound (max pair, PLD)")
    right.plot(composed.epsilon, composed.remove_upper, color=DIRECTION_COLOR["remove"], ls="--",
               label="W remove pair: PLD upper")
    right.plot(composed.epsilon, composed.remove_lower, color=DIRECTION_COLOR["remove"],
               label="W remove pair: PLD lower = lower bound")
    right.plot(composed.epsilon, composed.rdp_pair, ":", color="tab:green", label="RDP of the remove/add pair (caption)")
    right.plot(composed.epsilon, composed.rdp_wor_substitution, "-.", color="tab:red",
               label="RDP, WOR substitution (upper bound)")
    right.set_yscale("log")
    right.set_title(f"{spec['steps']:,} steps", fontsize=10)
    for ax in (left, right):
        ax.set_xlabel("eps")
        ax.set_ylabel("delta(eps)")
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=6.5)
    footer = (f"lebeda24_subst_gaussian: WOR Gaussian, sigma = {spec['sigma']}, rate {spec['sampling_rate']}, "
              f"distance 2; connect-the-dots PLD of the pointwise maximum, dp-accounting discretization "
              f"{spec['discretization']}; RDP with dp-accounting's default orders.")
    save_figure(fig, footer, pdf, png)


def plot_conj12(tables, pdf, png) -> None:
    """Conjecture 12: the largest ratio delta_add / delta_remove over eps, per grid point."""
    frame, meta = tables["grid"]
    spec = meta["parameters"]["spec"]
    data = frame[frame.delta_remove_upper > 1e-12].copy()
    data["ratio"] = data.delta_add_upper / data.delta_remove_upper
    worst = data.groupby(["sigma", "sampling_rate", "steps"])["ratio"].max().reset_index()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for (sigma, rate), part in worst.groupby(["sigma", "sampling_rate"]):
        ax.plot(part.steps, part.ratio, marker="o", ms=3, lw=0.8, label=f"sigma={sigma:g}, q={rate:g}")
    ax.axhline(1.0, color="black", lw=1.0, ls="--", label="conjecture: ratio <= 1")
    ax.set_xscale("log")
    ax.set_xlabel("compositions k")
    ax.set_ylabel("max over eps of delta_add / delta_remove")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=5.5, ncol=3)
    footer = (f"lebeda24_conj12: Poisson Gaussian, PLD upper bounds (pessimistic, discretization "
              f"{spec['discretization']}) of both directions on eps = {spec['epsilon_grid']}; points with "
              "delta_remove > 1e-12. No counterexample if every ratio is <= 1.")
    save_figure(fig, footer, pdf, png)


PLOTS = {
    "lebeda24_addremove": plot_addremove,
    "lebeda24_pld_cdf": plot_pld_cdf,
    "lebeda24_sigma_vs_rate": plot_sigma_vs_rate,
    "lebeda24_substitution": plot_substitution,
    "lebeda24_subst_gaussian": plot_subst_gaussian,
    "lebeda24_conj12": plot_conj12,
}

__all__ = ["PLOTS"]
