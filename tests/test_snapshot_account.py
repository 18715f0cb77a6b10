"""``Snapshot._account`` keeps per-node sums in Python integers wrapped to int64 per cell: the
same columns as int64 additions wrapping as Go's do, through randomised adds and removals of
pods with huge requests (ruleset's own optimisation: no upstream table)."""

from __future__ import annotations

import random

import pytest

from ruleset.quantity import wrap_int64
from tests.factories import build_cluster, decode, make_node, make_pod

HUGE = [0, 1, 7, 2**62 + 5, 2**63 - 1, -(2**63) + 1, -5]


@pytest.mark.parametrize("seed", range(5), ids=lambda s: f"seed{s}")
def test_sums_wrap_as_int64(seed: int) -> None:
    rng = random.Random(seed)
    snapshot = build_cluster([make_node(f"n{i}") for i in range(3)]).snapshot
    base = {name: snapshot.requested(name).tolist() for name in ("cpu", "memory", "example.com/x")}
    base_nz = (snapshot.non_zero_cpu.tolist(), snapshot.non_zero_memory.tolist(), snapshot.pod_count.tolist())
    pods = []
    for i in range(12):
        pod = decode(make_pod(f"p{i}"))
        pod.__dict__["requests"] = {"cpu": rng.choice(HUGE), "memory": rng.choice(HUGE),
                                    "example.com/x": rng.choice(HUGE)}
        pod.__dict__["non_zero_requests"] = (rng.choice(HUGE), rng.choice(HUGE))
        pods.append(pod)
    where: dict[int, int] = {}
    for _ in range(60):
        i = rng.randrange(len(pods))
        if i in where:
            snapshot.remove_pod(pods[i])
            del where[i]
        else:
            where[i] = rng.randrange(3)
            snapshot.add_pod(pods[i], where[i])
        for node in range(3):
            on = [pods[k] for k, n in where.items() if n == node]
            for name in base:
                expected = wrap_int64(base[name][node] + sum(p.requests[name] for p in on))
                assert snapshot.requested(name)[node] == expected
            assert snapshot.non_zero_cpu[node] == wrap_int64(base_nz[0][node] + sum(p.non_zero_requests[0] for p in on))
            assert snapshot.non_zero_memory[node] == wrap_int64(
                base_nz[1][node] + sum(p.non_zero_requests[1] for p in on))
            assert snapshot.pod_count[node] == base_nz[2][node] + len(on)
