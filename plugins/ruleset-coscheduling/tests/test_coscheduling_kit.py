"""Coscheduling through ruleset's plugin test kit (``ruleset.testing``), one hook at a time.

Covers: the conformance checks (default and custom args); PreFilter's verdict on every node
for a pod whose group has too few pods (scheduler-plugins' message), enough pods, no group,
siblings of another namespace or group, ``defaultMinAvailable``, and min-available
annotations read as Go's ``strconv.Atoi`` reads them; the args messages from ``check_args``
and from ``run_plugin`` (schema, then ``validate_args``); the QueueSort order of pods built
with the kit. The whole scheduling loop (Permit, Unreserve, time-outs) is in
test_coscheduling.py. Needs the package installed (``pip install plugins/ruleset-coscheduling``).
"""

from __future__ import annotations

from typing import Any

import pytest
from ruleset_coscheduling import MIN_AVAILABLE_ANNOTATION, POD_GROUP_LABEL, Coscheduling

from ruleset import Code
from ruleset.framework.runtime import FrameworkError
from ruleset.scheduler.queue import SchedulingQueue
from ruleset.testing import check_plugin, cluster, node, pod, run_plugin
from ruleset.testing.builders import decode_pod_manifest, pod_manifest
from ruleset.testing.run import plugin_framework, resolve_plugin

NODES = ("n1", "n2")
OK = (Code.SUCCESS, ())


def member(name: str, group: str = "train", min_available: str | None = "3", namespace: str = "ml",
           **more: Any) -> Any:
    """A pod of ``group`` (in ``namespace``) with that min-available annotation (None: none)."""
    annotations = {MIN_AVAILABLE_ANNOTATION: min_available} if min_available is not None else None
    return pod(name, namespace=namespace, labels={POD_GROUP_LABEL: group}, annotations=annotations, **more)


def nodes() -> list:
    return [node(name) for name in NODES]


def verdicts(run: Any) -> dict[str, tuple[Code, tuple[str, ...]]]:
    return {name: (status.code, status.reasons) for name, status in run.filter.items()}


def everywhere(value: Any) -> dict[str, Any]:
    """``value`` for each node of :func:`nodes`."""
    return dict.fromkeys(NODES, value)


def too_few(name: str, current: int, wanted: int) -> tuple[Code, tuple[str, ...]]:
    return (Code.UNSCHEDULABLE, (f"pre-filter pod {name} cannot find enough sibling pods, current pods "
                                 f"number: {current}, minMember of group: {wanted}",))


def bad_annotation(quoted: str) -> tuple[Code, tuple[str, ...]]:
    return (Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            (f"annotation {MIN_AVAILABLE_ANNOTATION} must be an integer of at least 1, got {quoted}",))


@pytest.mark.parametrize("args", [None, {"defaultMinAvailable": 3, "permitWaitingTimeSeconds": 10}],
                         ids=["default-args", "custom-args"])
def test_conforms(args: dict | None) -> None:
    check_plugin(Coscheduling, args=args)


def test_a_group_with_too_few_pods_is_rejected_on_every_node() -> None:
    run = run_plugin(Coscheduling, member("train-0"), nodes(), pods=[member("train-1", node_name="n1")])
    assert verdicts(run) == everywhere(too_few("train-0", 2, 3))
    assert {name: status.plugin for name, status in run.filter.items()} == everywhere("Coscheduling")
    assert run.feasible == []
    assert (run.status.code, run.status.reasons) == (Code.UNSCHEDULABLE, (
        "0/2 nodes are available: 2 pre-filter pod train-0 cannot find enough sibling pods, current pods "
        "number: 2, minMember of group: 3.",))


