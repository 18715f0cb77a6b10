"""The same cluster under the bundled ``default`` (kube-scheduler 1.35) and ``default-1.20``:
native sidecars count in requests only where the release has them, gated pods are gated
only there, and the 1.20 run says which fields it ignored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ruleset.cli import main

CLUSTER = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: small, labels: {kubernetes.io/hostname: small}}
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
"""
PODS = """\
apiVersion: v1
kind: List
items:
- kind: Pod
  metadata: {name: with-sidecar, namespace: d, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec:
    initContainers:
    - {name: proxy, image: envoy, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
    containers:
    - {name: app, image: nginx, resources: {requests: {cpu: 1500m}}}
- kind: Pod
  metadata: {name: gated, namespace: d, creationTimestamp: "2026-01-01T00:00:01Z"}
  spec:
    schedulingGates: [{name: example.com/quota}]
    containers: [{name: app, image: nginx, resources: {requests: {cpu: 100m}}}]
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "p.yaml").write_text(PODS)
    return str(tmp_path / "c.yaml"), str(tmp_path / "p.yaml")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[dict, str]:
    assert main([*argv, "-o", "json"]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


def test_under_1_35_the_sidecar_counts_and_the_gated_pod_waits(files, capsys):
    cluster, pods = files
    data, err = run(capsys, "schedule", "--profile", "default", "--cluster", cluster, "--pods", pods)
    assert err == ""
    assert data["placements"] == [
        {"pod": "d/gated", "node": None, "reason": "waiting for scheduling gates: [example.com/quota]",
         "gated": True},
        # 1500m + the sidecar's 1 CPU = 2500m > 2 CPU: beyond the node's allocatable, which 1.34+
        # calls UnschedulableAndUnresolvable (no preemption either).
        {"pod": "d/with-sidecar", "node": None, "reason": "0/1 nodes are available: 1 Insufficient cpu. "
         "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."},
    ]
    assert data["ignoredPodFields"] == []


def test_under_1_20_both_are_scheduled_and_the_ignored_fields_are_named(files, capsys):
    cluster, pods = files
    data, err = run(capsys, "schedule", "--profile", "default-1.20", "--cluster", cluster, "--pods", pods)
    assert [(p["pod"], p["node"]) for p in data["placements"]] == [("d/with-sidecar", "small"),
                                                                    ("d/gated", "small")]
    assert [e["field"] for e in data["ignoredPodFields"]] == [
        "initContainers[].restartPolicy: Always (native sidecar containers)", "spec.schedulingGates"]
    assert err.splitlines() == [
        "warning: 1 pod uses initContainers[].restartPolicy: Always (native sidecar containers), which "
        "Kubernetes 1.20 ignores (honoured from 1.29, feature gate SidecarContainers): set kubernetesVersion to "
        "the release your cluster runs",
        "warning: 1 pod uses spec.schedulingGates, which Kubernetes 1.20 ignores (honoured from 1.27, feature "
        "gate PodSchedulingReadiness): set kubernetesVersion to the release your cluster runs",
    ]


MATCH_LABEL_KEYS_CLUSTER = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
- kind: Pod
  metadata: {name: old, namespace: d, uid: u1, labels: {app: web, rev: "1"}}
  spec: {nodeName: n1, containers: [{name: c}]}
"""
MATCH_LABEL_KEYS_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: new, namespace: d, labels: {app: web, rev: "2"}}
spec:
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        topologyKey: kubernetes.io/hostname
        matchLabelKeys: [rev]
  containers: [{name: c}]
"""


@pytest.mark.parametrize("profile, expected", [
    # 1.35: the API server merged "rev In [2]" into the selector on create: the rev=1 pod is no conflict.
    pytest.param("default", ("d/new", "n1", None), id="1.35-merged"),
    pytest.param("default-1.20", ("d/new", None, "0/1 nodes are available: 1 node(s) didn't match pod "
                                                 "affinity/anti-affinity, 1 node(s) didn't match pod anti-affinity "
                                                 "rules."), id="1.20-ignored"),
])
def test_match_label_keys_of_pod_anti_affinity_are_merged_on_create(tmp_path, capsys, profile, expected):
    (tmp_path / "c.yaml").write_text(MATCH_LABEL_KEYS_CLUSTER)
    (tmp_path / "p.yaml").write_text(MATCH_LABEL_KEYS_POD)
    data, _ = run(capsys, "schedule", "--profile", profile, "--cluster", str(tmp_path / "c.yaml"),
                  "--pods", str(tmp_path / "p.yaml"))
    assert [(p["pod"], p["node"], p.get("reason")) for p in data["placements"]] == [expected]


def test_plugins_that_skip_the_pod_are_named_in_score(tmp_path, capsys, monkeypatch):
    """PreScore skips the pod (not scored) at 1.35: VolumeBinding always with its scoring gates off
    (1.30+), then PodTopologySpread and InterPodAffinity for a pod without soft spread constraints or
    affinity terms (1.28+), in the profile's order; score says so, in JSON and text. None skips at 1.20."""
    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "p.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: plain, namespace: d}\n"
                                     "spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n")
    argv = ["score", "--cluster", str(tmp_path / "c.yaml"), "--pod", str(tmp_path / "p.yaml")]
    data, _ = run(capsys, *argv)
    assert data["skippedPlugins"] == ["VolumeBinding", "PodTopologySpread", "InterPodAffinity"]
    data, _ = run(capsys, *argv, "--profile", "default-1.20")
    assert data["skippedPlugins"] == []
    monkeypatch.setenv("COLUMNS", "120")
    assert main(argv) == 0
    assert ("  skipped   VolumeBinding, PodTopologySpread, InterPodAffinity (PreScore skipped this pod: not scored)"
            in capsys.readouterr().out.splitlines())
