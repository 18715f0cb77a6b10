"""Fuzz the whole command line with mutated real inputs, for as long as you like.

    python bench/fuzz_cli.py [--count 100000] [--seed 1] [--workers 2] [--budget 10] [--memory 3072]
                             [--out fuzz-findings]

Each case (``bench/fuzzing.py``: a command over mutated profiles, configurations, cluster
dumps, pods or selectors) runs in a worker process with an address-space limit
(``--memory`` MiB) and a hard per-case alarm (three times ``--budget`` seconds); a worker
that dies (a segmentation fault, the memory limit) is replaced and its case recorded. A
case fails when ``main`` raises, returns outside {0, 1, 2}, prints a traceback or an
"internal error", runs past ``--budget``, or kills its worker. Each failure is written to
``--out`` as a JSON reproducer (argv and files). Prints a summary; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import resource
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fuzzing import Case, make_case, run_case


class _Alarm(BaseException):
    pass


def _worker(connection, memory_mib: int, budget: float) -> None:
    os.environ["RULESET_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    limit = memory_mib * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def alarm(signum, frame):
        raise _Alarm()

    signal.signal(signal.SIGALRM, alarm)
    folder = Path(tempfile.mkdtemp(prefix="ruleset-fuzz-"))
    from ruleset.cli import main  # import once: every case runs in this process

    while True:
        message = connection.recv()
        if message is None:
            return
        index, case = message
        signal.alarm(int(budget * 3) + 1)
        try:
            verdict = run_case(case, folder, budget, main)
            result = (verdict.code, verdict.seconds, verdict.problem)
        except _Alarm:
            result = (None, budget * 3, f"hung (no answer after {budget * 3:.0f} s)")
        finally:
            signal.alarm(0)
        connection.send((index, result))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=float, default=10.0, help="seconds a case may take")
    parser.add_argument("--memory", type=int, default=3072, help="MiB of address space per worker")
    parser.add_argument("--out", default="fuzz-findings", help="folder for reproducers of failures")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    cases = (make_case(rng) for _ in range(args.count))
    out = Path(args.out)
    ctx = mp.get_context("fork")
    workers: list[tuple[mp.Process, object, int | None, Case | None]] = []

    def spawn():
        parent, child = ctx.Pipe()
        process = ctx.Process(target=_worker, args=(child, args.memory, args.budget), daemon=True)
        process.start()
        return [process, parent, None, None]

    workers = [spawn() for _ in range(args.workers)]
    started = time.perf_counter()
    outcomes: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    slowest = 0.0
    index = 0
    pending = True
    finished = 0

    def record(case: Case, problem: str) -> None:
        out.mkdir(parents=True, exist_ok=True)
        kind = problem.split(":")[0][:60]
        failures[kind] += 1
        path = out / f"case-{args.seed}-{sum(failures.values()):05d}.json"
        path.write_text(json.dumps({"problem": problem, **asdict(case)}, indent=1, ensure_ascii=True))

    while pending or any(w[2] is not None for w in workers):
        for worker in workers:
            process, connection, busy, case = worker
            if busy is None and pending:
                try:
                    case = next(cases)
                except StopIteration:
                    pending = False
                    continue
                connection.send((index, case))
                worker[2], worker[3] = index, case
                index += 1
        for n, worker in enumerate(workers):
            process, connection, busy, case = worker
            if busy is None:
                continue
            if connection.poll(0.01):
                _, (code, seconds, problem) = connection.recv()
                slowest = max(slowest, seconds)
                finished += 1
                if problem is None:
                    outcomes[f"exit {code}"] += 1
                else:
                    outcomes["failed"] += 1
                    record(case, problem)
                worker[2], worker[3] = None, None
            elif not process.is_alive():
                finished += 1
                outcomes["failed"] += 1
                record(case, f"worker died (exit code {process.exitcode})")
                workers[n] = spawn()
        if finished and finished % 5000 == 0:
            rate = finished / (time.perf_counter() - started)
            print(f"  {finished} cases, {rate:.0f}/s, {outcomes['failed']} failed", file=sys.stderr,
                  flush=True)
    for process, connection, _, _ in workers:
        connection.send(None)
        process.join(timeout=5)
    elapsed = time.perf_counter() - started
    print(f"{finished} cases in {elapsed:.0f} s (seed {args.seed}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())) + f"; slowest {slowest:.2f} s")
    for kind, count in failures.most_common():
        print(f"  {count} × {kind}")
    if failures:
        print(f"reproducers in {out}/")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