@pytest.mark.parametrize(("incoming", "running", "args", "expected"), [
    # Two running siblings and the pod itself make three.
    (member("train-0"), [member("train-1", node_name="n1"), member("train-2", node_name="n2")], None,
     everywhere(OK)),
    # The annotation means nothing without the group label.
    (pod("solo", namespace="ml", annotations={MIN_AVAILABLE_ANNOTATION: "5"}), [], None, everywhere(OK)),
    (pod("solo", namespace="ml"), [member("train-1", node_name="n1")], {"defaultMinAvailable": 4},
     everywhere(OK)),
    # A group is named within its namespace: train in default is another group.
    (member("train-0"), [member("train-1", node_name="n1"), member("train-2", namespace="default",
                                                                   node_name="n2")], None,
     everywhere(too_few("train-0", 2, 3))),
    (member("train-0"), [member("train-1", node_name="n1"), member("eval-0", group="eval", node_name="n2")],
     None, everywhere(too_few("train-0", 2, 3))),
    # Without the annotation the arg decides: 1 by default (alone is enough), here 2.
    (member("train-0", min_available=None), [], None, everywhere(OK)),
    (member("train-0", min_available=None), [], {"defaultMinAvailable": 2},
     everywhere(too_few("train-0", 1, 2))),
    # The annotation wins over the arg.
    (member("train-0", min_available="1"), [], {"defaultMinAvailable": 2}, everywhere(OK)),
    # strconv.Atoi takes a sign.
    (member("train-0", min_available="+2"), [member("train-1", node_name="n1")], None, everywhere(OK)),
], ids=["enough-pods", "no-group-with-annotation", "no-group-with-arg", "sibling-in-another-namespace",
        "pod-of-another-group", "default-of-one", "default-from-args", "annotation-over-arg", "plus-sign"])
def test_pre_filter(incoming: Any, running: list, args: dict | None, expected: dict) -> None:
    run = run_plugin(Coscheduling, incoming, nodes(), pods=running, args=args)
    assert verdicts(run) == expected
    assert run.feasible == [name for name, verdict in expected.items() if verdict == OK]


@pytest.mark.parametrize(("annotation", "quoted"), [
    ("two", '"two"'),
    ("0", '"0"'),
    ("-3", '"-3"'),
    ("", '""'),
    # What Python's int() would take and strconv.Atoi does not.
    (" 3", '" 3"'),
    ("1_0", '"1_0"'),
    ("\u0663", '"\u0663"'),  # ARABIC-INDIC DIGIT THREE
    ("9223372036854775808", '"9223372036854775808"'),  # beyond int64
], ids=["word", "zero", "negative", "empty", "space", "underscore", "non-ascii-digit", "overflow"])
def test_a_bad_annotation_is_unresolvable(annotation: str, quoted: str) -> None:
    running = [member("train-1", min_available=annotation, node_name="n1")]
    run = run_plugin(Coscheduling, member("train-0", min_available=annotation), nodes(), pods=running)
    assert verdicts(run) == everywhere(bad_annotation(quoted))
    assert run.feasible == []


def test_a_pending_sibling_counts() -> None:
    running = [member("train-1", node_name="n1"), member("train-2")]
    run = run_plugin(Coscheduling, member("train-0"), nodes(), pods=running)
    assert verdicts(run) == everywhere(OK)


@pytest.mark.parametrize(("raw", "errors"), [
    ({}, []),
    ({"defaultMinAvailable": 3, "permitWaitingTimeSeconds": 0}, []),
    ({"defaultMinAvailable": 0},
     [(("defaultMinAvailable",), "defaultMinAvailable must be at least 1, got 0")]),
    ({"defaultMinAvailable": -2, "permitWaitingTimeSeconds": -1},
     [(("defaultMinAvailable",), "defaultMinAvailable must be at least 1, got -2"),
      (("permitWaitingTimeSeconds",), "permitWaitingTimeSeconds must not be negative, got -1")]),
], ids=["defaults", "valid", "min-available-zero", "both-wrong"])
def test_check_args(raw: dict, errors: list) -> None:
    args, problems = Coscheduling.check_args(raw)
    assert [(p.path, p.message) for p in problems] == errors
    assert args is not None


