"""A StatefulSet's ``volumeClaimTemplates`` become claims per ordinal, and its pods' volumes
name them (v1.20 ``pkg/controller/statefulset/stateful_set_utils.go``: ``getPersistentVolumeClaims``,
``getPersistentVolumeClaimName``, ``updateStorage``; ``stateful_pod_control.go``:
``createPersistentVolumeClaims`` creates only the claims it does not find). Then, through
:func:`ruleset.manifests.create.create_pods`, the claims the cluster does not hold are created
with the API server's defaults and the DefaultStorageClass admission plugin."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from ruleset.api.pod import Pod
from ruleset.errors import Problem
from ruleset.kversion import KubeVersion, Target
from ruleset.manifests.create import ScaleRequest, create_pods
from ruleset.manifests.model import Cluster
from ruleset.manifests.reader import collect_documents
from ruleset.reading import CLUSTER
from ruleset.workloads import canonical_json, claim_name, expand, scale, stateful_set_claims
from ruleset.yaml_reading import load_yaml
from tests.workloads.kit import plain, pod, yaml_doc

SET = """\
kind: StatefulSet
metadata: {name: db, namespace: data, uid: s-1}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db, tier: store}}
  template:
    metadata: {labels: {app: db, tier: store}}
    spec:
      containers: [{name: db, volumeMounts: [{name: data, mountPath: /d}, {name: logs, mountPath: /l}]}]
      volumes:
      - {name: config, configMap: {name: cfg}}
      - {name: data, emptyDir: {}}
  volumeClaimTemplates:
  - metadata:
      name: data
      labels: {app: other, extra: x}
      annotations: {note: kept}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: fast
      resources: {requests: {storage: 1Gi}}
    status: {phase: Bound}
  - metadata: {name: logs}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Mi}}
"""


def _data_claim(ordinal: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": f"data-db-{ordinal}", "namespace": "data",
                         # matchLabels written over the template's labels
                         "labels": {"app": "db", "extra": "x", "tier": "store"},
                         "annotations": {"note": "kept"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                     "resources": {"requests": {"storage": "1Gi"}}},
            "status": {"phase": "Bound"}}  # as the controller sends it: the API server clears it


def _logs_claim(ordinal: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": f"logs-db-{ordinal}", "namespace": "data",
                         "labels": {"app": "db", "tier": "store"}},  # the selector's alone
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}}}


def _volumes(ordinal: int) -> list[dict[str, Any]]:
    return [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-db-{ordinal}"}},
            {"name": "logs", "persistentVolumeClaim": {"claimName": f"logs-db-{ordinal}"}},
            {"name": "config", "configMap": {"name": "cfg"}}]  # the emptyDir "data" is replaced


def test_claim_names_labels_and_namespace_per_ordinal() -> None:
    expansion = expand("StatefulSet", yaml_doc(SET), [])
    assert expansion.problems == []
    assert plain(expansion.claims) == [_data_claim(0), _logs_claim(0), _data_claim(1), _logs_claim(1)]
    assert claim_name("data", "db", 7) == "data-db-7"


def test_pod_volumes_name_the_claims_and_replace_a_same_named_volume() -> None:
    pods = expand("StatefulSet", yaml_doc(SET), []).pods
    assert [plain(p["spec"]["volumes"]) for p in pods] == [_volumes(0), _volumes(1)]


@pytest.mark.parametrize(("selector", "template_meta", "namespace", "want_meta"), [
    ("{matchLabels: {app: db}}", "{name: www}", "",
     {"name": "www-web-0", "namespace": "default", "labels": {"app": "db"}}),
    ("{matchExpressions: [{key: app, operator: In, values: [db]}]}", "{name: www}", "namespace: ns, ",
     {"name": "www-web-0", "namespace": "ns"}),
    ("{matchExpressions: [{key: app, operator: In, values: [db]}]}", "{name: www, labels: {k: v}}", "",
     {"name": "www-web-0", "namespace": "default", "labels": {"k": "v"}}),
    ("{matchLabels: {app: db}}", "{name: www, labels: {app: mine}, namespace: elsewhere}", "",
     {"name": "www-web-0", "namespace": "default", "labels": {"app": "db"}}),
], ids=["match-labels-only", "no-labels", "template-labels-only", "selector-wins-and-set-namespace"])
def test_claim_metadata(selector: str, template_meta: str, namespace: str, want_meta: dict[str, Any]) -> None:
    raw = yaml_doc(f"""\
kind: StatefulSet
metadata: {{name: web, {namespace}uid: w-1}}
spec:
  replicas: 1
  selector: {selector}
  template: {{metadata: {{labels: {{app: db}}}}}}
  volumeClaimTemplates: [{{metadata: {template_meta}}}]
