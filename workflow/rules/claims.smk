# The papers' stated numbers, checked against our results.
from dpsampling.papers.registry import claim_inputs


rule claims:
    """results/claims.csv and .md: every registered claim with our value and a verdict."""
    input:
        claim_inputs(),
        code=code_of("scripts/check_claims.py"),
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
