"""The result files of each chua24 experiment (what its target rule asks for)."""

FIGURES = ["fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "fig7"]
EXPERIMENTS = [f"chua24_{name}" for name in FIGURES] + ["chua24_thm41"]


def targets(config: dict) -> dict[str, list[str]]:
    """{experiment id: files}: each figure's bounds table and figure; Thm 4.1's table."""
    files = {}
    for experiment in EXPERIMENTS:
        files[experiment] = [f"results/{experiment}/bounds.parquet"]
        if experiment != "chua24_thm41":
            files[experiment] += [f"figures/{experiment}.pdf", f"figures/{experiment}.png"]
    return files
