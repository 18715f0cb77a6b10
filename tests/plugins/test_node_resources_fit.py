"""Ported from ``pkg/scheduler/framework/plugins/noderesources/fit_test.go`` and the Fit part of
``pkg/scheduler/apis/config/validation/validation_pluginargs_test.go``.

The index holds fit_test.go of v1.18 and of v1.22+, not v1.20; the tables below are the
v1.22 ones (a superset of v1.18's, plus the ``ignoredResourceGroups`` cases that v1.19
added), checked against v1.20's ``fitsRequest`` and kept at v1.20 behaviour:

* TestEnoughRequests: 34 cases. The last one, "skip checking extended resource request with
  quantity zero via resource groups", comes from a later change that skips zero requests;
  v1.20 checks ``alloc < 0 + used`` for every scalar key the pod lists, so the node (5
  allocatable, 6 used) gives "Insufficient example.com/aaa" instead of upstream's success.
  Upstream's ``wantInsufficientResources`` (Requested/Used/Capacity) has no counterpart; the
  status reasons carry the same verdicts.
* TestPreFilterDisabled: 1 case (Filter without PreFilter is an Error with v1.20's message).
* TestNotEnoughRequests: all 4 cases.
* TestStorageRequests: all 5 cases.
* TestValidateFitArgs: the 8 ``IgnoredResources``/``IgnoredResourceGroups`` cases (v1.20 runs
  the same checks in ``NewFit``'s ``validateFitArgs``). Upstream only checks that the error
  contains a fragment; here every message is exact. The 2 ``ScoringStrategy`` cases are
  dropped: v1.20 args have no such field.

Upstream builds NodeInfos directly; here the node gets a real pod holding the "used"
resources, and a pod with no containers (``&v1.Pod{}``) becomes one container requesting
``cpu: 0, memory: 0``, which the filter treats the same way (nothing requested).

Plus ruleset checks: several failing resources on one node in a batch with passing nodes,
scalar resources reported in name order, and an ignored resource that is not extended.
"""

import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import check_plugin_args
from ruleset.framework.results import NodeStatuses
from ruleset.framework.status import Code, Status
from ruleset.plugins.noderesources import NodeResourcesFit
from tests.factories import Harness, build_cluster, container, decode, make_node, make_pod

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"

SUCCESS = ("Success", ())


def unschedulable(*resources: str) -> tuple:
    return ("Unschedulable", tuple(f"Insufficient {r}" for r in resources))


def req(cpu: int = 0, mem: int = 0, storage: int | None = None, **scalars: int) -> dict:
    """``newResourcePod``'s request list: cpu in millicores, memory in bytes, always both."""
    out = {"cpu": f"{cpu}m", "memory": str(mem)}
    if storage is not None:
        out["ephemeral-storage"] = str(storage)
    out.update({name: str(value) for name, value in scalars.items()})
    return out


def scalars(**named: int) -> dict:
    """Keyword-safe scalar names: ext_a -> example.com/aaa, and so on."""
    names = {"ext_a": EXT_A, "ext_b": EXT_B, "k8s_a": K8S_IO_A, "k8s_b": K8S_IO_B, "huge_a": HUGE_A}
    return {names[k]: v for k, v in named.items()}


def pod(*containers: dict, init: tuple[dict, ...] = (), overhead: dict | None = None) -> dict:
    if not containers:
        containers = (req(),)  # &v1.Pod{}: nothing requested
    return make_pod("pod", containers=[container(r, name=f"c{i}") for i, r in enumerate(containers)],
                    init_containers=[container(r, name=f"i{i}") for i, r in enumerate(init)],
                    overhead=overhead)


def r(cpu: int = 0, mem: int = 0, storage: int | None = None, **named: int) -> dict:
    return req(cpu, mem, storage, **scalars(**named))


