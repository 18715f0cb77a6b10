"""Real, published manifests in, Kubernetes' answers out, through the command line: what the
API server adds to a pod (requests from limits, default tolerations, names from
``generateName``), workloads becoming their controllers' pods (Deployment, DaemonSet), ``--scale``
and ``score --pod`` on a workload. The unit tables live in ``tests/admission`` and
``tests/workloads``; these check that the pieces are wired as a user meets them."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from ruleset.cli import main


def node(name: str, zone: str = "z1", *, gpus: int = 0, taints: str = "", extra: str = "") -> str:
    gpu = f", nvidia.com/gpu: '{gpus}'" if gpus else ""
    return (f"---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{topology.kubernetes.io/zone: "
            f"{zone}, kubernetes.io/hostname: {name}}}\nspec: {{taints: [{taints}]{extra}}}\n"
            f"status:\n  allocatable: {{cpu: '8', memory: 32Gi, pods: '110'{gpu}}}\n")


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main([*argv, "-o", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out else {}


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# NVIDIA's example (docs.nvidia.com, "Running a GPU workload"): limits only.
NVIDIA_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: cuda-vectoradd
spec:
  restartPolicy: OnFailure
  containers:
  - name: cuda-vectoradd
    image: "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda11.7.1-ubuntu20.04"
    resources:
      limits:
        nvidia.com/gpu: 1
"""


def test_a_limits_only_gpu_pod_goes_to_the_gpu_node_and_a_second_one_nowhere(tmp_path, capsys):
    cluster = write(tmp_path, "c.yaml", node("cpu-1") + node("gpu-1", gpus=1))
    pods = write(tmp_path, "p.yaml", NVIDIA_POD + "---\n" + NVIDIA_POD.replace("cuda-vectoradd\nspec",
                                                                                 "cuda-vectoradd-2\nspec"))
    code, data = run(tmp_path, capsys, "schedule", "--cluster", cluster, "--pods", pods)
    assert code == 0
    assert [(p["pod"], p["node"], p.get("reason")) for p in data["placements"]] == [
        ("default/cuda-vectoradd", "gpu-1", None),
        # 1.35's message: the GPU-less node is Unresolvable (no GPU at all), the GPU node has no victim.
        ("default/cuda-vectoradd-2", None, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: "
         "0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful "
         "for scheduling."),
    ]


def test_admission_changes_are_counted_under_verbose(tmp_path, capsys):
    cluster = write(tmp_path, "c.yaml", node("gpu-1", gpus=1))
    pods = write(tmp_path, "p.yaml", NVIDIA_POD)
    assert main(["schedule", "--cluster", cluster, "--pods", pods, "-o", "json", "-v"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "admission" in line]
    assert notes == [
        "note: admission: DefaultTolerationSeconds tolerations added: 1 pod",
        "note: admission: namespace defaulted: 1 pod",
        "note: admission: requests defaulted from limits: 1 pod",
        "note: admission: schedulerName defaulted: 1 pod",
    ]


def test_default_toleration_seconds_lets_a_pod_onto_a_not_ready_noexecute_node(tmp_path, capsys):
    """Without the DefaultTolerationSeconds tolerations TaintToleration would refuse the node."""
    taint = "{key: node.kubernetes.io/not-ready, effect: NoExecute}"
    cluster = write(tmp_path, "c.yaml", node("flaky", taints=taint))
    pods = write(tmp_path, "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n")
    code, data = run(tmp_path, capsys, "schedule", "--cluster", cluster, "--pods", pods)
    assert (code, [(p["pod"], p["node"]) for p in data["placements"]]) == (0, [("default/p", "flaky")])


def test_generate_name_is_deterministic_by_seed(tmp_path, capsys):
    cluster = write(tmp_path, "c.yaml", node("n1"))
    pods = write(tmp_path, "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {generateName: batch-}\n"
                                     "spec: {containers: [{name: c}]}\n")
    names = []
    for seed in ("0", "0", "1"):
        code, data = run(tmp_path, capsys, "schedule", "--cluster", cluster, "--pods", pods, "--seed", seed)
        assert code == 0
        names.append(data["placements"][0]["pod"])
    assert names[0] == names[1] != names[2]
    assert all(re.fullmatch(r"default/batch-[bcdfghjklmnpqrstvwxz2456789]{5}", name) for name in names)


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
         labelSelector: {matchLabels: {app: web}}}
      containers:
      - {name: web, image: nginx, resources: {requests: {cpu: 100m, memory: 128Mi}}}
