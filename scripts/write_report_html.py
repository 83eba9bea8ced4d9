"""Snakemake script: Snakemake's HTML report of this run, by `snakemake --report` with the same config."""

import subprocess
import sys
from pathlib import Path

import yaml

sys.stderr = log = open(snakemake.log[0], "w", buffering=1)
output = Path(snakemake.output[0])
config_file = output.with_name(".report_config.yaml")  # this run's config, for the nested snakemake
config_file.write_text(yaml.safe_dump(dict(snakemake.params.config)))
command = [sys.executable, "-m", "snakemake", "--snakefile", snakemake.params.snakefile,
           "--configfile", str(config_file), "--report", str(output)]
print(" ".join(command), file=log)
try:
    status = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT).returncode
finally:
    config_file.unlink(missing_ok=True)
if status != 0 or not output.exists():
    sys.exit(f"snakemake --report failed (exit status {status}); see {snakemake.log[0]}")
