"""The ``dpsampling`` command: a table of subcommands (``main.COMMANDS``: account, compare,
calibrate, estimate, report), each in its own module, imported when it runs."""

from dpsampling.cli.main import main

__all__ = ["main"]
