# dpsampling: regenerate every figure and table of the papers.
#   snakemake --cores all                                  quick scale (config/config.yaml)
#   snakemake --cores all --configfile config/paper.yaml   the papers' scale
#   snakemake chua24_fig3                                   one experiment
import sys
from pathlib import Path

from snakemake.utils import min_version, validate

from dpsampling.config import ConfigError, check_config
from dpsampling.workflow import CHUA24_EXPERIMENTS, chua25_fig1_panels, package_sources, spec_lookup
from dpsampling.workflow import (LEBEDA24_FIGURES, LEBEDA24_RESULTS, lebeda24_shards, lebeda24_sigma_curves,
                                 lebeda24_target)
from dpsampling.io import check_output_dir
from dpsampling.report import experiment_summary

min_version("9.0")


configfile: "config/config.yaml"


try:  # one line per bad key, before any job runs; then snakemake fills in the defaults
    check_config(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml")
except ConfigError as error:
    sys.exit(f"Invalid configuration, nothing was run:\n{error}")
validate(config, "workflow/schemas/config.schema.yaml")
try:  # an output folder that is a file or not writable: one line, before any job runs
    for folder in ("results", "figures", "logs", "benchmarks"):
        check_output_dir(folder, create=False)
except OSError as error:
    sys.exit(f"Cannot write the outputs, nothing was run:\n{error}")
experiment_spec = spec_lookup(config)
CHUA25_FIG1_PANELS = chua25_fig1_panels(config)


include: "workflow/rules/chua24.smk"
include: "workflow/rules/chua25_utility.smk"
include: "workflow/rules/chua25_privacy.smk"
include: "workflow/rules/lebeda24.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/benchmarks.smk"  # opt-in target `benchmarks`, not in `all`
include: "workflow/rules/report.smk"  # keep last: it reads the rules above


rule all:
    default_target: True
    input:
        rules.chua24.input,
        rules.chua25_fig1.input,
        rules.chua25.input,
        rules.lebeda24.input,
        "results/claims.csv",
        "results/claims.md",
        "results/REPORT.md",
        "results/report.html",
