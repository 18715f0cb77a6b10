"""Ported from ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go`` (v1.20).

* TestNodeResourcesBalancedAllocation: all 9 cases. Upstream turns the
  BalanceAttachedNodeVolumes gate on for the whole table; here every case runs with
  ``balanceAttachedNodeVolumes = true``, which stands in for it. Only the last case has a pod
  with volumes. Upstream sets each node's ``AllocatableVolumesCount`` by hand to
  ``max(5 - volumes already on the node, 0)``; here the nodes of that case report
  ``attachable-volumes-aws-ebs: 5`` and the plugin subtracts the volumes of their pods, which
  gives the same counts. Pods upstream leaves without containers become one container
  requesting ``cpu: 0, memory: 0`` (the non-zero defaults apply only to absent keys, so both
  request nothing).

Plus ruleset checks of the ``balanceAttachedNodeVolumes`` arg: off (the default) ignores
volumes; several ``attachable-volumes-*`` resources add up; a volume fraction of 1 scores 0;
a node with no attachable volume left, or reporting none, falls back to ``1 - |Δ|``.
"""

import pytest

from tests.factories import Harness, container, make_node, make_pod

LABELS1 = {"foo": "bar", "baz": "blah"}
LABELS2 = {"bar": "foo", "baz": "blah"}
NOTHING = {"cpu": "0", "memory": "0"}
CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
ZERO_PAIR = (NOTHING, NOTHING)
WITH_VOLUMES = ("NodeResourcesBalancedAllocation", {"balanceAttachedNodeVolumes": True})


def node(name: str, milli_cpu: int, memory: int, volumes: int | None = None) -> dict:
    """``makeNode``: cpu and memory allocatable only (no pods); optionally attachable volumes."""
    allocatable = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    if volumes is not None:
        allocatable["attachable-volumes-aws-ebs"] = str(volumes)
    return make_node(name, allocatable=allocatable)


def ebs(volume_id: str) -> dict:
    return {"name": volume_id, "awsElasticBlockStore": {"volumeID": volume_id}}


def pod(requests: tuple[dict, ...] = (NOTHING,), name: str = "pod", node_name: str | None = None,
        labels: dict | None = None, volumes: tuple[dict, ...] = ()) -> dict:
    return make_pod(name, labels=labels, node_name=node_name, volumes=volumes,
                    containers=[container(r, name=f"c{i}") for i, r in enumerate(requests)])


def placed(*specs: tuple) -> list[dict]:
    """Existing pods from (requests, node, labels, volumes) tuples."""
    out = []
    for i, (requests, node_name, *rest) in enumerate(specs):
        labels = rest[0] if rest else None
        volumes = rest[1] if len(rest) > 1 else ()
        out.append(pod(requests, f"existing{i}", node_name, labels, volumes))
    return out


CASES = [
    pytest.param(pod(), [node("machine1", 4000, 10000), node("machine2", 4000, 10000)], [], [100, 100],
                 id="nothing scheduled, nothing requested"),
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 4000, 10000), node("machine2", 6000, 10000)], [],
                 [75, 100], id="nothing scheduled, resources requested, differently sized machines"),
    pytest.param(pod(), [node("machine1", 4000, 10000), node("machine2", 4000, 10000)],
                 placed((ZERO_PAIR, "machine1", LABELS2), (ZERO_PAIR, "machine1", LABELS1),
                        (ZERO_PAIR, "machine2", LABELS1), (ZERO_PAIR, "machine2", LABELS1)),
                 [100, 100], id="no resources requested, pods scheduled"),
    pytest.param(pod(), [node("machine1", 10000, 20000), node("machine2", 10000, 20000)],
                 placed((CPU_ONLY, "machine1", LABELS2), (CPU_ONLY, "machine1", LABELS1),
                        (CPU_ONLY, "machine2", LABELS1), (CPU_AND_MEMORY, "machine2", LABELS1)),
                 [40, 65], id="no resources requested, pods scheduled with resources"),
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 10000, 20000), node("machine2", 10000, 20000)],
                 placed((CPU_ONLY, "machine1"), (CPU_AND_MEMORY, "machine2")),
                 [65, 90], id="resources requested, pods scheduled with resources"),
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 10000, 20000), node("machine2", 10000, 50000)],
                 placed((CPU_ONLY, "machine1"), (CPU_AND_MEMORY, "machine2")),
                 [65, 60],
                 id="resources requested, pods scheduled with resources, differently sized machines"),
    pytest.param(pod(CPU_ONLY), [node("machine1", 4000, 10000), node("machine2", 4000, 10000)],
                 placed((CPU_ONLY, "machine1"), (CPU_AND_MEMORY, "machine2")),
                 [0, 0], id="requested resources exceed node capacity"),
    pytest.param(pod(), [node("machine1", 0, 0), node("machine2", 0, 0)],
                 placed((CPU_ONLY, "machine1"), (CPU_AND_MEMORY, "machine2")),
                 [0, 0], id="zero node resources, pods scheduled with resources"),
    # machine3: cpu 3000/3500, memory 5000/40000, volumes 1/5 -> 1 - variance -> 89
    # machine4: cpu 3000/4000, memory 5000/10000, volumes 1/(5 - 3) -> 98
    pytest.param(pod(volumes=(ebs("ovp2"),)),
                 [node("machine3", 3500, 40000, 5), node("machine4", 4000, 10000, 5)],
                 placed((CPU_AND_MEMORY, "machine3"), (CPU_AND_MEMORY, "machine4", None, (ebs("ovp"),)),
                        (ZERO_PAIR, "machine4", None, (ebs("ovp1"),)),
                        (ZERO_PAIR, "machine4", None, (ebs("ovp1"),))),
                 [89, 98], id="Include volume count on a node for balanced resource allocation"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "expected"), CASES)
