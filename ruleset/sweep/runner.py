"""A sweep from its plan to its files: prepare the results folder, run the missing tasks on an
engine (each result stored as it arrives), then write the table and the summary page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ruleset.sweep.engines import Engine
from ruleset.sweep.plan import Plan
from ruleset.sweep.store import ResultStore, write_atomic
from ruleset.sweep.table import table_rows, write_tables
from ruleset.sweep.task import OK, TaskResult


@dataclass
class SweepOutcome:
    """What a sweep did: tasks run now (``ran``, ``failed``), kept from before (``resumed``), the
    files written, and each failure of this run as (task id, error)."""

    tasks: int
    ran: int = 0
    resumed: int = 0
    failed: int = 0
    files: list[Path] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"tasks": self.tasks, "ran": self.ran, "resumed": self.resumed, "failed": self.failed}

    def line(self) -> str:
        """The one-line summary the command prints."""
        return (f"{self.tasks} tasks: {self.ran} ran, {self.resumed} resumed, {self.failed} failed; "
                f"wrote {', '.join(str(f) for f in self.files)}")


def run_sweep(plan: Plan, out: Path, engine: Engine, *, force: bool = False, summary: bool = True,
              advance: Callable[[int], None] | None = None) -> SweepOutcome:
    """Run ``plan``'s tasks that have no ``ok`` result in ``out`` on ``engine``; ``advance(n)`` is
    called as results arrive (progress). ``summary``: also write ``summary.html`` (needs matplotlib)."""
    store = ResultStore(out)
    kept = store.prepare(plan, force)
    outcome = SweepOutcome(tasks=len(plan.tasks), resumed=len(kept))
    if advance is not None and kept:
        advance(len(kept))
    specs = {spec.id: spec for spec in plan.tasks}

    def done(result: TaskResult) -> None:
        store.write(specs[result.id], result)
        if result.status == OK:
            outcome.ran += 1
        else:
            outcome.failed += 1
            outcome.failures.append((result.id, result.error or ""))
        if advance is not None:
            advance(1)

    engine.run([spec for spec in plan.tasks if spec.id not in kept], done)
    columns, rows = table_rows(store.results(plan))
    outcome.files = write_tables(out, columns, rows)
    if summary:
        from ruleset.sweep.summary import summary_page

        page = out / "summary.html"
        write_atomic(page, summary_page(columns, rows, outcome.counts()))
        outcome.files.append(page)
    return outcome