@pytest.mark.parametrize(("args", "error", "message"), [
    ({"defaultMinAvailable": "3"}, ValueError,
     "invalid args for plugin 'Coscheduling': defaultMinAvailable: '3' is not of type 'integer'"),
    ({"minMember": 3}, ValueError,
     "invalid args for plugin 'Coscheduling': args: Additional properties are not allowed "
     "('minMember' was unexpected)"),
    ({"defaultMinAvailable": 0}, FrameworkError,
     "<input>: plugins.Coscheduling.args.defaultMinAvailable: defaultMinAvailable must be at least 1, got 0"),
    ({"permitWaitingTimeSeconds": -5}, FrameworkError,
     "<input>: plugins.Coscheduling.args.permitWaitingTimeSeconds: permitWaitingTimeSeconds must not be "
     "negative, got -5"),
], ids=["not-an-integer", "unknown-arg", "min-available-zero", "negative-timeout"])
def test_invalid_args_stop_a_run(args: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        run_plugin(Coscheduling, member("train-0"), nodes(), args=args)
    assert type(raised.value) is error
    assert str(raised.value) == message


# ------------------------------------------------------------------------------- QueueSort
def created(at: str, name: str, group: str | None = None, **more: Any) -> Any:
    """A pod created at ``at`` (RFC 3339), of ``group`` when given."""
    labels = {POD_GROUP_LABEL: group} if group else None
    raw = pod_manifest(name, namespace="ml", labels=labels, **more)
    raw["metadata"]["creationTimestamp"] = at
    return decode_pod_manifest(raw)


def queue_order(pods: list) -> list[str]:
    """The order the scheduling queue pops ``pods`` in with Coscheduling as the QueueSort, as a run
    starts: every pod pending, each entering at its creation time."""
    state = cluster([node("n1")], pods)
    cls, registry = resolve_plugin(Coscheduling)
    framework = plugin_framework(cls, registry, state.snapshot)
    framework.handle.pending_pods = tuple(state.pending)  # as the scheduling loop sets it
    queue = SchedulingQueue(framework.queue_less)
    queue.add_all(state.pending)
    order = []
    while (info := queue.pop()) is not None:
        order.append(info.pod.key)
    return order


@pytest.mark.parametrize(("pods", "expected"), [
    # No creation times: pods of no group first (in input order), then groups by namespace/name,
    # each group's pods together.
    ([member("g2-a", group="g2"), member("g1-a", group="g1"), pod("solo", namespace="ml"),
      member("g2-b", group="g2"), member("g1-b", group="g1"), member("g1-c", group="g1", namespace="dev"),
      pod("solo-2", namespace="ml")],
     ["ml/solo", "ml/solo-2", "dev/g1-c", "ml/g1-a", "ml/g1-b", "ml/g2-a", "ml/g2-b"]),
    # Priority comes before everything; each pod's own.
    ([member("g1-a", group="g1"), pod("solo", namespace="ml"), member("g1-b", group="g1", priority=10),
      pod("urgent", namespace="ml", priority=100)],
     ["ml/urgent", "ml/g1-b", "ml/solo", "ml/g1-a"]),
    # A group queues at its earliest pod's creation time: late-a comes with early-b, before a pod of
    # no group created between them.
    ([created("2024-05-01T10:05:00Z", "solo-late"), created("2024-05-01T10:10:00Z", "late-a", "g"),
      created("2024-05-01T10:02:00Z", "solo-early"), created("2024-05-01T10:00:00Z", "early-b", "g")],
     ["ml/late-a", "ml/early-b", "ml/solo-early", "ml/solo-late"]),
    # Groups created at once queue by name; a pod of no group created then goes first.
    ([created("2024-05-01T10:00:00Z", "b-0", "b"), created("2024-05-01T10:00:00Z", "a-0", "a"),
      created("2024-05-01T10:00:00Z", "solo"), created("2024-05-01T10:00:00Z", "b-1", "b")],
     ["ml/solo", "ml/a-0", "ml/b-0", "ml/b-1"]),
], ids=["by-group-name", "priority-first", "earliest-creation-time", "same-time"])
def test_queue_sort(pods: list, expected: list[str]) -> None:
    assert queue_order(pods) == expected


def test_queue_sort_less_on_every_pair() -> None:
    """The whole "less" relation on grouped and plain pods (check_plugin's pods have no group):
    a strict total order, no pair both ways."""
    pods = [member("g1-a", group="g1"), pod("solo", namespace="ml"), member("g1-b", group="g1", priority=10),
            member("g2-a", group="g2"), member("g1-c", group="g1", namespace="dev")]
    state = cluster([node("n1")], pods)
    cls, registry = resolve_plugin(Coscheduling)
    framework = plugin_framework(cls, registry, state.snapshot)
    framework.handle.pending_pods = tuple(state.pending)
    queue = SchedulingQueue(framework.queue_less)
    infos = [queue.add(p) for p in state.pending]
    before = sorted((a.pod.key, b.pod.key) for a in infos for b in infos if framework.queue_less(a, b))
    assert before == sorted([
        ("ml/g1-b", "ml/solo"), ("ml/g1-b", "ml/g1-a"), ("ml/g1-b", "ml/g2-a"), ("ml/g1-b", "dev/g1-c"),
        ("ml/solo", "ml/g1-a"), ("ml/solo", "ml/g2-a"), ("ml/solo", "dev/g1-c"),
        ("dev/g1-c", "ml/g1-a"), ("dev/g1-c", "ml/g2-a"),
        ("ml/g1-a", "ml/g2-a"),
    ])
