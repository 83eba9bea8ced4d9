"""``python -m dpsampling``: the same as the ``dpsampling`` command."""

from dpsampling.cli.main import main

raise SystemExit(main())