"""


def test_a_deployment_of_five_spreads_over_three_zones_within_max_skew(tmp_path, capsys):
    # Zone a starts with two pods of the app: the five new ones must even the zones out
    # (2 + 1, 2 + 2, 2 + 2 would break maxSkew 1; DoNotSchedule makes it a filter).
    running = "".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: old-{i}, namespace: shop, labels: {{app: web}}}}\n"
        f"spec: {{nodeName: a-1, containers: [{{name: web}}]}}\n" for i in range(2))
    cluster = write(tmp_path, "c.yaml", node("a-1", "a") + node("b-1", "b") + node("c-1", "c") + running)
    pods = write(tmp_path, "deploy.yaml", DEPLOYMENT)
    code, data = run(tmp_path, capsys, "schedule", "--cluster", cluster, "--pods", pods)
    assert code == 0
    placed = [p for p in data["placements"] if p["pod"].startswith("shop/web-")]
    assert len(placed) == 5
    assert all(re.fullmatch(r"shop/web-[a-z0-9]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}", p["pod"]) for p in placed)
    # Final counts per zone: a 2 + x, b y, c z with max - min <= 1 and x + y + z = 5: a gets
    # at most one more (3), b and c two each.
    assert Counter(p["node"] for p in placed) == {"a-1": 1, "b-1": 2, "c-1": 2}


DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-exporter, namespace: monitoring}
spec:
  selector: {matchLabels: {app: node-exporter}}
  template:
    metadata: {labels: {app: node-exporter}}
    spec:
      containers:
      - {name: exporter, image: prom/node-exporter, resources: {requests: {cpu: 50m, memory: 64Mi}}}
"""


@pytest.mark.parametrize("tolerates, expected", [
    pytest.param(False, ["worker-1", "worker-2", "cordoned"], id="no-toleration"),
    pytest.param(True, ["master-1", "worker-1", "worker-2", "cordoned"], id="tolerates-master"),
])
def test_a_daemonset_runs_on_every_node_it_tolerates(tmp_path, capsys, tolerates, expected):
    """v1.20's DaemonSet controller: no pod on the tainted control-plane node unless the
    template tolerates it; one on the cordoned node (the controller adds the unschedulable
    toleration, which v1.20's NodeUnschedulable filter honours); each pinned to its node."""
    master = "{key: node-role.kubernetes.io/master, effect: NoSchedule}"
    cluster = write(tmp_path, "c.yaml", node("master-1", taints=master) + node("worker-1") + node("worker-2")
                    + node("cordoned", extra=", unschedulable: true"))
    template = DAEMONSET
    if tolerates:
        template = template.replace("      containers:", "      tolerations:\n      - {key: "
                                    "node-role.kubernetes.io/master, operator: Exists, effect: NoSchedule}\n"
                                    "      containers:")
    pods = write(tmp_path, "ds.yaml", template)
    code, data = run(tmp_path, capsys, "schedule", "--cluster", cluster, "--pods", pods)
    assert code == 0
    assert [p["node"] for p in data["placements"]] == expected
    assert all(p["pod"].startswith("monitoring/node-exporter-") for p in data["placements"])


def test_scale_creates_the_missing_replicas_from_the_deployments_replicaset(tmp_path, capsys):
    base = DEPLOYMENT.replace("replicas: 5", "replicas: 2")
    deploy = write(tmp_path, "deploy.yaml", base)
    # The cluster as it runs: the Deployment, its ReplicaSet and two pods, made as ruleset makes them.
    code, data = run(tmp_path, capsys, "schedule", "--cluster", write(tmp_path, "n.yaml", node("n1")),
                     "--pods", deploy)
    assert code == 0
    running = [p["pod"] for p in data["placements"]]
    assert len(running) == 2
    code, data = run(tmp_path, capsys, "schedule", "--cluster", str(tmp_path / "n.yaml"), deploy,
                     "--scale", "deployment/shop/web=5")
    # In the cluster file the Deployment has no pods yet (no dump): all five are missing.
    assert code == 0
    assert len(data["placements"]) == 5
    assert len({p["pod"].rsplit("-", 1)[0] for p in data["placements"]}) == 1  # one ReplicaSet