def fit_node(pods: int = 32, ext_a: int = 5, storage: int = 20, huge: int = 5) -> dict:
    """``makeAllocatableResources(10, 20, pods, ext_a, storage, huge)``."""
    return make_node("node", allocatable={"cpu": "10m", "memory": "20", "pods": str(pods), EXT_A: str(ext_a),
                                          "ephemeral-storage": str(storage), HUGE_A: str(huge)})


def used(*containers: dict) -> dict:
    """The pod already on the node (``framework.NewNodeInfo(newResourcePod(...))``)."""
    return make_pod("used", node_name="node",
                    containers=[container(c, name=f"c{i}") for i, c in enumerate(containers or (req(),))])


ENOUGH_CASES = [
    pytest.param(pod(), used(r(10, 20)), {}, SUCCESS, id="no resources requested always fits"),
    pytest.param(pod(r(1, 1)), used(r(10, 20)), {}, unschedulable("cpu", "memory"),
                 id="too many resources fails"),
    pytest.param(pod(r(1, 1), init=(r(3, 1),)), used(r(8, 19)), {}, unschedulable("cpu"),
                 id="too many resources fails due to init container cpu"),
    pytest.param(pod(r(1, 1), init=(r(3, 1), r(2, 1))), used(r(8, 19)), {}, unschedulable("cpu"),
                 id="too many resources fails due to highest init container cpu"),
    pytest.param(pod(r(1, 1), init=(r(1, 3),)), used(r(9, 19)), {}, unschedulable("memory"),
                 id="too many resources fails due to init container memory"),
    pytest.param(pod(r(1, 1), init=(r(1, 3), r(1, 2))), used(r(9, 19)), {}, unschedulable("memory"),
                 id="too many resources fails due to highest init container memory"),
    pytest.param(pod(r(1, 1), init=(r(1, 1),)), used(r(9, 19)), {}, SUCCESS,
                 id="init container fits because it's the max, not sum, of containers and init containers"),
    pytest.param(pod(r(1, 1), init=(r(1, 1), r(1, 1))), used(r(9, 19)), {}, SUCCESS,
                 id="multiple init containers fit because it's the max, not sum, of containers and init "
                    "containers"),
    pytest.param(pod(r(1, 1)), used(r(5, 5)), {}, SUCCESS, id="both resources fit"),
    pytest.param(pod(r(2, 1)), used(r(9, 5)), {}, unschedulable("cpu"), id="one resource memory fits"),
    pytest.param(pod(r(1, 2)), used(r(5, 19)), {}, unschedulable("memory"), id="one resource cpu fits"),
    pytest.param(pod(r(5, 1)), used(r(5, 19)), {}, SUCCESS, id="equal edge case"),
    pytest.param(pod(r(4, 1), init=(r(5, 1),)), used(r(5, 19)), {}, SUCCESS,
                 id="equal edge case for init container"),
    pytest.param(pod(r(ext_a=1)), used(r()), {}, SUCCESS, id="extended resource fits"),
    pytest.param(pod(r(), init=(r(ext_a=1),)), used(r()), {}, SUCCESS,
                 id="extended resource fits for init container"),
    pytest.param(pod(r(1, 1, ext_a=10)), used(r(0, 0, ext_a=0)), {}, unschedulable(EXT_A),
                 id="extended resource capacity enforced"),
    pytest.param(pod(r(), init=(r(1, 1, ext_a=10),)), used(r(0, 0, ext_a=0)), {}, unschedulable(EXT_A),
                 id="extended resource capacity enforced for init container"),
    pytest.param(pod(r(1, 1, ext_a=1)), used(r(0, 0, ext_a=5)), {}, unschedulable(EXT_A),
                 id="extended resource allocatable enforced"),
    pytest.param(pod(r(), init=(r(1, 1, ext_a=1),)), used(r(0, 0, ext_a=5)), {}, unschedulable(EXT_A),
                 id="extended resource allocatable enforced for init container"),
    pytest.param(pod(r(1, 1, ext_a=3), r(1, 1, ext_a=3)), used(r(0, 0, ext_a=2)), {}, unschedulable(EXT_A),
                 id="extended resource allocatable enforced for multiple containers"),
    pytest.param(pod(r(), init=(r(1, 1, ext_a=3), r(1, 1, ext_a=3))), used(r(0, 0, ext_a=2)), {}, SUCCESS,
                 id="extended resource allocatable admits multiple init containers"),
    pytest.param(pod(r(), init=(r(1, 1, ext_a=6), r(1, 1, ext_a=3))), used(r(0, 0, ext_a=2)), {},
                 unschedulable(EXT_A),
                 id="extended resource allocatable enforced for multiple init containers"),
    pytest.param(pod(r(1, 1, ext_b=1)), used(r(0, 0)), {}, unschedulable(EXT_B),
                 id="extended resource allocatable enforced for unknown resource"),
    pytest.param(pod(r(), init=(r(1, 1, ext_b=1),)), used(r(0, 0)), {}, unschedulable(EXT_B),
                 id="extended resource allocatable enforced for unknown resource for init container"),
    pytest.param(pod(r(1, 1, k8s_a=10)), used(r(0, 0)), {}, unschedulable(K8S_IO_A),
                 id="kubernetes.io resource capacity enforced"),
    pytest.param(pod(r(), init=(r(1, 1, k8s_b=10),)), used(r(0, 0)), {}, unschedulable(K8S_IO_B),
                 id="kubernetes.io resource capacity enforced for init container"),
    pytest.param(pod(r(1, 1, huge_a=10)), used(r(0, 0, huge_a=0)), {}, unschedulable(HUGE_A),
                 id="hugepages resource capacity enforced"),
    pytest.param(pod(r(), init=(r(1, 1, huge_a=10),)), used(r(0, 0, huge_a=0)), {}, unschedulable(HUGE_A),
                 id="hugepages resource capacity enforced for init container"),
    pytest.param(pod(r(1, 1, huge_a=3), r(1, 1, huge_a=3)), used(r(0, 0, huge_a=2)), {},
                 unschedulable(HUGE_A),
                 id="hugepages resource allocatable enforced for multiple containers"),
    pytest.param(pod(r(1, 1, ext_b=1)), used(r(0, 0)), {"ignoredResources": [EXT_B]}, SUCCESS,
                 id="skip checking ignored extended resource"),
    pytest.param(pod(r(1, 1), overhead={"cpu": "3m", "memory": "13"}), used(r(5, 5)), {}, SUCCESS,
                 id="resources + pod overhead fits"),
    pytest.param(pod(r(1, 1), overhead={"cpu": "1m", "memory": "15"}), used(r(5, 5)), {},
                 unschedulable("memory"),
                 id="requests + overhead does not fit for memory"),
    pytest.param(pod(r(1, 1, ext_b=1, k8s_a=1)), used(r(0, 0)), {"ignoredResourceGroups": ["example.com"]},
                 unschedulable(K8S_IO_A), id="skip checking ignored extended resource via resource groups"),
    # v1.20 still checks a zero request (upstream, later: success).
    pytest.param(pod(r(1, 1, ext_a=0)), used(r(0, 0, ext_a=6)), {}, unschedulable(EXT_A),
                 id="skip checking extended resource request with quantity zero via resource groups"),
]


