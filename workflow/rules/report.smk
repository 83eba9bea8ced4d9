# The reproduction report: results/REPORT.md from every result present, and the flags and
# captions of the Snakemake HTML report (snakemake --report results/report.html).
import os

from dpsampling.report import experiment_targets


report: "../report/workflow.rst"


localrules:
    report,
    report_html,


rule report:
    """results/REPORT.md: claims, per-experiment parameters, figure links, times, discrepancies."""
    input:
        claims="results/claims.csv",
        experiments=lambda wildcards: sorted({f for files in experiment_targets(workflow.rules).values() for f in files}),
        code=package_sources("report", "io"),
    output:
        report("results/REPORT.md", caption="../report/report_md.rst", category="Summary"),
    params:
        targets=lambda wildcards: experiment_targets(workflow.rules),
        configfiles=[os.path.relpath(f) for f in workflow.configfiles],
    log:
        "logs/report.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/write_report.py"


rule report_html:
    """results/report.html: Snakemake's HTML report of the whole DAG (snakemake --report), made by a
    nested snakemake with this run's config, once every flagged figure and table exists."""
    input:
        "results/REPORT.md",
    output:
        "results/report.html",
    params:
        snakefile=os.path.relpath(workflow.main_snakefile),
        config=workflow.config_settings.overwrite_config,  # the config files and --config values of this run
    log:
        "logs/report_html.log",
    conda:
        "../envs/dpsampling.yaml"
    script:
        "../../scripts/write_report_html.py"
