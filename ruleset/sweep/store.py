"""The results folder of a sweep (``--out DIR``)::

    DIR/sweep.json          the grid: every task's id and parameters (written first)
    DIR/tasks/ID.json       one task's result: parameters, status, error, metrics row, placements
    DIR/results.csv         the table, rows by task id (also results.parquet with pyarrow)
    DIR/summary.html        the summary page

Each task's file is written atomically (a temporary file beside it, flushed, renamed over) as
its result arrives, so a sweep stopped at any point, or a worker killed, loses no finished
result. Rerunning the same grid into the same folder keeps every ``ok`` result and runs the
rest (failed tasks included). A folder holding another grid's results, or files that are no
sweep's, is refused unless ``--force``, which starts the grid over (removing the earlier task
results and tables, nothing else).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from ruleset.errors import Problem, RulesetError
from ruleset.sweep.plan import Plan
from ruleset.sweep.task import OK, TaskResult, TaskSpec

MANIFEST = "sweep.json"
TASKS = "tasks"
#: What the folder holds besides task results; ``--force`` removes these (and the task results).
OUTPUTS = ("results.csv", "results.parquet", "summary.html")
SCHEMA_VERSION = 1


class ResultStore:
    """Reads and writes one sweep's results folder."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.tasks = out / TASKS

    def prepare(self, plan: Plan, force: bool = False) -> set[str]:
        """Make the folder ready for ``plan``; return the ids of the tasks that already have an ``ok``
        result. Raises RulesetError (exit 2) before writing anything when the folder holds another
        grid's results, or files that are no sweep's, unless ``force``."""
        manifest = manifest_of(plan)
        existing = self._read_manifest()
        if self.out.exists() and not self.out.is_dir():
            raise RulesetError(Problem("is not a folder", file=str(self.out), code="io-error"))
        if existing is None and self.out.is_dir() and any(self.out.iterdir()) and not force:
            raise RulesetError(Problem(f"holds files but no {MANIFEST}: not a sweep's results; name an empty "
                                       "or new folder, or pass --force to write into it", file=str(self.out),
                                       code="exists"))
        same = existing is not None and existing.get("tasks") == manifest["tasks"]
        if existing is not None and not same:
            if not force:
                raise RulesetError(Problem(
                    f"holds the results of another grid ({len(existing.get('tasks') or [])} tasks; this one "
                    f"has {len(manifest['tasks'])}, or its inputs changed); pass --force to start over, or "
                    "name another folder", file=str(self.out), code="exists"))
            self._clear()
        self.tasks.mkdir(parents=True, exist_ok=True)
        if not same:
            write_atomic(self.out / MANIFEST, _dumps(manifest))
        return {spec.id for spec in plan.tasks if self.status(spec.id) == OK}

    def status(self, task: str) -> str | None:
        """The status of ``task``'s stored result (None when there is none, or it cannot be read)."""
        document = self.read(task)
        return None if document is None else document.get("status")

    def read(self, task: str) -> dict[str, Any] | None:
        """``task``'s stored result, None when there is none (an unreadable one counts as none)."""
        try:
            document = json.loads((self.tasks / f"{task}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return document if isinstance(document, dict) else None

    def write(self, spec: TaskSpec, result: TaskResult) -> None:
        """Store one task's result atomically."""
        document = {"task": {**spec.params(), "pods": list(spec.pods), "scale": list(spec.scale),
                             "seed": spec.seed, "snapshotDigest": spec.snapshot.digest},
                    "status": result.status, "error": result.error, "metrics": result.metrics,
                    "placements": result.placements}
        write_atomic(self.tasks / f"{spec.id}.json", _dumps(document))

    def results(self, plan: Plan) -> list[dict[str, Any]]:
        """Every stored result of ``plan``'s tasks, by task id."""
        out = []
        for spec in sorted(plan.tasks, key=lambda s: s.id):
            document = self.read(spec.id)
            if document is not None:
                out.append(document)
        return out

    def _read_manifest(self) -> dict[str, Any] | None:
        try:
            document = json.loads((self.out / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {}
        return document if isinstance(document, dict) else {}

    def _clear(self) -> None:
        if self.tasks.is_dir():
            for path in self.tasks.glob("*.json"):
                path.unlink()
        for name in (MANIFEST, *OUTPUTS):
            with contextlib.suppress(FileNotFoundError):
                (self.out / name).unlink()


def manifest_of(plan: Plan) -> dict[str, Any]:
    """The grid as ``sweep.json`` records it: each task's id and parameters, by id."""
    return {"schemaVersion": SCHEMA_VERSION,
            "tasks": [spec.params() for spec in sorted(plan.tasks, key=lambda s: s.id)]}


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``path`` all or nothing: a temporary file beside it, flushed to disk, renamed over it."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with open(temporary, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def _dumps(document: Any) -> str:
    return json.dumps(document, indent=2, sort_keys=False, ensure_ascii=False) + "\n"