@pytest.mark.parametrize(("incoming", "existing", "args", "expected"), ENOUGH_CASES)
def test_enough_requests(incoming: dict, existing: dict, args: dict, expected: tuple) -> None:
    h = Harness([("NodeResourcesFit", args)], [fit_node(), existing])
    assert h.filter(incoming) == {"node": expected}


MISSING_STATE = 'error reading "PreFilterNodeResourcesFit" from cycleState: not found'


def test_pre_filter_disabled() -> None:
    cluster = build_cluster([make_node("node")])
    result = NodeResourcesFit().ruleset_filter(CycleState(), decode(make_pod()), cluster.snapshot.all_nodes())
    assert result.status(0) == Status(Code.ERROR, (MISSING_STATE,))


def test_pre_filter_disabled_fails_the_cycle() -> None:
    # Through the framework, the Error aborts the cycle with upstream's filter wrapping.
    h = Harness(["NodeResourcesFit"], [make_node("node")])
    _, status = h.framework.run_filter(CycleState(), decode(make_pod()), h.snapshot.all_nodes(),
                                       NodeStatuses(1))
    message = f'running "NodeResourcesFit" filter plugin for pod "pod": {MISSING_STATE}'
    assert status == Status(Code.ERROR, (message,), "NodeResourcesFit")


