"""Ported from ``pkg/scheduler/framework/plugins/nodepreferavoidpods/node_prefer_avoid_pods_test.go``.

* TestNodePreferAvoidPods: all 4 cases (v1.20 names the nodes machine1..3, as here).

Plus ruleset checks of how the annotation is decoded, following Go's ``encoding/json`` into
``v1.AvoidPods`` (``GetAvoidPodsFromNodeAnnotations``): malformed or mistyped documents
score 100, keys match case-insensitively, ``null`` and empty annotations mean no entries,
``evictionTime`` must be RFC 3339, and an entry without ``podController`` reached before a
match (a nil dereference, i.e. a panic, upstream) fails the pod's cycle with an Error.
"""

import json

import pytest

from ruleset.framework.status import Code
from ruleset.plugins.node_prefer_avoid_pods import GoJSONError, parse_avoid_pods
from tests.factories import Harness, make_node, make_pod

KEY = "scheduler.alpha.kubernetes.io/preferAvoidPods"

ANNOTATIONS_1 = {KEY: """
    {
        "preferAvoidPods": [
            {
                "podSignature": {
                    "podController": {
                        "apiVersion": "v1",
                        "kind": "ReplicationController",
                        "name": "foo",
                        "uid": "abcdef123456",
                        "controller": true
                    }
                },
                "reason": "some reason",
                "message": "some message"
            }
        ]
    }"""}
ANNOTATIONS_2 = {KEY: """
    {
        "preferAvoidPods": [
            {
                "podSignature": {
                    "podController": {
                        "apiVersion": "v1",
                        "kind": "ReplicaSet",
                        "name": "foo",
                        "uid": "qwert12345",
                        "controller": true
                    }
                },
                "reason": "some reason",
                "message": "some message"
            }
        ]
    }"""}

TEST_NODES = [make_node("machine1", annotations=ANNOTATIONS_1),
              make_node("machine2", annotations=ANNOTATIONS_2),
              make_node("machine3")]


def owned_pod(kind: str, uid: str, controller: bool | None = True) -> dict:
    ref = {"kind": kind, "name": "foo", "uid": uid}
    if controller is not None:
        ref["controller"] = controller
    return make_pod("pod", owner_references=[ref])


@pytest.mark.parametrize(("pod", "expected"), [
    pytest.param(owned_pod("ReplicationController", "abcdef123456"),
                 {"machine1": 0, "machine2": 100, "machine3": 100},
                 id="pod managed by ReplicationController should avoid a node, this node get lowest priority "
                    "score"),
    pytest.param(owned_pod("RandomController", "abcdef123456"),
                 {"machine1": 100, "machine2": 100, "machine3": 100},
                 id="ownership by random controller should be ignored"),
    pytest.param(owned_pod("ReplicationController", "abcdef123456", controller=None),
                 {"machine1": 100, "machine2": 100, "machine3": 100},
                 id="owner without Controller field set should be ignored"),
    pytest.param(owned_pod("ReplicaSet", "qwert12345"), {"machine1": 100, "machine2": 0, "machine3": 100},
                 id="pod managed by ReplicaSet should avoid a node, this node get lowest priority score"),
])
def test_node_prefer_avoid_pods(pod: dict, expected: dict[str, int]) -> None:
    h = Harness(["NodePreferAvoidPods"], TEST_NODES)
    assert h.score(pod) == expected


# ---------------------------------------------------------------------------------------------------
# ruleset: decoding the annotation as encoding/json does
# ---------------------------------------------------------------------------------------------------

def entry(kind: str = "ReplicaSet", uid: str = "u1", **extra: object) -> dict:
    return {"podSignature": {"podController": {"kind": kind, "uid": uid}}, **extra}


def annotation(*entries: object) -> str:
    return json.dumps({"preferAvoidPods": list(entries)})


