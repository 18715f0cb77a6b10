"""Reporters for ``ruleset validate``: one module per output format, each with ``render(report)``."""
