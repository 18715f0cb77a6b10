"""``ruleset.workloads.expand``: each workload kind to the pods its v1.20 controller creates.

Expected pods are written out whole. Hashes are pinned values of ruleset's scheme (FNV over
canonical JSON, see ``ruleset.workloads.hashing``), not the ones a cluster would print.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ruleset.api.decode import DecodeContext
from ruleset.api.pod import decode_pod
from ruleset.workloads import WORKLOAD_KINDS, canonical_json, expand, stand_in_uid
from tests.workloads.kit import node, plain, ref, yaml_doc

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations: {team: a}
    spec:
      containers:
      - name: c
        image: nginx
"""
WEB_HASH = "5f6fb47fc4"
WEB_RS = f"web-{WEB_HASH}"


def test_deployment_gives_one_replica_set_then_its_pods() -> None:
    raw = yaml_doc(DEPLOYMENT)
    expansion = expand("Deployment", raw, [])
    assert expansion.problems == []
    rs_uid = stand_in_uid("ReplicaSet", "shop", WEB_RS)
    labels = {"app": "web", "pod-template-hash": WEB_HASH}
    assert plain(expansion.objects) == [["ReplicaSet", {
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {
            "name": WEB_RS, "namespace": "shop", "uid": rs_uid, "labels": labels,
            "annotations": {"deployment.kubernetes.io/revision": "1",
                            "deployment.kubernetes.io/desired-replicas": "3",
                            # 3 + maxSurge (25% of 3, rounded up)
                            "deployment.kubernetes.io/max-replicas": "4"},
            "ownerReferences": [ref("apps/v1", "Deployment", "web", stand_in_uid("Deployment", "shop", "web"))],
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels, "annotations": {"team": "a"}},
                         "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
        },
    }]]
    pod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"generateName": f"{WEB_RS}-", "namespace": "shop", "labels": labels,
                     "annotations": {"team": "a"},
                     "ownerReferences": [ref("apps/v1", "ReplicaSet", WEB_RS, rs_uid)]},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    assert plain(expansion.pods) == [pod, pod, pod]
    assert len({id(p) for p in expansion.pods}) == 3
    assert expansion.pods[0]["spec"] is not expansion.pods[1]["spec"]


def test_deployment_keeps_its_uid_annotations_and_strategy() -> None:
    raw = yaml_doc(DEPLOYMENT.replace("  namespace: shop\n", "  uid: d-1\n  annotations: {owner: me, "
                                      "kubectl.kubernetes.io/last-applied-configuration: x}\n")
                   .replace("  replicas: 3\n", "  replicas: 10\n  strategy: {rollingUpdate: {maxSurge: 3}}\n"))
    expansion = expand("Deployment", raw, [])
    rs = expansion.objects[0][1]
    assert rs["metadata"]["annotations"] == {"owner": "me", "deployment.kubernetes.io/revision": "1",
                                             "deployment.kubernetes.io/desired-replicas": "10",
                                             "deployment.kubernetes.io/max-replicas": "13"}
    assert rs["metadata"]["ownerReferences"][0]["uid"] == "d-1"
    assert "namespace" not in rs["metadata"] and "namespace" not in expansion.pods[0]["metadata"]
    assert len(expansion.pods) == 10


def test_paused_deployment_creates_nothing() -> None:
    expansion = expand("Deployment", yaml_doc(DEPLOYMENT.replace("  replicas: 3\n", "  replicas: 3\n  paused: true\n")),
                       [])
    assert (expansion.pods, expansion.objects, expansion.problems) == ([], [], [])


@pytest.mark.parametrize(("strategy", "max_replicas"), [
    ("{type: Recreate}", "4"),
    ("{rollingUpdate: {maxSurge: '50%'}}", "6"),
    ("{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}", "4"),
    ("{type: RollingUpdate}", "5"),
], ids=["recreate", "percent", "zero", "default"])
def test_deployment_max_replicas_annotation(strategy: str, max_replicas: str) -> None:
    raw = yaml_doc(DEPLOYMENT.replace("  replicas: 3\n", f"  replicas: 4\n  strategy: {strategy}\n"))
    rs = expand("Deployment", raw, []).objects[0][1]
    assert rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == max_replicas


