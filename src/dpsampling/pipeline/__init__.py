"""What the Snakemake workflow needs beyond the library: config checks, the code inputs of rules,
the claims check, the reports and the core-hour estimate. Paper-specific parts live in
``dpsampling.papers``."""
