"""The ``dpsampling`` command: one module per command (account, calibrate, estimate, report)."""

from dpsampling.cli.main import main

__all__ = ["main"]
