"""Benchmark ``Selector.match_table`` against the scalar ``matches`` loop (prints figures; not a test).

Builds a LabelTable of 100,000 label sets, each with about 8 of 20 keys whose vocabularies
range from 1 value to one per row, then times representative selectors: best of N runs.

    python bench/selector_match.py [--rows 100000] [--repeat 7] [--seed 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from ruleset.labels import LabelTable
from ruleset.selector import parse

SELECTORS = [
    ("equality", "env=prod"),
    ("in", "topology.kubernetes.io/zone in (zone-a,zone-b)"),
    ("notin", "tier notin (db,cache)"),
    ("exists", "example.com/gpu-count"),
    ("does not exist", "!canary"),
    ("gt", "rank>500"),
    ("AND of 4", "env=prod,tier in (web,api),!canary,rank<900"),
    ("OR of 3 groups", "app=app-7,env=prod || example.com/gpu-count>2 || team in (team-1,team-2),!canary"),
]


def label_sets(count: int, seed: int) -> list[dict[str, str]]:
    """About 8 labels per set: 3 keys every object has, about 5 of 17 optional ones."""
    rng = random.Random(seed)
    optional: list[tuple[str, Callable[[int], str]]] = [
        ("tier", lambda i: rng.choice(["web", "api", "db", "cache"])),
        ("team", lambda i: f"team-{rng.randrange(30)}"),
        ("version", lambda i: f"v1.{rng.randrange(50)}"),
        ("release", lambda i: rng.choice(["stable", "canary"])),
        ("canary", lambda i: "true"),
        ("pool", lambda i: rng.choice(["general", "compute", "memory", "gpu", "spot"])),
        ("rank", lambda i: str(rng.randrange(1000))),
        ("example.com/gpu-count", lambda i: str(rng.randrange(9))),
        ("disktype", lambda i: rng.choice(["ssd", "hdd"])),
        ("kubernetes.io/arch", lambda i: rng.choice(["amd64", "arm64"])),
        ("kubernetes.io/os", lambda i: rng.choice(["linux", "linux", "windows"])),
        (
            "node.kubernetes.io/instance-type",
            lambda i: f"m5.{rng.choice(['large', 'xlarge', '2xlarge'])}-{i % 7}",
        ),
        ("owner", lambda i: f"owner-{rng.randrange(500)}"),
        ("pod-template-hash", lambda i: f"{rng.getrandbits(40):010x}"),
        ("kubernetes.io/hostname", lambda i: f"node-{i:06d}"),
        ("priority", lambda i: str(rng.randrange(-5, 100))),
        ("topology.kubernetes.io/region", lambda i: rng.choice(["eu-1", "us-1"])),
    ]
    rows = []
    for i in range(count):
        labels = {
            "app": f"app-{rng.randrange(200)}",
            "env": rng.choice(["prod", "staging", "dev"]),
            "topology.kubernetes.io/zone": f"zone-{'abcdef'[rng.randrange(6)]}",
        }
        for key, make in rng.sample(optional, rng.randint(3, 7)):
            labels[key] = make(i)
        rows.append(labels)
    return rows


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7, help="best of this many runs (the scalar loop: 3)")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)

    rows = label_sets(args.rows, args.seed)
    start = time.perf_counter()
    table = LabelTable(rows, capacity=args.rows)
    build = time.perf_counter() - start
    keys = table.keys()
    mean_labels = sum(map(len, rows)) / len(rows)
    print(f"LabelTable: {len(table):,} rows, {len(keys)} keys, {mean_labels:.1f} labels per row", end="")
    print(f", built in {build:.2f} s")
    vocab = sorted((len(table.vocabulary(k)), k) for k in keys)
    print(f"vocabulary sizes: {vocab[0][0]} ({vocab[0][1]}) to {vocab[-1][0]:,} ({vocab[-1][1]})")
    subset = np.sort(
        np.random.default_rng(args.seed).choice(len(table), size=len(table) // 10, replace=False)
    )

    header = ("selector", "matched", "match_table", "10% rows", "scalar loop", "speed-up")
    print("\n{:16} {:>8} {:>12} {:>10} {:>12} {:>9}".format(*header))
    for name, text in SELECTORS:
        selector = parse(text)
        vector = selector.match_table(table)
        scalar = [selector.matches(r) for r in rows]
        if vector.tolist() != scalar:
            print(f"MISMATCH for {text!r}", file=sys.stderr)
            return 1
        t_vector = best_of(args.repeat, lambda s=selector: s.match_table(table))
        t_subset = best_of(args.repeat, lambda s=selector: s.match_table(table, subset))
        t_scalar = best_of(3, lambda s=selector: [s.matches(r) for r in rows])
        print(
            f"{name:16} {int(vector.sum()):>8,} {t_vector * 1e3:>9.2f} ms {t_subset * 1e3:>7.2f} ms"
            f" {t_scalar * 1e3:>9.1f} ms {t_scalar / t_vector:>8.0f}x"
        )
    print(
        f"\n(best of {args.repeat} runs; scalar loop best of 3; {len(subset):,}-row subset given as indices)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
