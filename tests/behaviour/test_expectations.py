"""Each kind of expectation, passing and failing, on one small cluster (inline nodes and pods).

Under the bundled ``default`` profile (LeastAllocated) the two web pods spread over n1 and
n2; under ``cluster-autoscaler`` (MostAllocated) both land on n2. ``gpu-job`` tolerates
n3's taint and selects its zone; ``big`` fits nowhere.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ruleset.behaviour.model import Outcome
from ruleset.behaviour.runner import run_file

CLUSTER = textwrap.dedent("""\
    [[nodes]]
    name = "n1"
    labels = { zone = "a" }
    [[nodes]]
    name = "n2"
    labels = { zone = "b" }
    [[nodes]]
    name = "n3"
    cpu = "2"
    labels = { zone = "c" }
    taints = ["dedicated=gpu:NoSchedule"]
    [[pods]]
    name = "web-1"
    cpu = "1"
    memory = "2Gi"
    labels = { app = "web" }
    [[pods]]
    name = "web-2"
    cpu = "1"
    memory = "2Gi"
    labels = { app = "web" }
    [[pods]]
    name = "gpu-job"
    cpu = "1"
    tolerations = ["dedicated=gpu:NoSchedule"]
    node-selector = { zone = "c" }
    [[pods]]
    name = "big"
    cpu = "16"
    """)
BIG = ("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes "
       "are available: 3 Preemption is not helpful for scheduling.")

CASES = [
    pytest.param("", 'pod = "web-1"\nlands-on = "zone=b"', True, "default/web-1 landed on n2", id="lands-on"),
    pytest.param("", 'pod = "default/web-2"\nlands-on = "zone in (b, c) || kubernetes.io/hostname=n1"', True,
                 "default/web-2 landed on n1", id="lands-on-or"),
    pytest.param("", 'pod = "web-1"\nlands-on = "zone=a,disk"', False,
                 "default/web-1 landed on n2 (no disk, zone=b), which does not match zone=a,disk",
                 id="lands-on-elsewhere"),
    pytest.param("", 'pod = "big"\nlands-on = "zone=a"', False, f"default/big was not scheduled: {BIG}",
                 id="lands-on-unscheduled"),
    pytest.param("", 'pod = "big"\nunschedulable = true', True, f"default/big is unschedulable: {BIG}",
                 id="unschedulable"),
    pytest.param("", 'pod = "big"\nunschedulable = true\nreason = "Insufficient cpu"', True,
                 f"default/big is unschedulable: {BIG}", id="unschedulable-reason"),
    pytest.param("", 'pod = "big"\nunschedulable = true\nreason = "Insufficient memory"', False,
                 f"default/big is unschedulable, but not for 'Insufficient memory': {BIG}",
                 id="unschedulable-other-reason"),
    pytest.param("", 'pod = "gpu-job"\nunschedulable = true', False, "default/gpu-job was scheduled on n3",
                 id="unschedulable-placed"),
    pytest.param("", 'at-most = 1\npods = "app=web"', True, "the most pods matching app=web on one node: 1 (n1)",
                 id="at-most"),
    pytest.param('profile = "cluster-autoscaler"\n', 'at-most = 1\npods = "app=web"', False,
                 "n2 holds 2 pods matching app=web (at most 1): default/web-1, default/web-2", id="at-most-packed"),
    pytest.param("", 'at-most = 0\npods = "app=web"', False,
                 "n1 holds 1 pods matching app=web (at most 0): default/web-2; 1 other node(s) hold more than 0 "
                 "too", id="at-most-several-nodes"),
    pytest.param("", 'at-most = 2\npods = "app=web"\nper-node = false', True,
                 "the cluster holds 2 pods matching app=web", id="at-most-cluster"),
    pytest.param("", 'at-most = 1\npods = "app"\nper-node = false', False,
                 "the cluster holds 2 pods matching app (at most 1): default/web-1, default/web-2",
                 id="at-most-cluster-over"),
    pytest.param("", 'spread = "cpu"\nmax-stddev = 12\nmax-range = 25', True,
                 "cpu utilisation over 3 nodes: std-dev 11.79, from 25% to 50%", id="spread"),
    pytest.param("", 'spread = "cpu"\nmax-stddev = 10\nmax-range = 20', False,
                 "cpu utilisation over 3 nodes: std-dev 11.79, from 25% to 50% (std-dev 11.79 is over 10; "
                 "max-min 25 is over 20)", id="spread-over"),
    pytest.param('profile = "cluster-autoscaler"\n', 'spread = "cpu"\nmax-range = 49.5', False,
                 "cpu utilisation over 3 nodes: std-dev 23.57, from 0% to 50% (max-min 50 is over 49.5)",
                 id="spread-packed"),
    pytest.param("", 'spread = "nvidia.com/gpu"\nmax-stddev = 10', False, "no node has nvidia.com/gpu allocatable",
                 id="spread-no-resource"),
    pytest.param("", 'same-as = "default-1.20"', True, "all 4 placements agree", id="same-as"),
    pytest.param("", 'same-as = "cluster-autoscaler"', False,
                 "1 of 4 placements differ: default/web-2: n1 here, n2 there", id="same-as-differs"),
]


def _run(tmp_path: Path, head: str, expect: str) -> list[Outcome]:
    path = tmp_path / "t.test.toml"
    path.write_text(head + CLUSTER + "[[expect]]\n" + expect + "\n", encoding="utf-8")
    outcome = run_file(path)
    assert outcome.problems == []
    return outcome.outcomes


@pytest.mark.parametrize(("head", "expect", "passed", "message"), CASES)
def test_expectation(tmp_path: Path, head: str, expect: str, passed: bool, message: str) -> None:
    [outcome] = _run(tmp_path, head, expect)
    assert (outcome.passed, outcome.message) == (passed, message)


def test_same_as_lists_at_most_five_differences(tmp_path: Path) -> None:
    pods = "".join(f'[[pods]]\nname = "p{i}"\ncpu = "100m"\nmemory = "100Mi"\n' for i in range(14))
    path = tmp_path / "t.test.toml"
    path.write_text('[[nodes]]\nname = "a"\n[[nodes]]\nname = "b"\n' + pods
                    + '[[expect]]\nsame-as = "cluster-autoscaler"\n', encoding="utf-8")
    [outcome] = run_file(path).outcomes
    assert outcome.message == ("7 of 14 placements differ: default/p1: a here, b there; default/p3: a here, b "
                               "there; default/p4: a here, b there; default/p7: a here, b there; default/p9: a "
                               "here, b there; and 2 more")


def test_a_pod_not_in_the_run_is_a_located_problem(tmp_path: Path) -> None:
    path = tmp_path / "t.test.toml"
    path.write_text(CLUSTER + '[[expect]]\npod = "web-9"\nunschedulable = true\n', encoding="utf-8")
    outcome = run_file(path)
    assert outcome.outcomes == []
    assert [(p.line, p.column, p.path, p.code, p.message) for p in outcome.problems] == [
        (30, 1, "expect[0].pod", "unknown-pod",
         "no pending pod default/web-9 in this run (pending pods: default/web-1, default/web-2, default/gpu-job, "
         "default/big)")]


def test_the_demo_example_passes() -> None:
    outcome = run_file(Path(__file__).parent / "fixtures" / "demo.test.toml")
    assert outcome.problems == []
    assert [(o.expectation.kind, o.passed) for o in outcome.outcomes] == [
        ("lands-on", True), ("unschedulable", True), ("at-most", True), ("spread", True), ("same-as", True)]
