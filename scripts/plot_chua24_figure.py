"""Snakemake script: draw one chua24 figure from its bounds table."""

import sys

from dpsampling.io import read_table
from dpsampling.papers.chua24.plots import plot_delta_vs_epsilon, plot_epsilon_vs_sigma

sys.stderr = open(snakemake.log[0], "w", buffering=1)
frame, document = read_table(snakemake.input[0], snakemake.params.expected)
parameters = document["parameters"]
plot = plot_epsilon_vs_sigma if parameters["kind"] == "epsilon_vs_sigma" else plot_delta_vs_epsilon
plot(frame, parameters, snakemake.output.pdf, snakemake.output.png)
