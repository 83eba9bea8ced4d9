"""``dpsampling report``: results/REPORT.md from whatever results exist (experiments not run are
listed as such); claims are checked on the spot. ``snakemake report`` writes the same file."""

from __future__ import annotations

import argparse
from pathlib import Path

from dpsampling.cli.main import OneLineParser
from dpsampling.cli.paths import output_file
from dpsampling.papers.messages import MESSAGES
from dpsampling.papers.registry import CLAIMS
from dpsampling.pipeline.claims import check_claims
from dpsampling.pipeline.estimate import config_experiments
from dpsampling.pipeline.report import write_report
from dpsampling.yamlfile import read_yaml


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, description=__doc__.split("\n\n")[0].replace("``", ""))
    parser.add_argument("--directory", default=".", metavar="DIR", help="the workflow folder (default: .)")
    parser.add_argument("--output", default="results/REPORT.md", metavar="FILE",
                        help="where to write it, relative to --directory (default: results/REPORT.md)")
    parser.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")
    return parser


def flags(args) -> dict:
    return {}


def run(args) -> int:
    directory = Path(args.directory)
    if not directory.is_dir():
        raise ValueError(f"--directory must be an existing folder; got {args.directory!r}")
    output_file(directory / args.output, "--output", create_folders=True)  # before the claims are checked
    claims = check_claims(CLAIMS, directory / "results")
    config_file = directory / "config" / "config.yaml"
    configured = config_experiments(read_yaml(config_file, "config file") or {}) if config_file.is_file() else []
    path = write_report(directory / args.output, root=directory, targets={name: None for name in configured},
                        claims=claims, messages=MESSAGES)
    print(f"wrote {path}")
    return 0
