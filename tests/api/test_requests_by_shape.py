"""What a pod asks for is worked out once per shape (containers' requests, init containers,
overhead, pod-level requests) and release accounting: pods of one shape share the answer,
other shapes or accountings do not, and each pod still gets a dict of its own."""

from __future__ import annotations

from tests.api.test_pod_requests_releases import at, cpu, init, pod_of
from tests.factories import container


def test_pods_of_one_shape_share_the_answer_not_the_dict() -> None:
    first, second = (at(pod_of([container(cpu("250m"))]), "1.34") for _ in range(2))
    assert first.requests == second.requests == {"cpu": 250}
    assert first.requests is not second.requests
    first.requests["cpu"] = 1  # a caller's change stays with its pod
    assert at(pod_of([container(cpu("250m"))]), "1.34").requests == {"cpu": 250}


def test_the_shape_covers_everything_the_accounting_reads() -> None:
    sidecar = pod_of([container(cpu("1"))], [init("2", always=True)])
    plain_init = pod_of([container(cpu("1"))], [init("2")])
    assert (at(sidecar, "1.34").requests, at(plain_init, "1.34").requests) == ({"cpu": 3000}, {"cpu": 2000})
    # 1.20 counts the same sidecar pod as an ordinary init container: another accounting.
    assert at(pod_of([container(cpu("1"))], [init("2", always=True)]), "1.20").requests == {"cpu": 2000}
    with_overhead = at(pod_of([container(cpu("1"))], overhead=cpu("500m")), "1.34")
    assert with_overhead.requests == {"cpu": 1500}
    pod_level = at(pod_of([container(cpu("1"))], pod_requests=cpu("3")), "1.34")
    assert (pod_level.requests, pod_level.non_zero_requests) == ({"cpu": 3000}, (3000, 200 * 1024 ** 2))
    assert at(pod_of([container(cpu("1"))]), "1.34").non_zero_requests == (1000, 200 * 1024 ** 2)
