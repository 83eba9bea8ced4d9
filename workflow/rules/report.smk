# The reproduction report: results/REPORT.md from every result present, and the flags and
# captions of the Snakemake HTML report (snakemake --report results/report.html).
import os



report: "../report/workflow.rst"


localrules:
    report,
    report_html,


rule report:
    """results/REPORT.md: claims, per-experiment parameters, figure links, times, discrepancies."""
    input:
        claims="results/claims.csv",
        experiments=sorted({f for files in EXPERIMENT_TARGETS.values() for f in files}),
        code=code_of("scripts/write_report.py"),
    output:
        report("results/REPORT.md", caption="../report/report_md.rst", category="Summary"),
    params:
        targets=EXPERIMENT_TARGETS,
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
        code=code_of("scripts/write_report_html.py"),
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