def test_node_resources_balanced_allocation(incoming: dict, nodes: list, existing: list,
                                            expected: list) -> None:
    h = Harness([WITH_VOLUMES], [*nodes, *existing])
    names = [n["metadata"]["name"] for n in nodes]
    assert h.score(incoming) == dict(zip(names, expected, strict=True))


# ---------------------------------------------------------------------------------------------------
# ruleset checks: the balanceAttachedNodeVolumes arg
# ---------------------------------------------------------------------------------------------------

VOLUME_CLUSTER = [node("machine3", 3500, 40000, 5), node("machine4", 4000, 10000, 5),
                  *placed((CPU_AND_MEMORY, "machine3"), (CPU_AND_MEMORY, "machine4", None, (ebs("ovp"),)),
                          (ZERO_PAIR, "machine4", None, (ebs("ovp1"),)),
                          (ZERO_PAIR, "machine4", None, (ebs("ovp1"),)))]


@pytest.mark.parametrize("args", [pytest.param({}, id="default"),
                                  pytest.param({"balanceAttachedNodeVolumes": False}, id="false")])
def test_volumes_ignored_without_the_arg(args: dict) -> None:
    # The gate is off: 1 - |3000/3500 - 5000/40000| -> 26; 1 - |0.75 - 0.5| -> 75.
    h = Harness([("NodeResourcesBalancedAllocation", args)], VOLUME_CLUSTER)
    assert h.score(pod(volumes=(ebs("ovp2"),))) == {"machine3": 26, "machine4": 75}


def test_pod_without_volumes_ignores_volumes() -> None:
    h = Harness([WITH_VOLUMES], VOLUME_CLUSTER)
    assert h.score(pod()) == {"machine3": 26, "machine4": 75}


def test_attachable_volume_resources_add_up() -> None:
    # 2 EBS + 3 GCE PD - 1 volume in use = 4: cpu 0.25, memory 0.1, volumes 1/4 -> 99.
    # (EBS alone would leave 1 -> fraction 1 -> 0.)
    nodes = [make_node("n", allocatable={"cpu": "4000m", "memory": "10000", "attachable-volumes-aws-ebs": "2",
                                         "attachable-volumes-gce-pd": "3"})]
    existing = placed((ZERO_PAIR, "n", None, (ebs("v0"),)))
    h = Harness([WITH_VOLUMES], [*nodes, *existing])
    incoming = pod(({"cpu": "1000m", "memory": "1000"},), volumes=(ebs("v1"),))
    assert h.score(incoming) == {"n": 99}


def test_volume_fraction_of_one_scores_zero_and_no_room_falls_back() -> None:
    # full: 4 - 3 = 1 attachable, the pod wants 1 -> fraction 1 -> 0.
    # exhausted: 3 - 3 = 0 attachable -> no volume term: 1 - |0.25 - 0.1| -> 85.
    # plain: no attachable-volumes resource at all -> 85 too.
    nodes = [node("full", 4000, 10000, 4), node("exhausted", 4000, 10000, 3), node("plain", 4000, 10000)]
    existing = [pod((NOTHING,), f"e{n}{i}", n, None, (ebs(f"v{n}{i}"),))
                for n in ("full", "exhausted", "plain") for i in range(3)]
    h = Harness([WITH_VOLUMES], [*nodes, *existing])
    incoming = pod(({"cpu": "1000m", "memory": "1000"},), volumes=(ebs("new"),))
    assert h.score(incoming) == {"full": 0, "exhausted": 85, "plain": 85}


def test_default_requests_count_for_containers_without_requests() -> None:
    # A container without requests counts as 100m cpu and 200Mi memory on both sides:
    # cpu (100 + 100)/1000 = 0.2, memory 2 * 200Mi / 1Gi = 0.390625 -> int((1 - 0.190625) * 100) = 80.
    nodes = [make_node("n", allocatable={"cpu": "1000m", "memory": "1Gi"})]
    existing = make_pod("existing", node_name="n", containers=[container()])
    h = Harness(["NodeResourcesBalancedAllocation"], [*nodes, existing])
    assert h.score(make_pod(containers=[container()])) == {"n": 80}
