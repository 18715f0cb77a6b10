"""Record (``--write``) or check the pinned outputs of ``tests/golden/cases.py``.

Run from anywhere: ``python tests/golden/record.py --write`` rewrites ``outputs/``; review
the diff before committing it. Without ``--write`` it prints the ids that differ.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("RULESET_DISABLE_PLUGIN_AUTOLOAD", "1")

from tests.golden.cases import GOLDEN, ROOT, cases


def run(argv: list[str]) -> str:
    """``ruleset argv`` in-process from the repository root: exit code line, then stdout."""
    from ruleset.cli import main

    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(argv)
    finally:
        os.chdir(cwd)
    return f"exit {code}\n{out.getvalue()}"


def output_path(case_id: str) -> Path:
    return GOLDEN / "outputs" / f"{case_id}.txt"


def main() -> int:
    write = "--write" in sys.argv[1:]
    differ = []
    for case_id, argv in cases():
        text = run(argv)
        path = output_path(case_id)
        if write:
            path.write_text(text, encoding="utf-8")
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            differ.append(case_id)
    print("\n".join(differ) if differ else "all outputs as recorded")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
