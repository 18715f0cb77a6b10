"""Reading real manifests: YAML/JSON, multi-document, List, simulator export, located errors."""

import json
import textwrap

import pytest

from ruleset.cluster import build_cluster_state
from ruleset.errors import RulesetError
from ruleset.manifests import load_manifests

NODE_YAML = """\
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {zone: a}
status:
  allocatable: {cpu: 4, memory: 8Gi, pods: "110"}
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_multi_document_yaml_with_list_and_unknown_kinds(tmp_path):
    path = write(tmp_path, "c.yaml", """\
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: Node
          metadata: {name: n1}
          status: {allocatable: {cpu: "0.5", memory: 1e3, pods: 10}}
        - apiVersion: v1
          kind: PersistentVolume
          metadata: {name: pv1}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: p1
          namespace: web
          managedFields: [{manager: kubectl}]
        spec:
          nodeName: n1
          containers:
          - name: c
            resources: {requests: {cpu: 0.25, memory: 100Mi}}
        ---
        apiVersion: v1
        kind: Event
        metadata: {name: e}
        ---
        # an empty document
        """)
    cluster = load_manifests([path])
    assert [n.name for n in cluster.nodes] == ["n1"]
    assert cluster.nodes[0].allocatable == {"cpu": 500, "memory": 1000}
    assert cluster.nodes[0].allowed_pod_number == 10
    assert [p.key for p in cluster.pods] == ["web/p1"]
    assert cluster.pods[0].requests == {"cpu": 250, "memory": 100 * 1024 * 1024}
    assert dict(cluster.skipped) == {"Event": 1}
    assert [v.name for v in cluster.persistent_volumes] == ["pv1"]


def test_typed_lists_from_the_api(tmp_path):
    doc = {"kind": "PodList", "apiVersion": "v1", "items": [
        {"metadata": {"name": "a", "namespace": "x"}, "spec": {"containers": [{"name": "c"}]}}]}
    path = write(tmp_path, "pods.json", json.dumps(doc))
    assert [p.key for p in load_manifests([path]).pods] == ["x/a"]


def test_simulator_export_format(tmp_path):
    doc = {"nodes": [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1"}}}],
           "pods": [{"metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": [{"name": "c"}]}}],
           "priorityClasses": [{"metadata": {"name": "high"}, "value": 1000}],
           "pvs": [], "storageClasses": [{"metadata": {"name": "s"}}], "schedulerConfig": {"profiles": []}}
    cluster = load_manifests([write(tmp_path, "export.json", json.dumps(doc))])
    assert [n.name for n in cluster.nodes] == ["n1"]
    assert [p.key for p in cluster.pods] == ["default/p"]
    assert [pc.value for pc in cluster.priority_classes] == [1000]
    assert [s.name for s in cluster.storage_classes] == ["s"]


def test_terminated_pods_are_skipped(tmp_path):
    path = write(tmp_path, "p.yaml", """\
        kind: Pod
        metadata: {name: done}
        spec: {nodeName: n1, containers: [{name: c}]}
        status: {phase: Succeeded}
        """)
    cluster = load_manifests([path])
    assert cluster.pods == []
    assert cluster.skipped["Pod (phase Succeeded)"] == 1


def test_yaml_syntax_error_names_file_line_and_column(tmp_path):
    path = write(tmp_path, "bad.yaml", "kind: Node\nmetadata: {name: n1\n")
    with pytest.raises(RulesetError) as info:
        load_manifests([path])
    [problem] = info.value.problems
    assert problem.file == str(path)
    assert (problem.line, problem.code) == (3, "syntax-error")
    assert problem.message.startswith("invalid YAML:")


def test_json_syntax_error(tmp_path):
    path = write(tmp_path, "bad.json", '{"kind": "Node",\n "metadata": }')
    with pytest.raises(RulesetError) as info:
        load_manifests([path])
    [problem] = info.value.problems
    assert (problem.line, problem.column) == (2, 14)


def test_pods_need_a_name_but_not_containers(tmp_path):
    """The scheduler never reads containers; upstream's own tests use pods without them."""
    path = write(tmp_path, "p.yaml", """\
        kind: Pod
        metadata: {name: bare}
        ---
        kind: Pod
        metadata: {name: nocontainers}
        spec: {nodeName: n1}
        """)
    cluster = load_manifests([path])
    assert [(p.name, p.containers, p.requests, p.non_zero_requests) for p in cluster.pods] == [
        ("bare", (), {}, (0, 0)), ("nocontainers", (), {}, (0, 0))]


def test_bad_quantity_and_missing_fields_are_located(tmp_path):
    path = write(tmp_path, "bad.yaml", """\
        kind: Node
        metadata: {name: n1}
        status:
          allocatable:
            cpu: 4 cores
        ---
        kind: Pod
        metadata: {namespace: x}
        spec:
          containers:
          - name: c
            resources:
              requests: {memory: 1GB}
        ---
        kind: Pod
        metadata: {name: nospec}
        """)
    with pytest.raises(RulesetError) as info:
        load_manifests([path])
    rendered = [str(p) for p in info.value.problems]
    assert rendered == [
        f"{path}:5: Node n1: status.allocatable.cpu: '4 cores': quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        f"{path}:8: Pod: metadata.name: Required value",
        f"{path}:13: Pod: spec.containers[0].resources.requests.memory: '1GB': quantities must match the regular "
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ]


def test_priority_resolution_and_pending_pods(tmp_path):
    path = write(tmp_path, "c.yaml", NODE_YAML + """\
---
kind: PriorityClass
metadata: {name: high}
value: 1000
---
kind: PriorityClass
metadata: {name: base}
value: 5
globalDefault: true
preemptionPolicy: Never
---
kind: Pod
metadata: {name: a}
spec: {priorityClassName: high, containers: [{name: c}]}
---
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c}]}
---
kind: Pod
metadata: {name: c}
spec: {priority: 7, priorityClassName: high, containers: [{name: c}]}
---
kind: Pod
metadata: {name: d}
spec: {priorityClassName: missing, containers: [{name: c}]}
---
kind: Pod
metadata: {name: e}
spec: {priorityClassName: system-node-critical, nodeName: n1, containers: [{name: c}]}
---
kind: Pod
metadata: {name: f}
spec: {nodeName: elsewhere, containers: [{name: c}]}
""")
    state = build_cluster_state(load_manifests([path]))
    pods = {p.name: p for p in state.pending}
    assert {name: (p.priority, p.preemption_policy) for name, p in pods.items()} == {
        "a": (1000, "PreemptLowerPriority"), "b": (5, "Never"), "c": (7, "PreemptLowerPriority"),
        "d": (0, "PreemptLowerPriority")}
    assert {p.name: e for p, e in state.pod_errors.items()} == {"d": "no PriorityClass with name missing was found"}
    assert [p.priority for p in state.snapshot.pods_on(0)] == [2000001000]
    assert state.notes["Pod (on a node not in the snapshot)"] == 1


def test_duplicate_nodes_are_an_error(tmp_path):
    path = write(tmp_path, "c.yaml", NODE_YAML + "---\n" + NODE_YAML)
    with pytest.raises(RulesetError) as info:
        build_cluster_state(load_manifests([path]))
    assert [p.message for p in info.value.problems] == ["duplicate Node 'n1' (first at line 1)"]


def test_missing_file(tmp_path):
    with pytest.raises(RulesetError) as info:
        load_manifests([tmp_path / "nope.yaml"])
    assert info.value.problems[0].code == "io-error"