def test_deployment_of_five_keeps_topology_spread_constraints_in_each_pod() -> None:
    raw = yaml_doc(DEPLOYMENT.replace("  replicas: 3\n", "  replicas: 5\n").replace("""\
      - name: c
        image: nginx
""", """\
      - name: c
        image: nginx
      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector:
          matchLabels: {app: web}
"""))
    pods = expand("Deployment", raw, []).pods
    constraint = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                  "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}
    assert [plain(p["spec"]["topologySpreadConstraints"]) for p in pods] == [[constraint]] * 5
    assert [p["metadata"]["labels"] for p in pods] == [{"app": "web", "pod-template-hash": "557cc44588"}] * 5


@pytest.mark.parametrize(("kind", "api_version"), [("ReplicaSet", "apps/v1"), ("ReplicationController", "v1")])
def test_replica_set_and_replication_controller(kind: str, api_version: str) -> None:
    selector = "{matchLabels: {app: front}}" if kind == "ReplicaSet" else "{app: front}"
    raw = yaml_doc(f"""\
kind: {kind}
metadata: {{name: front}}
spec:
  replicas: 2
  selector: {selector}
  template:
    metadata:
      labels: {{app: front}}
      finalizers: [f]
    spec:
      containers: [{{name: c}}]
""")
    expansion = expand(kind, raw, [])
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"generateName": "front-", "labels": {"app": "front"}, "finalizers": ["f"],
                        "ownerReferences": [ref(api_version, kind, "front", stand_in_uid(kind, "default", "front"))]},
           "spec": {"containers": [{"name": "c"}]}}
    assert (plain(expansion.pods), expansion.objects, expansion.problems) == ([pod, pod], [], [])


@pytest.mark.parametrize(("replicas", "count"), [("", 1), ("replicas: 0", 0), ("replicas: 4", 4)],
                         ids=["default-1", "zero", "four"])
def test_replica_count(replicas: str, count: int) -> None:
    raw = yaml_doc(f"""\
kind: ReplicaSet
metadata: {{name: r}}
spec:
  {replicas}
  selector: {{matchLabels: {{a: b}}}}
  template: {{metadata: {{labels: {{a: b}}}}}}
""")
    assert len(expand("ReplicaSet", raw, []).pods) == count


STATEFUL_SET = """\
kind: StatefulSet
metadata: {name: db, uid: s-1}
spec:
  replicas: 3
  serviceName: db-headless
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
    spec:
      hostname: ignored
      containers: [{name: db, image: postgres}]
  volumeClaimTemplates:
  - metadata: {name: data}
"""


def test_stateful_set_pods_are_named_by_ordinal() -> None:
    expansion = expand("StatefulSet", yaml_doc(STATEFUL_SET), [])
    assert expansion.problems == []
    assert plain(expansion.pods) == [{
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"db-{i}", "generateName": "db-",
                     "labels": {"app": "db", "statefulset.kubernetes.io/pod-name": f"db-{i}",
                                "controller-revision-hash": "db-7d85d7bff8"},
                     "ownerReferences": [ref("apps/v1", "StatefulSet", "db", "s-1")]},
        # updateStorage: each volumeClaimTemplate becomes a volume naming the ordinal's claim.
        "spec": {"hostname": f"db-{i}", "subdomain": "db-headless",
                 "containers": [{"name": "db", "image": "postgres"}],
                 "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-db-{i}"}}]},
    } for i in range(3)]


def test_stateful_set_revision_from_status_and_no_service_name() -> None:
    raw = yaml_doc(STATEFUL_SET.replace("  serviceName: db-headless\n", "")
                   + "status: {updateRevision: db-7d4b9c, currentRevision: db-old}\n")
    pod = expand("StatefulSet", raw, []).pods[0]
    assert pod["metadata"]["labels"]["controller-revision-hash"] == "db-7d4b9c"
    assert "subdomain" not in pod["spec"]


JOB = """\
kind: Job
metadata: {{name: pi, namespace: batch}}
spec:
  {counts}
  template:
    metadata: {{labels: {{{labels}}}}}
    spec:
      restartPolicy: Never
      containers: [{{name: pi}}]
"""


@pytest.mark.parametrize(("counts", "pods"), [
    ("", 1),
    ("parallelism: 3", 3),
    ("completions: 5", 1),
    ("{parallelism: 3, completions: 2}", 2),
    ("{parallelism: 2, completions: 5}", 2),
    ("parallelism: 0", 0),
    ("{parallelism: 5, completions: 0}", 0),
], ids=["defaults", "parallel", "completions-only", "fewer-completions", "fewer-parallel", "zero-parallel",
        "zero-completions"])
