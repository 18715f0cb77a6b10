"""``ruleset.workloads.scale``: the pods a workload in the cluster gains when scaled up."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ruleset.api.pod import Pod
from ruleset.workloads import canonical_json, scale, stand_in_uid
from ruleset.workloads.deployment import POD_TEMPLATE_HASH
from tests.workloads.kit import plain, pod, ref, yaml_doc

TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


def _owned(name: str, kind: str, owner: str, uid: str | None, *, namespace: str = "default", phase: str = "",
           terminating: bool = False, labels: dict[str, str] | None = None) -> Pod:
    owner_ref: dict[str, Any] = {"apiVersion": "apps/v1", "kind": kind, "name": owner, "controller": True}
    if uid:
        owner_ref["uid"] = uid
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels or {"app": "web"},
                                "ownerReferences": [owner_ref]}
    if terminating:
        metadata["deletionTimestamp"] = "2021-01-01T00:00:00Z"
    raw: dict[str, Any] = {"metadata": metadata, "spec": {"nodeName": "n1"}}
    if phase:
        raw["status"] = {"phase": phase}
    return pod(raw)


def _replica_set(name: str, uid: str | None = None, *, template: dict[str, Any] | None = None,
                 created: str | None = None, owner: str = "web", owner_uid: str | None = "d-1") -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "default"}
    if uid:
        metadata["uid"] = uid
    if created:
        metadata["creationTimestamp"] = created
    owner_ref: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "Deployment", "name": owner, "controller": True}
    if owner_uid:
        owner_ref["uid"] = owner_uid
    metadata["ownerReferences"] = [owner_ref]
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": metadata,
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                     "template": copy.deepcopy(template if template is not None else TEMPLATE)}}


def _workload(kind: str, uid: str | None = "w-1", **spec: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "web", "namespace": "default"}
    if uid:
        metadata["uid"] = uid
    selector: Any = {"app": "web"} if kind == "ReplicationController" else {"matchLabels": {"app": "web"}}
    return {"kind": kind, "metadata": metadata,
            "spec": {"replicas": 1, "selector": selector, "template": copy.deepcopy(TEMPLATE), **spec}}


def _pod(generate_name: str, owner: dict[str, Any], labels: dict[str, str] | None = None,
         namespace: str | None = "default") -> dict[str, Any]:
    metadata: dict[str, Any] = {"generateName": generate_name}
    if namespace:
        metadata["namespace"] = namespace
    metadata["labels"] = labels or {"app": "web"}
    metadata["ownerReferences"] = [owner]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata,
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


@pytest.mark.parametrize(("kind", "api_version"), [("ReplicaSet", "apps/v1"), ("ReplicationController", "v1")])
def test_scale_replica_set_counts_its_active_pods(kind: str, api_version: str) -> None:
    existing = [
        _owned("a", kind, "web", "w-1"), _owned("b", kind, "web", "w-1"),
        _owned("failed", kind, "web", "w-1", phase="Failed"), _owned("done", kind, "web", "w-1", phase="Succeeded"),
        _owned("leaving", kind, "web", "w-1", terminating=True),
        _owned("other-uid", kind, "web", "w-2"), _owned("other-ns", kind, "web", "w-1", namespace="prod"),
        _owned("other-kind", "StatefulSet", "web", "w-1x"),
    ]
    expansion = scale(kind, _workload(kind), 5, existing)
    assert expansion.problems == [] and expansion.objects == []
    assert plain(expansion.pods) == [_pod("web-", ref(api_version, kind, "web", "w-1"))] * 3


@pytest.mark.parametrize(("replicas", "new"), [(0, 0), (1, 0), (2, 0), (3, 1)])
def test_scale_never_removes(replicas: int, new: int) -> None:
    existing = [_owned("a", "ReplicaSet", "web", "w-1"), _owned("b", "ReplicaSet", "web", "w-1")]
    assert len(scale("ReplicaSet", _workload("ReplicaSet"), replicas, existing).pods) == new


def test_scale_without_uids_matches_kind_and_name() -> None:
    existing = [_owned("a", "ReplicaSet", "web", None), _owned("b", "ReplicaSet", "other", None)]
    pods = scale("ReplicaSet", _workload("ReplicaSet", uid=None), 3, existing).pods
    assert plain(pods) == [_pod("web-", ref("apps/v1", "ReplicaSet", "web",
                                            stand_in_uid("ReplicaSet", "default", "web")))] * 2


def _hashed(template: dict[str, Any], value: str) -> dict[str, Any]:
    out = copy.deepcopy(template)
    out["metadata"]["labels"][POD_TEMPLATE_HASH] = value
    return out


OLD_TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}


def test_scale_deployment_uses_the_replica_set_of_its_template_and_counts_all_of_its_sets() -> None:
    replica_sets = [
        _replica_set("web-old", "rs-old", template=_hashed(OLD_TEMPLATE, "old"), created="2021-01-01T00:00:00Z"),
        _replica_set("web-cur", "rs-cur", template=_hashed(TEMPLATE, "cur"), created="2021-02-01T00:00:00Z"),
        _replica_set("web-newest", "rs-newest", template=_hashed(OLD_TEMPLATE, "x"), created="2021-03-01T00:00:00Z"),
        _replica_set("api-1", "rs-api", template=_hashed(TEMPLATE, "api"), owner="api", owner_uid="d-2"),
    ]
    before = copy.deepcopy(replica_sets)
    existing = [_owned(f"old-{i}", "ReplicaSet", "web-old", "rs-old") for i in range(2)]
    existing += [_owned(f"cur-{i}", "ReplicaSet", "web-cur", "rs-cur") for i in range(3)]
    existing += [_owned(f"api-{i}", "ReplicaSet", "api-1", "rs-api") for i in range(4)]
    expansion = scale("Deployment", _workload("Deployment", "d-1"), 8, existing, replica_sets=replica_sets)
    assert expansion.problems == [] and expansion.objects == []
    assert plain(expansion.pods) == [_pod("web-cur-", ref("apps/v1", "ReplicaSet", "web-cur", "rs-cur"),
                                          {"app": "web", POD_TEMPLATE_HASH: "cur"})] * 3
    assert replica_sets == before


@pytest.mark.parametrize(("sets", "chosen"), [
    # No template matches: the newest (creationTimestamp, then name).
    ([("a", OLD_TEMPLATE, "2021-01-01T00:00:00Z"), ("b", OLD_TEMPLATE, "2021-03-01T00:00:00Z"),
      ("c", OLD_TEMPLATE, None)], "b"),
    # Several match: the oldest; no timestamp counts as the oldest of all, ties go by name.
    ([("b", TEMPLATE, "2021-01-01T00:00:00Z"), ("a", TEMPLATE, "2021-01-01T00:00:00Z")], "a"),
    ([("a", TEMPLATE, "2021-01-01T00:00:00Z"), ("z", TEMPLATE, None)], "z"),
], ids=["newest-when-none-match", "oldest-match-by-name", "no-timestamp-first"])
def test_scale_deployment_picks_a_replica_set(sets: list[tuple[str, dict[str, Any], str | None]],
                                               chosen: str) -> None:
    replica_sets = [_replica_set(name, f"uid-{name}", template=_hashed(t, name), created=c) for name, t, c in sets]
    pods = scale("Deployment", _workload("Deployment", "d-1"), 1, [], replica_sets=replica_sets).pods
    assert [p["metadata"]["generateName"] for p in pods] == [f"{chosen}-"]


def test_scale_deployment_without_replica_sets_creates_one() -> None:
    raw = _workload("Deployment", "d-1")
    expansion = scale("Deployment", raw, 2, [], replica_sets=[_replica_set("api-1", "x", owner="api", owner_uid="d-2")])
    assert [kind for kind, _ in expansion.objects] == ["ReplicaSet"]
    rs = expansion.objects[0][1]
    assert rs["spec"]["replicas"] == 2 and rs["metadata"]["ownerReferences"][0]["uid"] == "d-1"
    assert [p["metadata"]["generateName"] for p in expansion.pods] == [rs["metadata"]["name"] + "-"] * 2


def test_scale_paused_deployment_without_replica_sets_creates_nothing() -> None:
    expansion = scale("Deployment", _workload("Deployment", "d-1", paused=True), 2, [])
    assert (expansion.pods, expansion.objects, expansion.problems) == ([], [], [])


STATEFUL = yaml_doc("""\
kind: StatefulSet
metadata: {name: db, namespace: default, uid: s-1}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db}]}
status: {updateRevision: db-abc}
""")


def test_scale_stateful_set_creates_the_missing_ordinals() -> None:
    existing = [_owned(f"db-{i}", "StatefulSet", "db", "s-1", labels={"app": "db"}) for i in (0, 1, 4)]
    existing += [_owned("db-2", "StatefulSet", "db", "s-2", labels={"app": "db"}),  # another set's
                 _owned("db-x", "StatefulSet", "db", "s-1", labels={"app": "db"}, phase="Failed")]
    expansion = scale("StatefulSet", STATEFUL, 4, existing)
    assert expansion.problems == []
    assert plain(expansion.pods) == [{
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"db-{i}", "generateName": "db-", "namespace": "default",
                     "labels": {"app": "db", "statefulset.kubernetes.io/pod-name": f"db-{i}",
                                "controller-revision-hash": "db-abc"},
                     "ownerReferences": [ref("apps/v1", "StatefulSet", "db", "s-1")]},
        "spec": {"containers": [{"name": "db"}], "hostname": f"db-{i}", "subdomain": "db"},
    } for i in (2, 3)]
    assert scale("StatefulSet", STATEFUL, 2, existing).pods == []


@pytest.mark.parametrize(("kind", "message"), [
    ("DaemonSet", "a DaemonSet runs one pod on each node it selects; it cannot be scaled"),
    ("Job", "a Job runs as many pods as its parallelism and completions allow; it cannot be scaled"),
    ("CronJob", "a CronJob has no replicas; it cannot be scaled"),
])
def test_what_cannot_be_scaled(kind: str, message: str) -> None:
    raw = yaml_doc(f"kind: {kind}\nmetadata:\n  name: x\n  namespace: ops\n", "c.yaml")
    expansion = scale(kind, raw, 3, [], file="c.yaml")
    assert [(p.file, p.line, p.path, p.message) for p in expansion.problems] == [
        ("c.yaml", 1, f"{kind} ops/x", message)]
    assert expansion.pods == []


@pytest.mark.parametrize("replicas", [-1, 150_001, True])
def test_bad_replica_counts(replicas: int) -> None:
    expansion = scale("ReplicaSet", _workload("ReplicaSet"), replicas, [])
    assert [(p.path, p.message) for p in expansion.problems] == [
        ("--scale", f"cannot scale to {replicas!r}: expected a number of replicas from 0 to 150,000")]


def test_scale_reports_what_expand_reports() -> None:
    raw = _workload("ReplicaSet")
    raw["spec"]["template"]["metadata"]["labels"] = {"app": "other"}
    expansion = scale("ReplicaSet", raw, 3, [])
    assert [p.message for p in expansion.problems] == [
        'Invalid value: {"app":"other"}: `selector` does not match template `labels`']
    assert expansion.pods == [] and canonical_json(raw["spec"]["selector"]) == '{"matchLabels":{"app":"web"}}'