TOO_MANY_PODS = ("Unschedulable", ("Too many pods",))


@pytest.mark.parametrize(("incoming", "existing"), [
    pytest.param(pod(), used(r(10, 20)),
                 id="even without specified resources predicate fails when there's no space for additional "
                    "pod"),
    pytest.param(pod(r(1, 1)), used(r(5, 5)),
                 id="even if both resources fit predicate fails when there's no space for additional pod"),
    pytest.param(pod(r(5, 1)), used(r(5, 19)),
                 id="even for equal edge case predicate fails when there's no space for additional pod"),
    pytest.param(pod(r(5, 1), init=(r(5, 1),)), used(r(5, 19)),
                 id="even for equal edge case predicate fails when there's no space for additional pod "
                    "due to init container"),
])
def test_not_enough_requests(incoming: dict, existing: dict) -> None:
    h = Harness(["NodeResourcesFit"], [fit_node(pods=1, ext_a=0, storage=0, huge=0), existing])
    assert h.filter(incoming) == {"node": TOO_MANY_PODS}


@pytest.mark.parametrize(("incoming", "existing", "expected"), [
    pytest.param(pod(r(1, 1)), used(r(10, 10)), unschedulable("cpu"), id="due to container scratch disk"),
    pytest.param(pod(r(1, 1)), used(r(2, 10)), SUCCESS, id="pod fit"),
    pytest.param(pod(r(storage=25)), used(r(2, 2)), unschedulable("ephemeral-storage"),
                 id="storage ephemeral local storage request exceeds allocatable"),
    pytest.param(pod(r(storage=5)), used(r(2, 2, storage=10)), SUCCESS,
                 id="ephemeral local storage is sufficient"),
    pytest.param(pod(r(storage=10)), used(r(2, 2)), SUCCESS, id="pod fits"),
])
def test_storage_requests(incoming: dict, existing: dict, expected: tuple) -> None:
    h = Harness(["NodeResourcesFit"], [fit_node(), existing])
    assert h.filter(incoming) == {"node": expected}


QUALIFIED_NAME_REGEX_ERROR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
TOO_MANY_SLASHES_ERROR = (
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
    "(e.g. 'example.com/MyName')")
LONG_VALUE = "longvalue" + "a" * 64
LONG_GROUP = "a" * 64


