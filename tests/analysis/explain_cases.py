"""Clusters and pods that block a pod in one way each, for the ``explain`` tests; and the two
helpers that check a suggestion the way a user would: edit the pod manifest as the suggestion
says, and run ``ruleset score`` on it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from ruleset.analysis.explain import format_amount
from ruleset.cli import main


def node(name: str, *, cpu: str = "4", memory: str = "8Gi", labels: dict[str, str] | None = None,
         taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
            "spec": {"taints": taints or []},
            "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}}}


def pod(name: str, *, cpu: str = "100m", node_name: str = "", labels: dict[str, str] | None = None,
        **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx",
                                            "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]}
    if node_name:
        body["nodeName"] = node_name
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {}}, "spec": body}


def anti_affinity(labels: dict[str, str], key: str) -> dict[str, Any]:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": labels}, "topologyKey": key}]}}


GPU = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
LOCAL_PV = {
    "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "local-a", "uid": "local-a-uid"},
    "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
             "local": {"path": "/mnt/disks/ssd1"},
             "claimRef": {"namespace": "default", "name": "data"},
             "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                 {"key": "kubernetes.io/hostname", "operator": "In", "values": ["a-1"]}]}]}}},
    "status": {"phase": "Bound"}}
DATA_CLAIM = {
    "apiVersion": "v1", "kind": "PersistentVolumeClaim",
    "metadata": {"name": "data", "namespace": "default", "uid": "data-uid",
                 "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "", "volumeName": "local-a",
             "resources": {"requests": {"storage": "10Gi"}}},
    "status": {"phase": "Bound"}}

#: id → (cluster objects, the pod to explain).
CASES: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "taints": (
        [node("g-1", taints=[GPU]), node("g-2", taints=[GPU]),
         node("t-1", taints=[{"key": "team", "value": "x", "effect": "NoExecute"}])],
        pod("web")),
    "resources": (
        [node("n-1", cpu="2"), node("n-2", cpu="4"), node("n-3", cpu="4"), node("n-4", cpu="4"),
         pod("busy", cpu="2", node_name="n-4")],
        pod("web", cpu="5")),
    "node-selector": (
        [node("d-1", labels={"disktype": "nvme"}), node("d-2", labels={"disktype": "nvme"}),
         node("d-3", labels={"disktype": "hdd"})],
        pod("web", nodeSelector={"disktype": "ssd"})),
    "anti-affinity": (
        [node("a-1", labels={"zone": "a"}), node("a-2", labels={"zone": "a"}), node("b-1", labels={"zone": "b"}),
         pod("db-a", labels={"app": "db"}, node_name="a-1"), pod("db-b", labels={"app": "db"}, node_name="b-1")],
        pod("db-c", labels={"app": "db"}, affinity=anti_affinity({"app": "db"}, "zone"))),
    "volume": (
        [node("a-1", labels={"kubernetes.io/hostname": "a-1"}, taints=[GPU]),
         node("b-1", labels={"kubernetes.io/hostname": "b-1"}),
         node("c-1", labels={"kubernetes.io/hostname": "c-1"}), LOCAL_PV, DATA_CLAIM],
        pod("web", volumes=[{"name": "store", "persistentVolumeClaim": {"claimName": "data"}}])),
}


def write_case(tmp_path: Path, case: str) -> tuple[str, str]:
    """The case's cluster and pod files (JSON, which YAML reads)."""
    objects, the_pod = CASES[case]
    cluster, pod_file = tmp_path / "cluster.yaml", tmp_path / "pod.yaml"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    pod_file.write_text(json.dumps(the_pod))
    return str(cluster), str(pod_file)


def apply(manifest: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with a suggestion's ``change`` made, as a user would edit the file."""
    out = copy.deepcopy(manifest)
    spec = out["spec"]
    kind = change["kind"]
    if kind == "request":
        requests = spec["containers"][0]["resources"]["requests"]
        requests[change["resource"]] = format_amount(change["resource"], change["newRequest"])
    elif kind == "toleration":
        toleration = {k: change[k] for k in ("key", "operator", "value", "effect") if change[k]}
        spec.setdefault("tolerations", []).append(toleration)
    elif kind == "nodeSelector":
        spec["nodeSelector"][change["key"]] = change["suggested"]
    elif kind == "dropPodAntiAffinity":
        del spec["affinity"]["podAntiAffinity"]
    elif kind == "dropVolume":
        spec["volumes"] = [v for v in spec["volumes"] if v["name"] != change["volume"]]
    else:
        raise AssertionError(f"no edit for {kind}")
    return out


def fitting_after(capsys: Any, tmp_path: Path, cluster: str, manifest: dict[str, Any]) -> list[str]:
    """The nodes ``ruleset score`` finds feasible for ``manifest``."""
    changed = tmp_path / "changed.yaml"
    changed.write_text(json.dumps(manifest))
    capsys.readouterr()
    code = main(["score", "--cluster", cluster, "--pod", str(changed), "-o", "json"])
    out = capsys.readouterr().out
    assert code == 0
    return [n["name"] for n in json.loads(out)["nodes"] if n["filter"]["code"] == "Success"]