def test_job_pod_count(counts: str, pods: int) -> None:
    counts = counts[1:-1].replace(", ", "\n  ") if counts.startswith("{") else counts
    raw = yaml_doc(JOB.format(counts=counts, labels="app: pi"))
    assert len(expand("Job", raw, []).pods) == pods


def test_job_pod_labels_and_owner() -> None:
    uid = stand_in_uid("Job", "batch", "pi")
    pods = expand("Job", yaml_doc(JOB.format(counts="parallelism: 2", labels="app: pi")), []).pods
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"generateName": "pi-", "namespace": "batch",
                        "labels": {"app": "pi", "job-name": "pi", "controller-uid": uid},
                        "ownerReferences": [ref("batch/v1", "Job", "pi", uid)]},
           "spec": {"restartPolicy": "Never", "containers": [{"name": "pi"}]}}
    assert plain(pods) == [pod, pod]


@pytest.mark.parametrize(("extra", "labels", "want"), [
    ("manualSelector: true", "app: pi", {"app": "pi"}),
    ("", "job-name: mine", {"job-name": "mine", "controller-uid": stand_in_uid("Job", "batch", "pi")}),
], ids=["manual-selector", "user-label-kept"])
def test_job_generated_labels(extra: str, labels: str, want: dict[str, str]) -> None:
    raw = yaml_doc(JOB.format(counts=extra, labels=labels))
    assert plain(expand("Job", raw, []).pods[0]["metadata"]["labels"]) == want


DAEMON_SET = """\
kind: DaemonSet
metadata: {{name: agent, namespace: kube-system}}
spec:
  selector: {{matchLabels: {{app: agent}}}}
  template:
    metadata: {{labels: {{app: agent}}}}
    spec:
      containers: [{{name: a, image: agent}}]
{spec}"""
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]
MASTER_TAINT = {"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def _pinned(node_name: str) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}}


def _three_nodes() -> list[Any]:
    return [node("n1"), node("master", taints=[MASTER_TAINT]),
            node("cordoned", taints=[UNSCHEDULABLE_TAINT], unschedulable=True)]


def test_daemon_set_runs_on_each_node_it_tolerates() -> None:
    expansion = expand("DaemonSet", yaml_doc(DAEMON_SET.format(spec="")), _three_nodes())
    assert expansion.problems == []
    uid = stand_in_uid("DaemonSet", "kube-system", "agent")
    assert plain(expansion.pods) == [{
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"generateName": "agent-", "namespace": "kube-system",
                     "labels": {"app": "agent", "pod-template-generation": "1",
                                "controller-revision-hash": "597774dcfb"},
                     "ownerReferences": [ref("apps/v1", "DaemonSet", "agent", uid)]},
        "spec": {"containers": [{"name": "a", "image": "agent"}], "tolerations": DAEMON_TOLERATIONS,
                 "affinity": _pinned(name)},
    } for name in ("n1", "cordoned")]


def test_daemon_set_that_tolerates_the_master_taint_runs_there_too() -> None:
    spec = "      tolerations: [{key: node-role.kubernetes.io/master, operator: Exists, effect: NoSchedule}]\n"
    pods = expand("DaemonSet", yaml_doc(DAEMON_SET.format(spec=spec)), _three_nodes()).pods
    assert [p["spec"]["affinity"] for p in pods] == [_pinned(n) for n in ("n1", "master", "cordoned")]
    assert plain(pods[0]["spec"]["tolerations"]) == [
        {"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"},
        *DAEMON_TOLERATIONS]


@pytest.mark.parametrize(("spec", "tolerations"), [
    ("      hostNetwork: true\n", [*DAEMON_TOLERATIONS, {"key": "node.kubernetes.io/network-unavailable",
                                                     "operator": "Exists", "effect": "NoSchedule"}]),
    # The same toleration is left as written (and not repeated)...
    ("      tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}]\n",
     [DAEMON_TOLERATIONS[1], DAEMON_TOLERATIONS[0], *DAEMON_TOLERATIONS[2:]]),
    # ...one that differs only in tolerationSeconds is replaced where it stands.
    ("      tolerations:\n      - {key: x, operator: Exists}\n      - {key: node.kubernetes.io/not-ready, "
     "operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n",
     [{"key": "x", "operator": "Exists"}, *DAEMON_TOLERATIONS]),
], ids=["host-network", "same-kept", "seconds-replaced"])
def test_daemon_tolerations(spec: str, tolerations: list[dict[str, str]]) -> None:
    pods = expand("DaemonSet", yaml_doc(DAEMON_SET.format(spec=spec)), [node("n")]).pods
    assert plain(pods[0]["spec"]["tolerations"]) == tolerations