""")
    assert [plain(c["metadata"]) for c in stateful_set_claims(raw, [0])] == [want_meta]
    assert [plain(c["metadata"]) for c in expand("StatefulSet", raw, []).claims] == [want_meta]


def test_a_set_without_templates_keeps_its_pod_volumes_and_creates_no_claim() -> None:
    raw = yaml_doc(SET.split("  volumeClaimTemplates:")[0])
    expansion = expand("StatefulSet", raw, [])
    assert expansion.claims == []
    assert plain(expansion.pods[0]["spec"]["volumes"]) == [{"name": "config", "configMap": {"name": "cfg"}},
                                                           {"name": "data", "emptyDir": {}}]


def test_two_templates_of_one_name_are_one_claim_the_last() -> None:
    raw = yaml_doc(SET.replace("  - metadata: {name: logs}", "  - metadata: {name: data}"))
    expansion = expand("StatefulSet", raw, [])
    assert [c["metadata"]["name"] for c in expansion.claims] == ["data-db-0", "data-db-1"]
    assert plain(expansion.claims[0]["spec"]) == {"accessModes": ["ReadWriteOnce"],
                                                  "resources": {"requests": {"storage": "1Mi"}}}
    assert plain(expansion.pods[0]["spec"]["volumes"]) == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}},
        {"name": "config", "configMap": {"name": "cfg"}}]


@pytest.mark.parametrize(("templates", "want"), [
    ("  volumeClaimTemplates: {metadata: {name: x}}\n",
     [(14, "StatefulSet data/db: spec.volumeClaimTemplates", "must be a list of PersistentVolumeClaims")]),
    ("  volumeClaimTemplates:\n  - metadata: {labels: {a: b}}\n  - 3\n",
     [(15, "StatefulSet data/db: spec.volumeClaimTemplates[0].metadata.name", "Required value"),
      (16, "StatefulSet data/db: spec.volumeClaimTemplates[1]", "must be an object (a PersistentVolumeClaim)")]),
], ids=["not-a-list", "no-name-and-not-an-object"])
def test_malformed_templates_are_located_problems(templates: str, want: list[tuple[int, str, str]]) -> None:
    raw = yaml_doc(SET.split("  volumeClaimTemplates:")[0] + templates, "set.yaml")
    expansion = expand("StatefulSet", raw, [], file="set.yaml")
    assert [(p.file, p.line, p.path, p.message) for p in expansion.problems] == [
        ("set.yaml", line, path, message) for line, path, message in want]
    assert (expansion.pods, expansion.claims) == ([], [])


def _owned(name: str) -> Pod:
    return pod({"metadata": {"name": name, "namespace": "data", "labels": {"app": "db", "tier": "store"},
                             "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db",
                                                  "uid": "s-1", "controller": True}]},
                "spec": {"nodeName": "n1"}})


def test_scale_creates_the_claims_of_the_missing_ordinals_only() -> None:
    expansion = scale("StatefulSet", yaml_doc(SET), 4, [_owned("db-0"), _owned("db-2")])
    assert expansion.problems == []
    assert [p["metadata"]["name"] for p in expansion.pods] == ["db-1", "db-3"]
    assert [c["metadata"]["name"] for c in expansion.claims] == ["data-db-1", "logs-db-1", "data-db-3",
                                                                 "logs-db-3"]
    assert plain(expansion.pods[1]["spec"]["volumes"]) == _volumes(3)


def test_the_set_is_not_changed() -> None:
    raw = yaml_doc(SET)
    before = (canonical_json(raw), copy.deepcopy(raw))
    expansion = expand("StatefulSet", raw, [])
    for claim in expansion.claims:
        claim["metadata"]["labels"]["new"] = "x"
        claim["spec"].clear()
    for made in expansion.pods:
        made["spec"]["volumes"].clear()
    assert (canonical_json(raw), raw) == before


# ---- through create_pods: existing claims, API-server defaults, DefaultStorageClass ----

CLASSES = """\
kind: StorageClass
metadata: {{name: standard, creationTimestamp: "2021-01-01T00:00:00Z", annotations: {{{first}}}}}
provisioner: x
---
kind: StorageClass
metadata: {{name: newer, creationTimestamp: "2022-01-01T00:00:00Z", annotations: {{{second}}}}}
provisioner: x
"""
DEFAULT = "storageclass.kubernetes.io/is-default-class: 'true'"
EXISTING = """\
---
kind: PersistentVolumeClaim
metadata: {name: logs-db-0, namespace: data, uid: c-1}
spec: {accessModes: [ReadWriteOnce], storageClassName: slow, resources: {requests: {storage: 5Gi}}}
"""


def _create(cluster_text: str, version: str = "1.20",
            scale_to: int | None = None) -> tuple[Cluster, Counter[str], list[Problem]]:
    problems: list[Problem] = []
    cluster = collect_documents(enumerate(load_yaml(cluster_text, "c.yaml", CLUSTER)), "c.yaml", problems)
    role = "cluster" if scale_to is not None else "pods"
    text = SET if scale_to is not None else SET.replace(", uid: s-1", "")  # a uid: stored, its pods too
    cluster.extend(collect_documents(enumerate(load_yaml(text, "set.yaml", CLUSTER)), "set.yaml", problems,
                                     role=role))
    requests = [] if scale_to is None else [ScaleRequest("sts", "data", "db", scale_to, f"sts/data/db={scale_to}")]
    created = create_pods(cluster, problems, scale=requests, target=Target(KubeVersion.parse(version)))
    return cluster, created, problems


def _claims(cluster: Cluster) -> list[tuple[str, str | None, str, str, int]]:
    return [(c.key, c.storage_class_name, c.volume_mode, c.phase, c.request)
            for c in cluster.persistent_volume_claims]


def test_created_claims_get_defaults_and_the_default_class_and_an_existing_claim_is_used() -> None:
    cluster, created, problems = _create(CLASSES.format(first=DEFAULT, second="") + EXISTING)
    assert problems == []
    assert _claims(cluster) == [
        ("data/logs-db-0", "slow", "Filesystem", "Pending", 5 * 2**30),  # the input's, not created again
        ("data/data-db-0", "fast", "Filesystem", "Pending", 2**30),  # status cleared: Pending again
        ("data/data-db-1", "fast", "Filesystem", "Pending", 2**30),
        ("data/logs-db-1", "standard", "Filesystem", "Pending", 2**20),  # DefaultStorageClass
    ]
    assert created == Counter({"Pod": 2, "PersistentVolumeClaim": 3})
    assert [p.name for p in cluster.pods] == ["db-0", "db-1"] and cluster.refused == {}
    origin = cluster.persistent_volume_claims[1].meta.origin
    assert origin is not None and origin.file == "set.yaml"


BETA = "storageclass.beta.kubernetes.io/is-default-class: 'true'"


@pytest.mark.parametrize(("version", "first", "second", "want"), [
    ("1.20", "", "", None),  # no default class: left without one
    ("1.20", "", BETA, "newer"),
    ("1.20", DEFAULT, "", "standard"),
    ("1.25", DEFAULT, DEFAULT, "error"),
    ("1.26", DEFAULT, BETA, "newer"),  # the newest default wins
], ids=["no-default", "beta-annotation", "one-default", "two-defaults-refused", "two-defaults-newest"])
def test_default_class_by_release(version: str, first: str, second: str, want: str | None) -> None:
    cluster, created, problems = _create(CLASSES.format(first=first, second=second), version)
    assert problems == []
    logs = [c for c in cluster.persistent_volume_claims if c.meta.name.startswith("logs")]
    if want == "error":
        message = ('failed to create PVC logs-db-{i}: persistentvolumeclaims "logs-db-{i}" is forbidden: '
                   "Internal error occurred: 2 default StorageClasses were found")
        assert logs == []  # refused; the "fast" claims are created
        assert created == Counter({"Pod": 2, "PersistentVolumeClaim": 2})
        assert {p.name: m for p, m in cluster.refused.items()} == {f"db-{i}": message.format(i=i) for i in (0, 1)}
    else:
        assert [c.storage_class_name for c in logs] == [want, want]
        assert cluster.refused == {}


def test_scale_reuses_the_claims_left_by_a_scale_down() -> None:
    cluster, created, problems = _create(CLASSES.format(first=DEFAULT, second="") + EXISTING, scale_to=1)
    assert problems == []
    assert [c.key for c in cluster.persistent_volume_claims] == ["data/logs-db-0", "data/data-db-0"]
    assert created == Counter({"Pod": 1, "PersistentVolumeClaim": 1})


def test_no_claim_is_created_when_the_input_holds_no_storage_object() -> None:
    cluster, created, problems = _create("kind: Node\nmetadata: {name: n1}\n")
    assert problems == []
    assert cluster.persistent_volume_claims == []
    assert created == Counter({"Pod": 2, "PersistentVolumeClaim": 0})
    assert plain(list(cluster.pods[0].volumes)) == _volumes(0)


def test_a_bad_claim_template_field_is_reported_once_at_its_line() -> None:
    text = SET.replace("storage: 1Mi", "storage: lots").replace(", uid: s-1", "")
    problems: list[Problem] = []
    cluster = collect_documents(enumerate(load_yaml(CLASSES.format(first="", second=""), "c.yaml", CLUSTER)),
                                "c.yaml", problems)
    cluster.extend(collect_documents(enumerate(load_yaml(text, "set.yaml", CLUSTER)), "set.yaml", problems,
                                     role="pods"))
    create_pods(cluster, problems)
    assert [(p.file, p.line) for p in problems] == [("set.yaml", 27)]
    assert "spec.resources.requests" in (problems[0].path or "")
