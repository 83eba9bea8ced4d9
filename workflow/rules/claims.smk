# The papers' stated numbers, checked against our results.


rule claims:
    """results/claims.csv and .md: every registered claim with our value and a verdict."""
    input:
        expand("results/{experiment}/bounds.parquet", experiment=CHUA24_EXPERIMENTS),
        "results/chua25_fig1/auc.parquet",
        expand("results/{experiment}/summary.parquet", experiment=["chua25_fig2", "chua25_fig3", "chua25_fig4"]),
        "results/chua25_props/checks.parquet",
        "results/chua25_trunc/table.parquet",
        [path for paths in LEBEDA24_RESULTS.values() for path in paths],
        code=package_sources("claims"),
    output:
        csv=report("results/claims.csv", caption="../report/claims.rst", category="Claims"),
        md="results/claims.md",
    params:
        results_dir=lambda wildcards, input: str(Path(input[0]).parents[1]),
    log:
        "logs/claims.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/check_claims.py"