@pytest.mark.parametrize("value, message", [
    pytest.param("deployment/shop/nope=3", "--scale deployment/shop/nope=3: no Deployment shop/nope in the cluster",
                 id="unknown"),
    pytest.param("cronjob/shop/web=3", "--scale cronjob/shop/web=3: 'cronjob' is not a workload kind ruleset "
                 "scales (Deployment, ReplicaSet, ReplicationController, StatefulSet)", id="kind"),
    pytest.param("web=3", "--scale web=3: expected KIND/NAMESPACE/NAME=N with N at most 100,000 "
                 "(e.g. deployment/default/web=40)", id="malformed"),
])
def test_scale_problems_are_input_errors(tmp_path, capsys, value, message):
    deploy = write(tmp_path, "deploy.yaml", DEPLOYMENT)
    code = main(["schedule", "--cluster", write(tmp_path, "n.yaml", node("n1")), deploy, "--scale", value])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f"error: {message}\n")


def test_a_pods_file_that_yields_no_pod_is_an_error_naming_what_it_held(tmp_path, capsys):
    cron = write(tmp_path, "cron.yaml", "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\n"
                                        "spec: {schedule: '0 3 * * *', jobTemplate: {spec: {template: {spec: "
                                        "{containers: [{name: c}]}}}}}\n---\nkind: ConfigMap\nmetadata: {name: x}\n")
    code = main(["schedule", "--cluster", write(tmp_path, "n.yaml", node("n1")), "--pods", cron])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (f"error: {cron}: no pod to schedule: the file holds 1 ConfigMap, 1 CronJob (pods come from "
                   "Pod, Deployment, ReplicaSet, ReplicationController, StatefulSet, Job and DaemonSet objects)\n")


def test_score_takes_a_workload_and_scores_its_first_pod(tmp_path, capsys):
    cluster = write(tmp_path, "c.yaml", node("a-1", "a") + node("b-1", "b"))
    code, data = run(tmp_path, capsys, "score", "--cluster", cluster, "--pod", write(tmp_path, "d.yaml", DEPLOYMENT))
    assert code == 0
    assert re.fullmatch(r"shop/web-[a-z0-9]+-[a-z0-9]{5}", data["pod"])
    assert [n["filter"]["code"] for n in data["nodes"]] == ["Success", "Success"]


DUMP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, uid: d-1}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-5d78c9869d
  namespace: shop
  uid: rs-1
  labels: {app: web, pod-template-hash: 5d78c9869d}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true}]
spec:
  replicas: 2
  selector: {matchLabels: {app: web, pod-template-hash: 5d78c9869d}}
  template:
    metadata: {labels: {app: web, pod-template-hash: 5d78c9869d}}
    spec: {containers: [{name: web, image: nginx}]}
