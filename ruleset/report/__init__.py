"""Self-contained HTML reports (``--report FILE.html``): pages from plain dicts, matplotlib charts."""
