"""The result files of each chua25 experiment (what its target rule asks for)."""

MONTE_CARLO = ("fig2", "fig3", "fig4", "epochs", "props")
"""Experiments (config blocks chua25.<name>) with sharded Monte Carlo samples: results/chua25_<name>/samples/..."""
PRIVACY_FIGURES = ("fig2", "fig3", "fig4", "epochs")
"""Those drawn as figures (Monte Carlo next to deterministic bounds); props is a table of checks.
chua25_b_vs_p (beyond the paper, no Monte Carlo) has its own rules: a grid table and a map."""


def figures(experiment: str) -> list[str]:
    return [f"figures/{experiment}.pdf", f"figures/{experiment}.png"]


def fig1_panels(config: dict) -> list[str]:
    """Panel ids of chua25 Fig. 1: nonprivate and dp_b<batch> per DP batch size."""
    return ["nonprivate"] + [f"dp_b{b}" for b in config["chua25"]["fig1"]["dp_batch_sizes"]]


def targets(config: dict) -> dict[str, list[str]]:
    """{experiment id: files} of every chua25 experiment."""
    files = {"chua25_fig1": ["results/chua25_fig1/auc.parquet", *figures("chua25_fig1")]}
    for experiment in (f"chua25_{name}" for name in PRIVACY_FIGURES):
        files[experiment] = [f"results/{experiment}/summary.parquet", *figures(experiment)]
    files["chua25_props"] = ["results/chua25_props/checks.parquet", "results/chua25_props/checks.md"]
    files["chua25_b_vs_p"] = ["results/chua25_b_vs_p/grid.parquet", "results/chua25_b_vs_p/grid.md",
                              *figures("chua25_b_vs_p")]
    files["chua25_trunc"] = [f"results/chua25_trunc/table.{suffix}" for suffix in ("parquet", "csv", "md")]
    return files
