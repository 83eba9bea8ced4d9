"""Plotting style shared by every paper's figures: one letter and one colour per sampler (each
sampler's class holds its own: ``dpsampling.samplers``), the non-interactive backend. Figures are drawn from result
tables only (never recomputed)."""

import matplotlib

from dpsampling.lazy import lazy_import
from dpsampling.samplers import SAMPLERS

matplotlib.use("Agg")
plt = lazy_import("matplotlib.pyplot")  # loaded by the first figure: a job that only computes never pays it (~0.2 CPU s)

SAMPLER_LETTER = {name: spec.letter for name, spec in SAMPLERS.items()}
SAMPLER_COLOR = {name: spec.colour for name, spec in SAMPLERS.items()}


def departures_text(departures: list[str], beyond_paper: str = "") -> str:
    """The footer's sentence on the paper: 'DEPARTS from the paper: a; b. ' (each departure of the
    setting that ran from the paper's), 'The paper's setting. ', or, for a figure the paper does
    not have, ``beyond_paper``."""
    if beyond_paper:
        return f"Beyond the paper: {beyond_paper}. "
    return f"DEPARTS from the paper: {'; '.join(departures)}. " if departures else "The paper's setting. "


def save_figure(fig, footer: str, path_pdf, path_png, rect=(0, 0.05, 1, 1)) -> None:
    """Write ``fig`` with its ``footer`` (how it was computed) to PDF and PNG and close it;
    ``rect`` is tight_layout's box above the footer."""
    fig.text(0.01, 0.005, footer, fontsize=6.5, va="bottom", ha="left", wrap=True)
    fig.tight_layout(rect=rect)
    fig.savefig(path_pdf)
    fig.savefig(path_png, dpi=150)
    plt.close(fig)


__all__ = ["SAMPLER_COLOR", "SAMPLER_LETTER", "departures_text", "plt", "save_figure"]