""" + "".join(f"""\
---
apiVersion: v1
kind: Pod
metadata:
  name: web-5d78c9869d-{suffix}
  namespace: shop
  uid: p-{suffix}
  labels: {{app: web, pod-template-hash: 5d78c9869d}}
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d78c9869d, uid: rs-1, controller: true}}]
spec: {{nodeName: n1, containers: [{{name: web, image: nginx}}]}}
""" for suffix in ("abcde", "fghjk"))


def test_scale_a_dumped_deployment_adds_only_the_missing_replicas_to_its_replicaset(tmp_path, capsys):
    cluster = write(tmp_path, "dump.yaml", node("n1") + DUMP)
    code, data = run(tmp_path, capsys, "schedule", "--cluster", cluster, "--scale", "deploy/shop/web=5")
    assert code == 0
    pods = [p["pod"] for p in data["placements"]]
    assert len(pods) == 3
    assert all(re.fullmatch(r"shop/web-5d78c9869d-[bcdfghjklmnpqrstvwxz2456789]{5}", pod) for pod in pods)
    code, data = run(tmp_path, capsys, "schedule", "--cluster", cluster, "--scale", "deploy/shop/web=2")
    assert (code, data["placements"]) == (0, [])


def test_what_a_pods_file_holds_besides_pods_is_said_without_verbose(tmp_path, capsys):
    mixed = write(tmp_path, "mixed.yaml", "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\n"
                                          "spec: {schedule: '0 3 * * *'}\n---\nkind: ConfigMap\nmetadata: {name: x}\n"
                                          "---\nkind: ConfigMap\nmetadata: {name: y}\n---\nkind: Pod\n"
                                          "metadata: {name: p}\nspec: {containers: [{name: c}]}\n")
    code = main(["schedule", "--cluster", write(tmp_path, "n.yaml", node("n1")), "--pods", mixed, "-o", "json"])
    err = capsys.readouterr().err
    assert (code, err.splitlines()) == (0, [
        f"warning: {mixed}: ConfigMap: not a pod or a workload; skipped (2 of them)",
        f"warning: {mixed}: CronJob: its pods are not created (they come on a schedule); skipped",
    ])


def test_in_a_folder_a_file_without_pods_is_a_warning_not_an_error(tmp_path, capsys):
    app = tmp_path / "app"
    app.mkdir()
    (app / "deploy.yaml").write_text(DEPLOYMENT)
    (app / "service.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n"
                                      "spec: {selector: {app: web}}\n")
    code = main(["schedule", "--cluster", write(tmp_path, "n.yaml", node("n1")), "--pods", str(app), "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert len(json.loads(out)["placements"]) == 5
    assert err == (f"warning: {app / 'service.yaml'}: no pod to schedule: the file holds 1 Service (pods come from "
                   "Pod, Deployment, ReplicaSet, ReplicationController, StatefulSet, Job and DaemonSet objects)\n")


def test_a_dump_given_as_pods_creates_no_pod_twice(tmp_path, capsys):
    """``kubectl get deploy,rs,pods -o yaml`` as --pods: the workloads exist, their pods are in the dump."""
    dump = write(tmp_path, "dump.yaml", DUMP)
    code = main(["schedule", "--cluster", write(tmp_path, "n.yaml", node("n1")), "--pods", dump, "-o", "json"])
    out, err = capsys.readouterr()
    assert (code, json.loads(out)["placements"]) == (0, [])
    assert err.splitlines() == [
        f"warning: {dump}: Deployment: already created (it has a uid or a creationTimestamp): its pods are the "
        "ones the input holds, none is created",
        f"warning: {dump}: ReplicaSet: already created (it has a uid or a creationTimestamp): its pods are the "
        "ones the input holds, none is created",
    ]


def test_the_same_workload_in_two_files_is_an_error_naming_both(tmp_path, capsys):
    first, second = write(tmp_path, "a.yaml", DAEMONSET), write(tmp_path, "b.yaml", "\n" + DAEMONSET)
    code = main(["schedule", "--cluster", write(tmp_path, "n.yaml", node("n1")), "--pods", first, second])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (f"error: {second}:3: DaemonSet monitoring/node-exporter: duplicate DaemonSet "
                   f"monitoring/node-exporter (first at {first}:2)\n")


def test_pods_created_by_the_run_queue_behind_older_pending_pods(tmp_path, capsys):
    """The API server stamps a new pod "now": an older pending pod of the same priority goes first."""
    one = node("only").replace("cpu: '8'", "cpu: '4'")
    old = ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: old-pending, namespace: d, uid: u-1, "
           "creationTimestamp: '2024-05-01T00:00:00Z'}\nspec: {containers: [{name: c, resources: {requests: "
           "{cpu: '3'}}}]}\n")
    new = write(tmp_path, "new.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: new-pod, namespace: d}\n"
                                      "spec: {containers: [{name: c, resources: {requests: {cpu: '3'}}}]}\n")
    code, data = run(tmp_path, capsys, "schedule", "--cluster", write(tmp_path, "c.yaml", one + old), "--pods", new)
    assert code == 0
    assert [(p["pod"], p["node"]) for p in data["placements"]] == [("d/old-pending", "only"), ("d/new-pod", None)]


def test_workloads_cannot_take_the_run_past_kubernetes_pod_limit(tmp_path, capsys):
    many = "".join(DEPLOYMENT.replace("replicas: 5", "replicas: 100000").replace("name: web,", f"name: web{i},")
                   + "---\n" for i in range(2))
    code = main(["schedule", "--cluster", write(tmp_path, "n.yaml", node("n1")), "--pods",
                 write(tmp_path, "many.yaml", many)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (f"error: {tmp_path / 'many.yaml'}:17: Deployment web1: 100,000 pods would take the run past "
                   "150,000 pods, Kubernetes' limit of pods per cluster\n")


def test_scaling_down_says_it_creates_nothing(tmp_path, capsys):
    cluster = write(tmp_path, "dump.yaml", node("n1") + DUMP)
    code = main(["schedule", "--cluster", cluster, "--scale", "deploy/shop/web=1", "-o", "json"])
    assert code == 0
    assert capsys.readouterr().err == ("warning: --scale deploy/shop/web=1: the Deployment has 1 or more pods "
                                       "already: scaling down creates no pod\n")
