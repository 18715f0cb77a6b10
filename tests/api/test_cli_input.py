"""Issue 10, items 4, 5 and 13, through ``ruleset.cli.main``: what the API server would refuse
(or what no int64 can hold) exits 2 with one located line per problem, within a second."""

from __future__ import annotations

import time

import pytest

from ruleset.cli import main

HEAD = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
CPU_RANGE = ("out of range: Kubernetes reads cpu in int64 millicores (Quantity.MilliValue()), "
             "at most 9223372036854775807m")
INT32_RANGE = "must be between -2147483648 and 2147483647, inclusive (an int32 field)"
POD = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\n"

CASES = [
    # (id, cluster file, expected stderr lines with {f} for the file)
    ("issue-reproducer", HEAD + 'status: {allocatable: {cpu: "1e999999999"}}\n',
     [f"error: {{f}}:4: Node n1: status.allocatable.cpu: '1e999999999': {CPU_RANGE}"]),
    ("node-cpu-1e1000", HEAD + 'status: {allocatable: {cpu: "1e1000", pods: "10"}}\n',
     [f"error: {{f}}:4: Node n1: status.allocatable.cpu: '1e1000': {CPU_RANGE}"]),
    ("bare-2^63-pods-and-memory", HEAD + "status:\n  allocatable:\n    pods: 9223372036854775808\n"
                                         "    memory: 9223372036854775808\n",
     ["error: {f}:6: Node n1: status.allocatable.pods: 9223372036854775808: out of range: Kubernetes reads pods "
      "as an int64 (Quantity.Value()), at most 9223372036854775807",
      "error: {f}:7: Node n1: status.allocatable.memory: 9223372036854775808: out of range: Kubernetes reads "
      "memory as an int64 (Quantity.Value()), at most 9223372036854775807"]),
    ("quantity-of-5000-digits", HEAD + f"status: {{allocatable: {{cpu: '{'1' * 5000}'}}}}\n",
     [f"error: {{f}}:4: Node n1: status.allocatable.cpu: '{'1' * 63}… (5000 characters): {CPU_RANGE}"]),
    ("pod-request-1e1000", HEAD + POD + "spec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: '1e1000'}}\n",
     [f"error: {{f}}:11: Pod d/p: spec.containers[0].resources.requests.cpu: '1e1000': {CPU_RANGE}"]),
    ("spec-priority-2^63", HEAD + POD + "spec: {priority: 9223372036854775808, containers: [{name: c}]}\n",
     [f"error: {{f}}:8: Pod d/p: spec.priority: Invalid value: 9223372036854775808: {INT32_RANGE}"]),
    ("spec-priority-above-int32", HEAD + POD + "spec: {priority: 2147483648, containers: [{name: c}]}\n",
     [f"error: {{f}}:8: Pod d/p: spec.priority: Invalid value: 2147483648: {INT32_RANGE}"]),
    ("negative-allocatable", HEAD + "status: {allocatable: {cpu: '-2', memory: 1Gi}}\n",
     ['error: {f}:4: Node n1: status.allocatable.cpu: Invalid value: "-2": must be greater than or equal to 0']),
    ("taint-effect-sometimes", HEAD + "spec: {taints: [{key: k, effect: Sometimes}]}\n",
     ['error: {f}:4: Node n1: spec.taints[0].effect: Unsupported value: "Sometimes": supported values: '
      '"NoSchedule", "PreferNoSchedule", "NoExecute"']),
    ("host-port-70000", HEAD + POD + "spec:\n  containers:\n  - name: c\n    ports: [{containerPort: 80, hostPort: 70000}]\n",
     ["error: {f}:11: Pod d/p: spec.containers[0].ports[0].hostPort: Invalid value: 70000: "
      "must be between 1 and 65535, inclusive"]),
    ("protocol-tcp", HEAD + POD + "spec:\n  containers:\n  - name: c\n    ports: [{containerPort: 80, protocol: tcp}]\n",
     ['error: {f}:11: Pod d/p: spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: '
      '"SCTP", "TCP", "UDP"']),
    ("priority-class-value", HEAD + "---\nkind: PriorityClass\nmetadata: {name: big}\nvalue: 3000000000\n",
     [f"error: {{f}}:7: PriorityClass big: value: Invalid value: 3000000000: {INT32_RANGE}"]),
    ("affinity-weight", HEAD + POD + "spec:\n  containers: [{name: c}]\n  affinity:\n    podAffinity:\n"
                                     "      preferredDuringSchedulingIgnoredDuringExecution:\n"
                                     "      - {weight: 200, podAffinityTerm: {topologyKey: zone}}\n",
     ["error: {f}:13: Pod d/p: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
      "Invalid value: 200: must be in the range 1-100"]),
]


@pytest.mark.parametrize(("cluster", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_schedule_exits_2_with_located_lines_at_once(tmp_path, capsys, cluster: str, expected: list[str]):
    path = tmp_path / "c.yaml"
    path.write_text(cluster)
    start = time.perf_counter()
    code = main(["schedule", "--cluster", str(path)])
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.splitlines() == [line.replace("{f}", str(path)) for line in expected]
    assert elapsed < 1.0


def test_score_pod_file_is_checked_too(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text(HEAD + "status: {allocatable: {cpu: '1', pods: '10'}}\n")
    (tmp_path / "pod.yaml").write_text("kind: Pod\nmetadata: {name: p, namespace: d}\n"
                                       "spec: {containers: [{name: c}], tolerations: [{operator: Exists, "
                                       "effect: NoSchedul}]}\n")
    code = main(["score", "--cluster", str(tmp_path / "c.yaml"), "--pod", str(tmp_path / "pod.yaml")])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f'error: {tmp_path / "pod.yaml"}:3: Pod d/p: spec.tolerations[0].effect: Unsupported value: "NoSchedul": '
        'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"']


def test_large_but_valid_values_schedule(tmp_path, capsys):
    """A node at the int64 edge is fine: sums stay int64 (Go's wrap-around), nothing overflows."""
    (tmp_path / "c.yaml").write_text(
        HEAD + "status: {allocatable: {cpu: 9223372036854775807m, memory: 9223372036854775807, pods: '110', "
               "ephemeral-storage: 8Ei}}\n"
        + POD + "spec: {containers: [{name: c, resources: {requests: {cpu: 9223372036854775807m, "
                "memory: 9223372036854775807}}}]}\n")
    code = main(["schedule", "--cluster", str(tmp_path / "c.yaml")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "d/p  →  n1" in out