def test_daemon_pod_pinning_replaces_required_terms_and_keeps_preferred() -> None:
    spec = """\
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions: [{key: disk, operator: In, values: [ssd]}]
            - matchExpressions: [{key: disk, operator: In, values: [nvme]}]
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 1
            preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: agent}}}
"""
    raw = yaml_doc(DAEMON_SET.format(spec=spec))
    before = copy.deepcopy(raw)
    nodes = [node("a", {"disk": "ssd"}), node("b", {"disk": "hdd"}), node("c", {"disk": "nvme"})]
    pods = expand("DaemonSet", raw, nodes).pods
    assert [plain(p["spec"]["affinity"]) for p in pods] == [{
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "preference": {"matchExpressions": [{"key": "zone", "operator": "In",
                                                                   "values": ["a"]}]}}]},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "agent"}}}]},
    } for name in ("a", "c")]
    assert raw == before


SIMPLE = {"name": "simple-daemon", "type": "production"}


def _affinity(term: str) -> str:
    return ("      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
            f"{{nodeSelectorTerms: [{term}]}}}}}}\n")


@pytest.mark.parametrize(("spec", "should_run"), [
    # pkg/controller/daemon/daemon_controller_test.go TestNodeShouldRunDaemonPod (v1.20) rows:
    ("", True),  # ShouldRunDaemonPod; InsufficientResourceError (resources are not checked)
    ("      nodeName: other-node\n", False),  # ErrPodNotMatchHostName
    ("      nodeName: test-node\n", True),
    ("      containers: [{name: c, ports: [{hostPort: 666, containerPort: 666}]}]\n", True),  # host ports
    ("      nodeSelector: {name: simple-daemon, type: test}\n", False),  # ErrNodeSelectorNotMatch
    ("      nodeSelector: {name: simple-daemon, type: production}\n", True),
    (_affinity("{matchExpressions: [{key: type, operator: In, values: [test]}]}"), False),  # ErrPodAffinityNotMatch
    (_affinity("{matchExpressions: [{key: type, operator: In, values: [production]}]}"), True),
    # matchFields and the edge cases of MatchNodeSelectorTerms:
    (_affinity("{matchFields: [{key: metadata.name, operator: In, values: [test-node]}]}"), True),
    (_affinity("{matchFields: [{key: metadata.name, operator: NotIn, values: [test-node]}]}"), False),
    (_affinity("{matchFields: [{key: metadata.name, operator: In, values: [test-node, x]}]}"), False),
    (_affinity("{}"), False),
    (_affinity("{matchExpressions: [{key: type, operator: Gt, values: [x]}]}, "
               "{matchExpressions: [{key: name, operator: Exists}]}"), True),
], ids=["should-run", "other-node-name", "same-node-name", "host-ports", "selector-mismatch", "selector-match",
        "affinity-mismatch", "affinity-match", "fields-in", "fields-not-in", "fields-two-values", "empty-term",
        "bad-term-then-good"])
def test_node_should_run_daemon_pod(spec: str, should_run: bool) -> None:
    raw = yaml_doc(DAEMON_SET.format(spec=spec).replace("      containers: [{name: a, image: agent}]\n", "")
                   if "containers" in spec else DAEMON_SET.format(spec=spec))
    expansion = expand("DaemonSet", raw, [node("test-node", SIMPLE)])
    assert expansion.problems == []
    assert len(expansion.pods) == int(should_run)