def score_on(text: str, pod: dict | None = None) -> int:
    h = Harness(["NodePreferAvoidPods"], [make_node("n1", annotations={KEY: text}), make_node("n2")])
    scores = h.score(pod or owned_pod("ReplicaSet", "u1"))
    assert scores["n2"] == 100
    return scores["n1"]


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param(annotation(entry()), 0, id="match"),
    pytest.param(annotation(entry(uid="u2"), entry()), 0, id="match-second-entry"),
    pytest.param(annotation(entry(kind="ReplicationController")), 100, id="kind-differs"),
    pytest.param(annotation(entry(uid="U1")), 100, id="uid-is-case-sensitive"),
    pytest.param("", 100, id="empty-annotation"),
    pytest.param("null", 100, id="null-document"),
    pytest.param('{"preferAvoidPods": null}', 100, id="null-list"),
    pytest.param("{not json", 100, id="malformed"),
    pytest.param("[]", 100, id="top-level-array-is-a-type-error"),
    pytest.param(annotation(entry(), 5), 100, id="number-entry-is-a-type-error"),
    pytest.param(annotation(entry(reason=7)), 100, id="number-reason-is-a-type-error-even-after-a-match"),
    pytest.param(annotation(entry(evictionTime="2021-02-03T04:05:06Z")), 0, id="rfc3339-eviction-time"),
    pytest.param(annotation(entry(evictionTime="2021-02-03T04:05:06.123+02:00")), 0,
                 id="fractional-eviction-time"),
    pytest.param(annotation(entry(evictionTime=None)), 0, id="null-eviction-time"),
    pytest.param(annotation(entry(evictionTime="2021-02-30T04:05:06Z")), 100, id="day-out-of-range"),
    pytest.param(annotation(entry(evictionTime="2021-02-03 04:05:06Z")), 100, id="not-rfc3339"),
    pytest.param(annotation(entry(evictionTime=1612325106)), 100, id="numeric-eviction-time"),
    pytest.param('{"PreferAvoidPods": [{"PODSIGNATURE": {"podcontroller": '
                 '{"Kind": "ReplicaSet", "UID": "u1"}}}]}', 0, id="keys-match-case-insensitively"),
    pytest.param('{"preferAvoidPods": [{"podSignature": {"podController": {"\u212aind": "ReplicaSet", '
                 '"uid": "u1"}}}]}', 0, id="kelvin-sign-folds-to-k"),
    pytest.param('{"preferAvoidPods": [{"podSignature": {"podController": '
                 '{"kind": "ReplicaSet", "uid": "u0", "uid": "u1"}}}]}', 0, id="duplicate-key-last-wins"),
    pytest.param('{"preferAvoidPods": [{"podSignature": {"podController": '
                 '{"kind": "ReplicaSet", "uid": "u1", "controller": "yes"}}}]}', 100,
                 id="string-controller-is-a-type-error"),
    pytest.param('{"preferAvoidPods": [], "extra": {"anything": [1, NaN]}}', 100, id="nan-is-not-json"),
    pytest.param('{"preferAvoidPods": [' + json.dumps(entry()) + '], "extra": {"x": [1e999, true]}}', 0,
                 id="unknown-keys-are-ignored"),
])
def test_annotation_decoding(text: str, expected: int) -> None:
    assert score_on(text) == expected


def test_entry_without_controller_reached_first_is_an_error() -> None:
    h = Harness(["NodePreferAvoidPods"], [
        make_node("n1", annotations={KEY: annotation({"podSignature": {}}, entry())}), make_node("n2")])
    result = h.run(owned_pod("ReplicaSet", "u1"))
    assert result.status.code == Code.ERROR
    assert result.status.reasons == (
        "plugin \"NodePreferAvoidPods\" failed with: RuntimeError: node 'n1': " + KEY + " has an entry without "
        "podSignature.podController (kube-scheduler v1.20 panics)",)


@pytest.mark.parametrize(("entries", "pod", "expected"), [
    pytest.param([entry(), {"podSignature": None}], owned_pod("ReplicaSet", "u1"), 0, id="match-before-nil"),
    pytest.param([{"podSignature": {"podController": None}}], owned_pod("Deployment", "u1"), 100,
                 id="other-controllers-never-reach-it"),
    pytest.param([None], make_pod("pod"), 100, id="pods-without-controller-never-reach-it"),
])
def test_entry_without_controller_not_reached(entries: list, pod: dict, expected: int) -> None:
    assert score_on(annotation(*entries), pod) == expected


def test_parse_avoid_pods_entries() -> None:
    text = annotation(entry("ReplicaSet", "a"), {"podSignature": {"podController": None}}, None,
                      entry("ReplicationController", "b"))
    assert parse_avoid_pods(text) == [("ReplicaSet", "a"), None, None, ("ReplicationController", "b")]
    with pytest.raises(GoJSONError):
        parse_avoid_pods('{"preferAvoidPods": {}}')


def test_node_filtered_out_with_bad_entry_is_not_scored() -> None:
    # Only feasible nodes are scored: the broken node n1 is filtered out by NodeName, no error.
    h = Harness(["NodeName", "NodePreferAvoidPods"], [
        make_node("n1", annotations={KEY: annotation({"podSignature": {}})}),
        make_node("n2"), make_node("n3")])
    pod = owned_pod("ReplicaSet", "u1")
    pod["spec"]["nodeName"] = "n2"
    assert h.score(pod, "NodePreferAvoidPods") == {"n2": 100}
