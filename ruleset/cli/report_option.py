"""``--report FILE.html [--force]`` for the commands that draw their JSON document as a page
(explain, compare, capacity): the two options, the checks made before any work, the write."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_report_arguments(parser: argparse.ArgumentParser, contents: str) -> None:
    """Add ``--report FILE.html`` (the page shows ``contents``) and ``--force``."""
    parser.add_argument("--report", metavar="FILE.html",
                        help=f"also write a self-contained HTML report ({contents}); needs matplotlib: "
                             "pip install 'ruleset[report]'")
    parser.add_argument("--force", action="store_true", help="let --report overwrite an existing file")


def report_target(args: argparse.Namespace) -> Path | None:
    """The ``--report`` file, None without one; raises RulesetError (exit 2) when it cannot be
    written (an existing file without ``--force``, a missing folder) or matplotlib is missing,
    so that a command fails before its run, not after it."""
    if args.report is None:
        return None
    from ruleset.cli.output import refuse_existing
    from ruleset.report.charts import require_matplotlib

    target = Path(args.report)
    refuse_existing([target], args.force)
    require_matplotlib(f"--report {args.report}")
    return target


def write_report(target: Path | None, page: str, force: bool) -> None:
    """Write ``page`` to ``target`` all-or-nothing (nothing when ``target`` is None)."""
    if target is None:
        return
    from ruleset.cli.output import write_atomic

    write_atomic(target, page, force=force)
