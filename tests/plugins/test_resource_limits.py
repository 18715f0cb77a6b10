"""Ported from ``pkg/scheduler/framework/plugins/noderesources/resource_limits_test.go``.

The plugin left the tree before v1.20; the index holds its v1.17 test, whose table the later
PreScore version (v1.18) kept, with the pre-computation moved from PostFilter to PreScore.

* TestResourceLimits: all 6 cases. The first 5 run through the framework (PreScore, then
  Score). The 6th, "postFilter skipped", calls Score without the pre-computed limits: upstream
  gets an Error status (score 0); here Score raises with upstream's message, which the
  framework reports as an Error. A pod upstream leaves without containers becomes one
  container without limits, which has the same (zero) limits.

Plus ruleset checks: init-container limits (max with the containers' sum), the framework's
report of the missing state, and the ``ResourceLimits`` alias.
"""

import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.status import Code
from ruleset.plugins.noderesources.resource_limits import NodeResourceLimits, PreScoreStateMissing
from tests.factories import Harness, container, decode, make_node, make_pod

NO_RESOURCES = ({},)
CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
MEM_ONLY = ({"cpu": "0", "memory": "2000"}, {"cpu": "0", "memory": "3000"})
CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})


def node(name: str, milli_cpu: int, memory: int) -> dict:
    return make_node(name, allocatable={"cpu": f"{milli_cpu}m", "memory": str(memory)})


def pod(limits: tuple[dict, ...], init: tuple[dict, ...] = ()) -> dict:
    return make_pod("pod",
                    containers=[container(limits=lim or None, name=f"c{i}") for i, lim in enumerate(limits)],
                    init_containers=[container(limits=lim, name=f"i{i}") for i, lim in enumerate(init)])


@pytest.mark.parametrize(("limits", "nodes", "expected"), [
    pytest.param(NO_RESOURCES, [node("machine1", 4000, 10000), node("machine2", 4000, 0),
                                node("machine3", 0, 10000), node("machine4", 0, 0)],
                 [0, 0, 0, 0], id="pod does not specify its resource limits"),
    pytest.param(CPU_ONLY, [node("machine1", 3000, 10000), node("machine2", 2000, 10000)], [1, 0],
                 id="pod only specifies  cpu limits"),
    pytest.param(MEM_ONLY, [node("machine1", 4000, 4000), node("machine2", 5000, 10000)], [0, 1],
                 id="pod only specifies  mem limits"),
    pytest.param(CPU_AND_MEMORY, [node("machine1", 4000, 4000), node("machine2", 5000, 10000)], [1, 1],
                 id="pod specifies both cpu and  mem limits"),
    pytest.param(CPU_AND_MEMORY, [node("machine1", 0, 0)], [0],
                 id="node does not advertise its allocatables"),
])
def test_resource_limits(limits: tuple, nodes: list, expected: list) -> None:
    h = Harness(["NodeResourceLimits"], nodes)
    names = [n["metadata"]["name"] for n in nodes]
    assert h.score(pod(limits)) == dict(zip(names, expected, strict=True))


def test_resource_limits_post_filter_skipped() -> None:
    # "postFilter skipped": Score without the state PreScore writes.
    h = Harness(["NodeResourceLimits"], [node("machine1", 0, 0)])
    with pytest.raises(PreScoreStateMissing) as info:
        NodeResourceLimits().ruleset_score(CycleState(), h.snapshot.all_nodes())
    assert str(info.value) == 'Error reading "PreScoreNodeResourceLimits" from cycleState: not found'


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_missing_state_is_an_error_status() -> None:
    h = Harness(["NodeResourceLimits"], [node("machine1", 4000, 4000)])
    table, status = h.framework.run_score(CycleState(), decode(pod(CPU_AND_MEMORY)), h.snapshot.all_nodes())
    assert table is None
    assert status.code == Code.ERROR
    assert status.reasons == ('plugin "NodeResourceLimits" failed with: PreScoreStateMissing: Error reading '
                              '"PreScoreNodeResourceLimits" from cycleState: not found',)


def test_init_container_limits_take_the_max() -> None:
    # cpu max(1000m, 5000m) = 5000m: fits 6000m only; memory unset (0) never scores.
    h = Harness(["NodeResourceLimits"], [node("small", 4000, 10000), node("big", 6000, 10000)])
    assert h.score(pod(({"cpu": "1000m"},), init=({"cpu": "5000m"},))) == {"small": 0, "big": 1}


def test_exactly_equal_limit_fits() -> None:
    h = Harness(["NodeResourceLimits"], [node("equal", 3000, 1), node("less", 2999, 1)])
    assert h.score(pod(CPU_ONLY)) == {"equal": 1, "less": 0}


def test_alias() -> None:
    h = Harness(["ResourceLimits"], [node("machine1", 3000, 10000)])
    assert h.score(pod(CPU_ONLY)) == {"machine1": 1}
