# dpsampling: regenerate every figure and table of the papers.
#   snakemake --cores all                                  quick scale (config/config.yaml)
#   snakemake --cores all --configfile config/paper.yaml   the papers' scale
#   snakemake chua24_fig3                                   one experiment (ids: docs/EXPERIMENTS.md)
import sys
from functools import partial
from pathlib import Path

from snakemake.utils import min_version, validate

from dpsampling.pipeline.config import ConfigError, check_config

min_version("9.0")


configfile: "config/config.yaml"


try:  # one line per bad key, before any job runs; then snakemake fills in the defaults
    check_config(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml")
except ConfigError as error:
    sys.exit(f"Invalid configuration, nothing was run:\n{error}")
validate(config, "workflow/schemas/config.schema.yaml")

# The rest of the package only now: a bad config stops before the registry imports every experiment
# module (1.5-2 CPU s of a Snakemake start).
from dpsampling.accountants.ballsbins.device import device_problem
from dpsampling.io import check_output_dir
from dpsampling.papers.messages import MESSAGES
from dpsampling.papers.registry import PAPERS, experiment_code, experiment_module, experiment_targets, wildcard
from dpsampling.pipeline.code_inputs import import_closure
from dpsampling.pipeline.recovery import made_by, record_owner, recover, to_recompute
from dpsampling.pipeline.report import summary_param
from dpsampling.pipeline.workflow import spec_lookup

experiment_summary = summary_param(MESSAGES)  # the report captions' param (the papers' readings)
# device: cuda needs a GPU (or NUMBA_ENABLE_CUDASIM=1) where the jobs run: checked here when they run on this
# machine. Snakemake keeps --jobs (nodes) only for a cluster executor (a profile's `jobs:`); then each job
# checks on its own node.
JOBS_RUN_HERE = workflow.resource_settings.nodes is None
if JOBS_RUN_HERE and device_problem(config.get("device", "cpu")):
    sys.exit(f"Invalid configuration, nothing was run:\nconfig device: {device_problem(config.get('device', 'cpu'))}")
try:  # an output folder that is a file or not writable: one line, before any job runs
    for folder in ("results", "figures", "logs", "benchmarks"):
        check_output_dir(folder, create=False)
except OSError as error:
    sys.exit(f"Cannot write the outputs, nothing was run:\n{error}")
experiment_spec = spec_lookup(config)
# the rules whose jobs are the DAG's longest (minutes at quick scale: Fig. 1's trainings, the certified
# bounds of chua24 Fig. 4 and chua25 epochs, lebeda24 Conj. 12) start first, so no long job is left to run
# alone on one core at the end; the order changes no result
LONG_JOB_PRIORITY = 10
EXPERIMENT_TARGETS = experiment_targets(config)  # {experiment id: files}, from the experiment modules
# code_of("scripts/<name>.py"): the script and the package modules it imports, transitively (relative
# paths): a cheap rule reruns when any of them changes. Cached expensive rules take none of them
# (dpsampling.versions).
code_of = partial(import_closure, base=workflow.basedir)

# code_of_experiment("scripts/<name>.py"): code_of the script and of the experiment's module, which the
# script imports by name (param module=experiment_module): editing papers/chua24/fig3.py reruns
# chua24_fig3's cheap rules only.
code_of_experiment = partial(experiment_code, code_of)


include: "workflow/rules/chua24.smk"
include: "workflow/rules/chua25_utility.smk"
include: "workflow/rules/chua25_privacy.smk"
include: "workflow/rules/lebeda24.smk"
include: "workflow/rules/bandmf26.smk"
include: "workflow/rules/claims.smk"
include: "workflow/rules/benchmarks.smk"  # opt-in target `benchmarks`, not in `all`
include: "workflow/rules/report.smk"  # keep last: it reads the rules above


# made_here(path): the workflow makes that result file (a rule's output, in a configured experiment's folder)
made_here = made_by(EXPERIMENT_TARGETS, workflow.rules)
# What a killed run or a damaged file left, repaired before the DAG is built (main process only;
# a dry run only reports): a damaged or foreign result file is moved to <name>.damaged and becomes
# a target until it is made again (Snakemake never remakes a missing intermediate file on its
# own); the lock of a Snakemake killed on this host is removed; one line each
# (dpsampling.pipeline.recovery, docs/COMMANDS.md "Interrupted runs and damaged files").
if workflow.is_main_process:
    for _line in recover(".", dry_run=workflow.output_settings.dryrun, ours=made_here):
        print(_line, file=sys.stderr)
RECOMPUTE = to_recompute(".", ours=made_here)


onstart:
    record_owner(".", local_jobs=JOBS_RUN_HERE)  # holds the lock: a later run may remove it once this process is gone


for _experiment, _files in EXPERIMENT_TARGETS.items():  # one target rule per experiment id

    rule:
        name:
            _experiment
        input:
            _files,
            [f for f in RECOMPUTE if f.startswith(f"results/{_experiment}/")],


for _paper in PAPERS:  # and one per paper: all of its experiments

    rule:
        name:
            _paper.name
        input:
            [f for e, files in EXPERIMENT_TARGETS.items() if e.startswith(f"{_paper.name}_") for f in files],
            [f for f in RECOMPUTE if f.startswith(f"results/{_paper.name}_")],


rule all:
    default_target: True
    input:
        [f for files in EXPERIMENT_TARGETS.values() for f in files],
        RECOMPUTE,
        "results/claims.csv",
        "results/claims.md",
        "results/REPORT.md",
        "results/report.html",