@pytest.mark.parametrize(("taint", "spec", "should_run"), [
    # The taint tests of daemon_controller_test.go (v1.20), as nodeShouldRunDaemonPod sees them:
    ({"key": "k1", "value": "v1", "effect": "NoSchedule"}, "", False),  # ...DoesNotLaunchIntolerantPods
    ({"key": "k1", "value": "v1", "effect": "NoSchedule"},
     "      tolerations: [{key: k1, operator: Equal, value: v1, effect: NoSchedule}]\n", True),  # ...TolerantPods
    ({"key": "k1", "value": "v1", "effect": "NoExecute"}, "", False),
    ({"key": "k1", "value": "v1", "effect": "PreferNoSchedule"}, "", True),
    ({"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}, "", True),  # NotReadyNodeDaemonLaunchesPod
    ({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}, "", True),  # UnreachableNode...
    ({"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}, "", True),
    ({"key": "node.kubernetes.io/disk-pressure", "effect": "NoSchedule"}, "", True),
    ({"key": "node.kubernetes.io/pid-pressure", "effect": "NoSchedule"}, "", True),
    ({"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}, "", False),
    ({"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}, "      hostNetwork: true\n", True),
], ids=["no-schedule", "tolerated", "no-execute", "prefer-no-schedule", "not-ready", "unreachable",
        "memory-pressure", "disk-pressure", "pid-pressure", "network-unavailable", "network-unavailable-host"])
def test_daemon_set_taints(taint: dict[str, str], spec: str, should_run: bool) -> None:
    expansion = expand("DaemonSet", yaml_doc(DAEMON_SET.format(spec=spec)), [node("n", taints=[taint])])
    assert len(expansion.pods) == int(should_run)


@pytest.mark.parametrize(("annotation", "label"), [
    ("", "1"), ("7", "7"), ("+7", "7"), ("x", None), ("9" * 30, None),
], ids=["new", "written", "signed", "bad", "huge"])
def test_daemon_set_template_generation(annotation: str, label: str | None) -> None:
    text = DAEMON_SET.format(spec="")
    if annotation:
        text = text.replace("namespace: kube-system}", "namespace: kube-system, annotations: "
                            f"{{deprecated.daemonset.template.generation: '{annotation}'}}}}")
    labels = expand("DaemonSet", yaml_doc(text), [node("n")]).pods[0]["metadata"]["labels"]
    assert labels.get("pod-template-generation") == label


def test_workload_kinds_and_other_kinds() -> None:
    assert {"Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "Job",
                              "DaemonSet"} == WORKLOAD_KINDS
    for kind in ("CronJob", "Pod", "Service"):
        expansion = expand(kind, {"metadata": {"name": "x"}}, [])
        assert (expansion.pods, expansion.objects, expansion.problems) == ([], [], [])


def test_a_bad_template_field_is_reported_at_its_line_in_the_workload_file() -> None:
    raw = yaml_doc(DEPLOYMENT.replace("image: nginx", "image: nginx\n        resources: {requests: {cpu: lots}}"),
                   "deploy.yaml")
    pod = expand("Deployment", raw, [], file="deploy.yaml").pods[0]
    pod["metadata"]["name"] = "web-1"  # as admission names it
    ctx = DecodeContext(file="deploy.yaml")
    decode_pod(ctx, pod)
    assert [(p.file, p.line, p.path) for p in ctx.problems] == [
        ("deploy.yaml", 18, "Pod shop/web-1: spec.containers[0].resources.requests.cpu")]


@pytest.mark.parametrize(("kind", "text"), [
    ("Deployment", DEPLOYMENT),
    ("StatefulSet", STATEFUL_SET),
    ("Job", JOB.format(counts="parallelism: 2", labels="app: pi")),
    ("DaemonSet", DAEMON_SET.format(spec="      tolerations: [{key: node.kubernetes.io/not-ready, operator: "
                                         "Exists, effect: NoExecute, tolerationSeconds: 5}]\n      affinity: "
                                         "{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                                         "{nodeSelectorTerms: [{matchExpressions: [{key: a, operator: "
                                         "DoesNotExist}]}]}}}\n")),
], ids=["deployment", "stateful-set", "job", "daemon-set"])
def test_inputs_are_not_changed(kind: str, text: str) -> None:
    raw = yaml_doc(text)
    before = (canonical_json(raw), copy.deepcopy(raw))
    lines = [(id(d), dict(d.key_lines)) for d in _dicts(raw)]
    expansion = expand(kind, raw, [node("n1"), node("n2")])
    assert expansion.pods and not expansion.problems
    for pod in expansion.pods:  # the outputs are changed freely by admission
        pod["metadata"]["labels"]["new"] = "x"
        pod["spec"].clear()
    assert (canonical_json(raw), raw) == before
    assert [(id(d), dict(d.key_lines)) for d in _dicts(raw)] == lines


def _dicts(value: Any) -> list[Any]:
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out
