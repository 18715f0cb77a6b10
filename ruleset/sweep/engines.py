"""Where a sweep's tasks run, chosen by name through the ``ruleset_sweep_engines`` hook.

* ``local`` (the default): a pool of processes on this machine, nothing to start. At most one
  task per worker is in flight, so a worker that dies (killed, out of memory) takes only the
  tasks it and its siblings were running: they are recorded as lost, a new pool runs the rest.
* ``dask``: dask.distributed (``pip install 'ruleset[dask]'``), on the scheduler at
  ``--scheduler tcp://HOST:PORT``, or on a ``LocalCluster`` of ``--workers`` processes when none
  is given. Dask reruns the tasks of a lost worker elsewhere; one that keeps killing its worker
  ends as a ``KilledWorker``, recorded as lost.

Both run :func:`ruleset.sweep.task.run_task` on the same small :class:`TaskSpec`s; each worker
process keeps the snapshots it read (keyed by content hash) for the tasks that follow.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol

from ruleset.errors import PLUGIN_FAULTS, Problem, RulesetError
from ruleset.hookspecs import hookimpl
from ruleset.sweep.task import TaskResult, TaskSpec, lost, run_task

#: What to install for the dask engine.
DASK_HINT = "pip install 'ruleset[dask]'"


@dataclass(frozen=True)
class EngineOptions:
    """What ``--workers`` and ``--scheduler`` say (None: the engine's default)."""

    workers: int | None = None
    scheduler: str | None = None


class Engine(Protocol):
    """Runs tasks and reports each result, in the calling process, as it arrives."""

    def run(self, tasks: Sequence[TaskSpec], done: Callable[[TaskResult], None]) -> None: ...


class LocalEngine:
    """A process pool on this machine (``forkserver`` processes where the platform has them)."""

    def __init__(self, options: EngineOptions) -> None:
        self.workers = options.workers or os.cpu_count() or 1

    def run(self, tasks: Sequence[TaskSpec], done: Callable[[TaskResult], None]) -> None:
        pending = deque(tasks)
        with _one_thread_each(), _main_not_imported():
            while pending:
                with ProcessPoolExecutor(self.workers, mp_context=_context()) as pool:
                    self._run_pool(pool, pending, done)

    def _run_pool(self, pool: ProcessPoolExecutor, pending: deque[TaskSpec],
                  done: Callable[[TaskResult], None]) -> None:
        """Run tasks until none is left or the pool breaks (then the caller starts another)."""
        running: dict[Future[TaskResult], TaskSpec] = {}
        broken = False
        while running or (pending and not broken):
            while pending and not broken and len(running) < self.workers:
                spec = pending.popleft()
                try:
                    running[pool.submit(run_task, spec)] = spec
                except BrokenProcessPool as exc:  # lost, not queued again: every pool makes progress
                    done(lost(spec, exc))
                    broken = True
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                spec = running.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool as exc:
                    result, broken = lost(spec, exc), True
                done(result)


#: What a forkserver imports once, so that each worker it forks starts with them loaded.
_PRELOAD = ["ruleset.sweep.task", "ruleset.analysis.compare", "ruleset.app", "ruleset.scheduler"]


#: Numeric libraries' thread pools, one thread each in the workers (as Dask's nannies set them): with
#: a worker per core, their threads only contend (two workers on two cores scaled 1.1× with them, 2×
#: without). A value the user set is kept.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _one_thread_each() -> Iterator[None]:
    """While the pool starts its processes (and the forkserver they fork from), the numeric
    libraries' thread variables say 1; put back afterwards."""
    added = [name for name in THREAD_VARIABLES if name not in os.environ]
    os.environ.update({name: "1" for name in added})
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


@contextlib.contextmanager
def _main_not_imported() -> Iterator[None]:
    """While worker processes start, the caller's ``__main__`` looks like an interactive session's, so
    that the workers (and the forkserver) do not import it again: they run only ruleset's code, and
    a main module may not be importable (stdin, a notebook, a script without a ``__main__`` guard)."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    names = ("__file__", "__spec__")
    saved: dict[str, Any] = {name: vars(main)[name] for name in names if name in vars(main)}
    main.__spec__ = None
    vars(main).pop("__file__", None)
    try:
        yield
    finally:
        vars(main).pop("__spec__", None)
        vars(main).update(saved)


def _context() -> Any:
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    from multiprocessing import forkserver

    forkserver.ensure_running()  # now, with the environment above; a running one is kept
    return context


class DaskEngine:
    """dask.distributed: a scheduler's address, or a LocalCluster of its own."""

    def __init__(self, options: EngineOptions) -> None:
        require_dask("--engine dask")
        self.options = options

    def run(self, tasks: Sequence[TaskSpec], done: Callable[[TaskResult], None]) -> None:
        from dask.distributed import Client, LocalCluster, as_completed

        cluster = None
        if self.options.scheduler:
            client = Client(self.options.scheduler)
        else:
            with _main_not_imported():
                cluster = LocalCluster(n_workers=self.options.workers or os.cpu_count() or 1,
                                       threads_per_worker=1, processes=True, dashboard_address=":0")
            client = Client(cluster)
        try:
            futures = {client.submit(run_task, spec, key=f"ruleset-sweep-{spec.id}", pure=False): spec
                       for spec in tasks}
            for future in as_completed(futures):
                spec = futures[future]
                try:
                    result = future.result()
                except Exception as exc:  # KilledWorker, a lost connection: the task's worker is gone
                    result = lost(spec, exc)
                done(result)
                future.release()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def require_dask(where: str) -> None:
    """Raise RulesetError (exit 2) at ``where`` when dask.distributed cannot be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise RulesetError(Problem(f"the dask engine needs dask.distributed, which is not installed: "
                                   f"{DASK_HINT}", file=where, code="missing-dependency")) from None


@hookimpl
def ruleset_sweep_engines(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """The built-in engines."""
    register("local", LocalEngine)
    register("dask", DaskEngine)


def engine_factories(registry: Any = None) -> dict[str, Callable[[EngineOptions], Engine]]:
    """Every engine by name: the built-ins, then those the plugin packages of ``registry`` (default:
    this process's) register; the first registration of a name wins."""
    from ruleset.pluginmanager import load_registry

    registry = registry or load_registry()
    factories: dict[str, Callable[[EngineOptions], Engine]] = {}

    def register(name: str, factory: Callable[..., Any]) -> None:
        factories.setdefault(name, factory)

    ruleset_sweep_engines(register)
    manager = getattr(registry, "manager", None)
    hook = getattr(manager.hook, "ruleset_sweep_engines", None) if manager is not None else None
    if hook is not None:
        for impl in reversed(hook.get_hookimpls()):  # in registration order
            try:
                impl.function(register)
            except PLUGIN_FAULTS:  # a broken package's engines are left out; its plugins load as before
                continue
    return factories


def make_engine(name: str, options: EngineOptions, registry: Any = None) -> Engine:
    """The engine called ``name``; an unknown name is an input error listing the known ones."""
    factories = engine_factories(registry)
    if name not in factories:
        raise RulesetError(Problem(f"no such engine; expected one of {', '.join(sorted(factories))}",
                                   file=f"--engine {name}", code="invalid-value"))
    return factories[name](options)
