"""Experiment computations: pure functions from a config block to a long-format table."""