@pytest.mark.parametrize(("args", "expected"), [
    pytest.param({"ignoredResources": [LONG_VALUE]},
                 [(("ignoredResources", 0), f'ignoredResources[0]: Invalid value: "{LONG_VALUE}": '
                                            'name part must be no more than 63 characters')],
                 id="IgnoredResources: too long value"),
    pytest.param({"ignoredResources": ["example.com/"]},
                 [(("ignoredResources", 0), 'ignoredResources[0]: Invalid value: "example.com/": '
                                            'name part must be non-empty'),
                  (("ignoredResources", 0), 'ignoredResources[0]: Invalid value: "example.com/": '
                                            + QUALIFIED_NAME_REGEX_ERROR)],
                 id="IgnoredResources: name is empty"),
    pytest.param({"ignoredResources": ["example.com/aaa/bbb"]},
                 [(("ignoredResources", 0), 'ignoredResources[0]: Invalid value: "example.com/aaa/bbb": '
                                            + TOO_MANY_SLASHES_ERROR)],
                 id="IgnoredResources: name has too many slash"),
    pytest.param({"ignoredResources": ["example.com"]}, [], id="IgnoredResources: valid args"),
    pytest.param({"ignoredResourceGroups": ["example.com"]}, [], id="IgnoredResourceGroups: valid args "),
    pytest.param({"ignoredResourceGroups": ["example.com/"]},
                 [(("ignoredResourceGroups", 0), 'ignoredResourceGroups[0]: Invalid value: "example.com/": '
                                                 "resource group name can't contain '/'"),
                  (("ignoredResourceGroups", 0), 'ignoredResourceGroups[0]: Invalid value: "example.com/": '
                                                 'name part must be non-empty'),
                  (("ignoredResourceGroups", 0), 'ignoredResourceGroups[0]: Invalid value: "example.com/": '
                                                 + QUALIFIED_NAME_REGEX_ERROR)],
                 id="IgnoredResourceGroups: illegal args"),
    pytest.param({"ignoredResourceGroups": [LONG_GROUP]},
                 [(("ignoredResourceGroups", 0), f'ignoredResourceGroups[0]: Invalid value: "{LONG_GROUP}": '
                                                 'name part must be no more than 63 characters')],
                 id="IgnoredResourceGroups: name is too long"),
    pytest.param({"ignoredResourceGroups": ["example.com/aa"]},
                 [(("ignoredResourceGroups", 0), 'ignoredResourceGroups[0]: Invalid value: "example.com/aa": '
                                                 "resource group name can't contain '/'")],
                 id="IgnoredResourceGroups: name cannot be contain slash"),
])
def test_validate_fit_args(args: dict, expected: list) -> None:
    _, problems = check_plugin_args(NodeResourcesFit, args)
    assert problems == expected


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_every_failing_resource_is_reported_per_node_in_one_batch() -> None:
    nodes = [
        make_node("roomy", allocatable={"cpu": "4", "memory": "8Gi", "pods": "10", EXT_A: "4", EXT_B: "4"}),
        make_node("no-cpu", allocatable={"cpu": "1", "memory": "8Gi", "pods": "10", EXT_A: "4", EXT_B: "4"}),
        make_node("full", allocatable={"cpu": "1", "memory": "1Gi", "pods": "0", EXT_A: "1"}),
        make_node("busy", allocatable={"cpu": "4", "memory": "8Gi", "pods": "1", EXT_A: "4", EXT_B: "4"}),
    ]
    existing = make_pod("existing", node_name="busy", requests={"cpu": "1"})
    h = Harness(["NodeResourcesFit"], [*nodes, existing])
    # Scalars are reported in name order: example.com/aaa before example.com/bbb.
    incoming = make_pod(requests={"cpu": "2", "memory": "2Gi", EXT_B: "2", EXT_A: "2"})
    assert h.filter(incoming) == {
        "roomy": SUCCESS,
        "no-cpu": unschedulable("cpu"),
        "full": ("Unschedulable", ("Too many pods", "Insufficient cpu", "Insufficient memory",
                                   f"Insufficient {EXT_A}", f"Insufficient {EXT_B}")),
        "busy": TOO_MANY_PODS,
    }


def test_ignored_resources_only_apply_to_extended_resources() -> None:
    # hugepages-2Mi is not an extended resource, so listing it (or its "group") ignores nothing.
    args = {"ignoredResources": [HUGE_A], "ignoredResourceGroups": ["kubernetes.io"]}
    h = Harness([("NodeResourcesFit", args)], [fit_node(huge=0)])
    assert h.filter(pod(r(1, 1, huge_a=1, k8s_a=1))) == {"node": unschedulable(HUGE_A, K8S_IO_A)}
