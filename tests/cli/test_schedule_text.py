"""``ruleset.cli.schedule_text``: ``ruleset schedule`` as text, from hand-written schedule
documents (exact output) and end to end through the command on 1,000 nodes and 1,000 pods,
and under an ASCII-only stdout."""

import os
import re
import subprocess
import sys

import pytest
import yaml

from ruleset.cli import main
from ruleset.cli.schedule_text import amount, percent, render_schedule
from ruleset.cli.terminal import ASCII, UNICODE

GI = 1024**3


def pair(requested, allocatable):
    return {"requested": requested, "allocatable": allocatable}


def node(name, cpu, memory, pods, gpu=(0, 0)):
    return {"name": name, "pods": {"count": pods[0], "allocatable": pods[1]},
            "cpu": {**pair(*cpu), "unit": "millicores"}, "memory": {**pair(*memory), "unit": "bytes"},
            "extended": {"nvidia.com/gpu": pair(*gpu)}}


def usage(nodes, zones):
    """A ``usage_json`` document of ``nodes`` (``zones``: node name → zone)."""
    def total(group):
        return {
            "cpu": pair(sum(n["cpu"]["requested"] for n in group), sum(n["cpu"]["allocatable"] for n in group)),
            "memory": pair(sum(n["memory"]["requested"] for n in group),
                           sum(n["memory"]["allocatable"] for n in group)),
            "pods": pair(sum(n["pods"]["count"] for n in group), sum(n["pods"]["allocatable"] for n in group)),
            "nvidia.com/gpu": pair(sum(n["extended"]["nvidia.com/gpu"]["requested"] for n in group),
                                   sum(n["extended"]["nvidia.com/gpu"]["allocatable"] for n in group)),
        }
    return {"cluster": total(nodes), "nodes": nodes,
            "zones": {z: total([n for n in nodes if zones[n["name"]] == z]) for z in sorted(set(zones.values()))}}


ZONES = {"gpu-1": "zone-b", "cpu-1": "zone-a", "cpu-2": "zone-a", "bare": ""}
BEFORE = usage([node("gpu-1", (0, 8000), (0, 32 * GI), (0, 110), (0, 4)),
                node("cpu-1", (1000, 4000), (GI, 16 * GI), (1, 110)),
                node("cpu-2", (3000, 4000), (8 * GI, 16 * GI), (2, 110)),
                node("bare", (0, 2000), (0, 4 * GI), (0, 110))], ZONES)
AFTER = usage([node("gpu-1", (2000, 8000), (8 * GI, 32 * GI), (1, 110), (2, 4)),
               node("cpu-1", (3500, 4000), (3 * GI, 16 * GI), (3, 110)),
               node("cpu-2", (2000, 4000), (4 * GI, 16 * GI), (2, 110)),
               node("bare", (0, 2000), (0, 4 * GI), (0, 110))], ZONES)
NO_FIT = "0/4 nodes are available: 4 Insufficient cpu."
BOOM = {"code": "Error", "plugin": "Boom", "package": "boom-pkg", "message": "exploded"}
DOC = {
    "profile": "default", "profiles": ["default"],
    "placements": [
        {"pod": "ml/train", "node": "gpu-1", "score": None, "profile": "default"},
        {"pod": "shop/web-1", "node": "cpu-1", "score": 1000483, "profile": "default"},
        {"pod": "shop/web-2", "node": "cpu-1", "score": 1000470, "profile": "default"},
        {"pod": "batch/big-1", "node": None, "reason": NO_FIT, "profile": "default"},
        {"pod": "batch/big-2", "node": None, "reason": NO_FIT, "profile": "default"},
        {"pod": "shop/odd", "node": None, "reason": "exploded", "profile": "default", "error": BOOM},
        {"pod": "batch/big-3", "node": None, "reason": NO_FIT, "profile": "default"},
        {"pod": "other/x", "node": None, "reason": 'no profile serves schedulerName "custom"',
         "schedulerName": "custom", "unserved": True},
    ],
    "events": [
        {"type": "unschedulable", "pod": "shop/web-2", "node": None, "reason": NO_FIT, "attempt": 1},
        {"type": "preemption", "pod": "shop/web-2", "node": "cpu-1", "victims": ["batch/old"],
         "reason": "the only candidate", "candidates": [{"node": "cpu-1", "victims": ["batch/old"],
                                                         "pdbViolations": 0}]},
        {"type": "evicted", "pod": "batch/old", "node": "cpu-1", "by": "shop/web-2"},
        {"type": "error", "pod": "shop/odd", "node": None, "reason": "exploded", "attempt": 1, "error": BOOM},
    ],
    "nodes": [{k: v for k, v in n.items() if k != "extended"} for n in AFTER["nodes"]],
    "utilisation": {"before": BEFORE, "after": AFTER},
}

DOC_100 = """\
profile default: 8 pending pods (1 for other schedulers)
scheduled 3, unschedulable 4, not served 1, preemptions 1 (1 evicted), plugin errors 1

CLUSTER         BEFORE     AFTER  REQUESTED / ALLOCATABLE AFTER
cpu              22.2%  →  41.7%  7.5 / 18 cores
memory           13.2%  →  22.1%  15.0Gi / 68.0Gi
pods              0.7%  →   1.4%  6 / 440
nvidia.com/gpu    0.0%  →  50.0%  2 / 4

ZONE                 CPU         MEMORY         PODS  nvidia.com/gpu
zone-a     50.0% → 68.8%  28.1% → 21.9%  1.4% → 2.3%           - → -
zone-b      0.0% → 25.0%   0.0% → 25.0%  0.0% → 0.9%    0.0% → 50.0%
(no zone)    0.0% → 0.0%    0.0% → 0.0%  0.0% → 0.0%           - → -

unschedulable: 4 pods
PODS  REASON                                        FOR EXAMPLE
   3  0/4 nodes are available: 4 Insufficient cpu.  batch/big-1, batch/big-2,
                                                    batch/big-3
   1  exploded                                      shop/odd

not served by any profile: 1 pod
PODS  SCHEDULERNAME  FOR EXAMPLE
   1  custom         other/x

plugin errors: 1
POD       ATTEMPT  PLUGIN  PACKAGE   ERROR
shop/odd        1  Boom    boom-pkg  exploded

preemptions: 1
POD         NODE   EVICTS     CHOSEN FOR
shop/web-2  cpu-1  batch/old  the only candidate

placements, in the order they were made: 3
POD            NODE     SCORE
ml/train    →  gpu-1
shop/web-1  →  cpu-1  1000483
shop/web-2  →  cpu-1  1000470

nodes, requested / allocatable: 4
NODE     CPU  MEMORY   PODS  nvidia.com/gpu
gpu-1  25.0%   25.0%  1/110             2/4
cpu-1  87.5%   18.8%  3/110               -
cpu-2  50.0%   25.0%  2/110               -
bare    0.0%    0.0%  0/110               -"""


def test_every_section_at_100_columns():
    assert render_schedule(DOC, width=100, sym=UNICODE) == DOC_100


def test_ascii():
    text = render_schedule(DOC, width=100, sym=ASCII)
    assert text.isascii()
    lines = text.splitlines()
    assert lines[4] == "cpu              22.2%  ->  41.7%  7.5 / 18 cores"
    assert lines[10] == "zone-a     50.0% -> 68.8%  28.1% -> 21.9%  1.4% -> 2.3%          - -> -"
    assert "ml/train    ->  gpu-1" in lines


def test_without_utilisation_the_nodes_key_is_used():
    doc = {"profile": "a", "events": [], "placements": [{"pod": "d/p", "node": "n", "score": None}],
           "nodes": [{"name": "n", "pods": {"count": 1, "allocatable": 110},
                      "cpu": {"requested": 100, "allocatable": 1000, "unit": "millicores"},
                      "memory": {"requested": 0, "allocatable": 0, "unit": "bytes"}}]}
    assert render_schedule(doc, width=80, sym=UNICODE) == """\
profile a: 1 pending pod
scheduled 1, unschedulable 0, preemptions 0 (0 evicted)

placements, in the order they were made: 1
POD     NODE  SCORE
d/p  →  n

nodes, requested / allocatable: 1
NODE    CPU  MEMORY   PODS
n     10.0%       -  1/110"""


def _many():
    # Node i: cpu i/40, pods i%3 of 10; its fullest resource is the larger of the two.
    nodes = [node(f"n{i:02d}", (i * 100, 4000), (0, GI), (i % 3, 10)) for i in range(14)]
    u = usage(nodes, {n["name"]: "z" for n in nodes})
    return {"profile": "a", "profiles": ["a", "b"], "events": [], "nodes": [],
            "placements": [{"pod": f"d/p{i}", "node": f"n{i % 14:02d}", "score": 7, "profile": "ab"[i % 2]}
                           for i in range(23)],
            "utilisation": {"before": u, "after": u}}


def test_the_first_placements_and_the_most_and_least_loaded_nodes():
    lines = render_schedule(_many(), width=100, sym=UNICODE).splitlines()
    at = lines.index("placements, in the order they were made: 23")
    assert lines[at + 1:at + 3] == ["POD       NODE  SCORE  PROFILE", "d/p0   →  n00       7  a"]
    assert lines[at + 21:at + 23] == ["d/p19  →  n05       7  b", "… and 3 more (--all)"]
    at = lines.index("nodes, requested / allocatable: the 5 most and 5 least loaded of 14 (--nodes: all)")
    assert lines[at + 1:] == [
        "NODE    CPU  MEMORY  PODS  nvidia.com/gpu",
        "n13   32.5%    0.0%  1/10               -",
        "n12   30.0%    0.0%  0/10               -",
        "n11   27.5%    0.0%  2/10               -",
        "n10   25.0%    0.0%  1/10               -",
        "n09   22.5%    0.0%  0/10               -",
        "…",
        "n06   15.0%    0.0%  0/10               -",
        "n01    2.5%    0.0%  1/10               -",  # pods 10%
        "n04   10.0%    0.0%  1/10               -",  # equal to n01: node order
        "n03    7.5%    0.0%  0/10               -",
        "n00    0.0%    0.0%  0/10               -",
    ]


def test_all_placements_and_every_node():
    text = render_schedule(_many(), width=100, all_placements=True, nodes=True, sym=UNICODE)
    assert "d/p22  →  n08       7  a" in text
    assert "more (--all)" not in text
    assert "nodes, requested / allocatable: 14" in text
    assert sum(1 for line in text.splitlines() if re.match(r"n\d\d  ", line)) == 14


def test_groups_name_every_pod_with_all_placements():
    doc = {**DOC, "utilisation": None}
    assert "batch/big-1, batch/big-2, batch/big-3" in render_schedule(doc, width=None, all_placements=True,
                                                                      sym=UNICODE)
    assert "batch/big-1, batch/big-2, batch/big-3, …" in render_schedule(
        {**doc, "placements": [*doc["placements"], {"pod": "batch/big-4", "node": None, "reason": NO_FIT}]},
        width=None, sym=UNICODE)


def test_input_text_is_escaped():
    doc = {"profile": "p\x1b[2J", "events": [], "nodes": [],
           "placements": [{"pod": "ns/[bold]a", "node": None, "reason": "line\nbreak"}]}
    assert render_schedule(doc, width=80, sym=UNICODE) == """\
profile p\\x1b[2J: 1 pending pod
scheduled 0, unschedulable 1, preemptions 0 (0 evicted)

unschedulable: 1 pod
PODS  REASON       FOR EXAMPLE
   1  line\\nbreak  ns/[bold]a"""


# ------------------------------------------- long names: never cut, overflowing only when they must

EKS = [f"ip-10-0-{12 + i}-{34 + i}.us-west-2.compute.internal" for i in range(3)]
PODS = [f"payments-prod/checkout-api-7d9f8c6b5-{s}" for s in ("x2x9q", "k8m4z", "p0p1r")]
REASON = "0/3 nodes are available: 3 Insufficient cpu."
LONG_NAMES = {
    "profile": "default", "profiles": ["default"],
    "placements": [
        {"pod": PODS[0], "node": EKS[0], "score": 1000483, "profile": "default"},
        {"pod": PODS[1], "node": EKS[2], "score": 1000470, "profile": "default"},
        {"pod": PODS[2], "node": None, "reason": REASON, "profile": "default"},
        {"pod": "batch/nightly-report-28391040-abcde", "node": None, "reason": REASON, "profile": "default"},
        {"pod": "other/x", "node": None, "reason": 'no profile serves schedulerName "custom"',
         "schedulerName": "custom", "unserved": True},
        {"pod": "other/y", "node": None, "reason": 'no profile serves schedulerName "custom"',
         "schedulerName": "custom", "unserved": True},
    ],
    "events": [
        {"type": "preemption", "pod": PODS[1], "node": EKS[2], "victims": ["batch/nightly-report-28391040-zzzzz"],
         "reason": "fewest victims, then the lowest highest priority among them", "candidates": []},
        {"type": "evicted", "pod": "batch/nightly-report-28391040-zzzzz", "node": EKS[2], "by": PODS[1]},
    ],
    "nodes": [{"name": n, "pods": {"count": i, "allocatable": 110},
               "cpu": {"requested": 1000 * i, "allocatable": 4000, "unit": "millicores"},
               "memory": {"requested": 0, "allocatable": 16 * GI, "unit": "bytes"}} for i, n in enumerate(EKS)],
}
LONG_NAMES_80 = """\
profile default: 6 pending pods (2 for other schedulers)
scheduled 2, unschedulable 2, not served 2, preemptions 1 (1 evicted)

unschedulable: 2 pods
PODS  REASON                         FOR EXAMPLE
   2  0/3 nodes are available: 3     payments-prod/checkout-api-7d9f8c6b5-p0p1r,
      Insufficient cpu.              batch/nightly-report-28391040-abcde

not served by any profile: 2 pods
PODS  SCHEDULERNAME  FOR EXAMPLE
   2  custom         other/x, other/y

preemptions: 1
POD                                         NODE                                      EVICTS                               CHOSEN FOR
payments-prod/checkout-api-7d9f8c6b5-k8m4z  ip-10-0-14-36.us-west-2.compute.internal  batch/nightly-report-28391040-zzzzz  fewest victims, then the
                                                                                                                           lowest highest priority among
                                                                                                                           them

placements, in the order they were made: 2
POD                                            NODE                                        SCORE
payments-prod/checkout-api-7d9f8c6b5-x2x9q  →  ip-10-0-12-34.us-west-2.compute.internal  1000483
payments-prod/checkout-api-7d9f8c6b5-k8m4z  →  ip-10-0-14-36.us-west-2.compute.internal  1000470

nodes, requested / allocatable: 3
NODE                                        CPU  MEMORY   PODS
ip-10-0-12-34.us-west-2.compute.internal   0.0%    0.0%  0/110
ip-10-0-13-35.us-west-2.compute.internal  25.0%    0.0%  1/110
ip-10-0-14-36.us-west-2.compute.internal  50.0%    0.0%  2/110"""
LONG_NAMES_100 = """\
profile default: 6 pending pods (2 for other schedulers)
scheduled 2, unschedulable 2, not served 2, preemptions 1 (1 evicted)

unschedulable: 2 pods
PODS  REASON                                        FOR EXAMPLE
   2  0/3 nodes are available: 3 Insufficient cpu.  payments-prod/checkout-api-7d9f8c6b5-p0p1r,
                                                    batch/nightly-report-28391040-abcde

not served by any profile: 2 pods
PODS  SCHEDULERNAME  FOR EXAMPLE
   2  custom         other/x, other/y

preemptions: 1
POD                                         NODE                                      EVICTS                               CHOSEN FOR
payments-prod/checkout-api-7d9f8c6b5-k8m4z  ip-10-0-14-36.us-west-2.compute.internal  batch/nightly-report-28391040-zzzzz  fewest victims, then the
                                                                                                                           lowest highest priority among
                                                                                                                           them

placements, in the order they were made: 2
POD                                            NODE                                        SCORE
payments-prod/checkout-api-7d9f8c6b5-x2x9q  →  ip-10-0-12-34.us-west-2.compute.internal  1000483
payments-prod/checkout-api-7d9f8c6b5-k8m4z  →  ip-10-0-14-36.us-west-2.compute.internal  1000470

nodes, requested / allocatable: 3
NODE                                        CPU  MEMORY   PODS
ip-10-0-12-34.us-west-2.compute.internal   0.0%    0.0%  0/110
ip-10-0-13-35.us-west-2.compute.internal  25.0%    0.0%  1/110
ip-10-0-14-36.us-west-2.compute.internal  50.0%    0.0%  2/110"""


@pytest.mark.parametrize("width, expected, overflowing", [
    (80, LONG_NAMES_80, ["preemptions: 1", "placements, in the order they were made: 2"]),
    (100, LONG_NAMES_100, ["preemptions: 1"]),
    (120, LONG_NAMES_100, ["preemptions: 1"]),
], ids=["80", "100", "120"])
def test_long_names_are_never_cut(width, expected, overflowing):
    """Only the tables that cannot fit even with nothing but their names (the preemption table's
    pod, node and victim need 123 columns; the placements' 96) are wider than the terminal."""
    text = render_schedule(LONG_NAMES, width=width, sym=UNICODE)
    assert text == expected
    lines = text.splitlines()
    assert [lines[i - 1] for i, line in enumerate(lines) if len(line) > width and lines[i - 1].endswith(
        (": 1", ": 2"))] == overflowing


@pytest.mark.parametrize("value, expected", [
    (pair(1, 3), "33.3%"), (pair(0, 0), "-"), (None, "-"), (pair(5, 4), "125.0%"),
], ids=["third", "nothing-allocatable", "missing", "overcommitted"])
def test_percent(value, expected):
    assert percent(value) == expected


@pytest.mark.parametrize("resource, value, expected", [
    ("cpu", 96500, "96.5"), ("cpu", 170000, "170"), ("cpu", 1250, "1.25"), ("memory", 3 * GI // 2, "1.5Gi"),
    ("pods", 37, "37"), ("nvidia.com/gpu", 2, "2"),
], ids=["cores", "whole-cores", "millicores", "memory", "pods", "extended"])
def test_amount(resource, value, expected):
    assert amount(resource, value) == expected


# ---------------------------------------------------------------------------------- end to end


def big_cluster(nodes: int, pods: int) -> str:
    """A cluster of ``nodes`` nodes in three zones (every 50th with 4 GPUs, every other one
    tainted) and ``pods`` pending pods (every 25th wants a GPU, every 100th more CPU than
    any node has)."""
    items = []
    for i in range(nodes):
        allocatable = {"cpu": "8", "memory": "32Gi", "pods": "110", **({"nvidia.com/gpu": "4"} if i % 50 == 0 else {})}
        spec = {"taints": [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]} if i % 2 else {}
        items.append({"kind": "Node", "spec": spec, "status": {"allocatable": allocatable},
                      "metadata": {"name": f"node-{i:04d}",
                                   "labels": {"topology.kubernetes.io/zone": f"zone-{'abc'[i % 3]}"}}})
    for j in range(pods):
        requests = {"cpu": "64"} if j % 100 == 99 else {"cpu": "1", "nvidia.com/gpu": "1"} if j % 25 == 0 else \
            {"cpu": "500m", "memory": "1Gi"}
        items.append({"kind": "Pod", "metadata": {"name": f"pod-{j:04d}", "namespace": "default"},
                      "spec": {"containers": [{"name": "c", "resources": {"requests": requests}}]}})
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})


def test_a_thousand_pods_on_a_thousand_nodes_at_120_columns(monkeypatch, capsys, tmp_path):
    (tmp_path / "c.yaml").write_text(big_cluster(1000, 1000))
    monkeypatch.setenv("COLUMNS", "120")
    code = main(["schedule", "--cluster", str(tmp_path / "c.yaml")])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert max(map(len, lines)) <= 120
    assert lines[:15] == [
        "profile default: 1000 pending pods",
        "scheduled 990, unschedulable 10, preemptions 0 (0 evicted)",
        "",
        "CLUSTER         BEFORE     AFTER  REQUESTED / ALLOCATABLE AFTER",
        "cpu               0.0%  →   6.4%  515 / 8000 cores",
        "memory            0.0%  →   3.0%  950.0Gi / 32000.0Gi",
        "pods              0.0%  →   0.9%  990 / 110000",
        "nvidia.com/gpu    0.0%  →  50.0%  40 / 80",
        "",
        "ZONE            CPU       MEMORY         PODS  nvidia.com/gpu",
        "zone-a  0.0% → 6.5%  0.0% → 3.0%  0.0% → 0.9%    0.0% → 50.0%",
        "zone-b  0.0% → 6.4%  0.0% → 3.0%  0.0% → 0.9%    0.0% → 50.0%",
        "zone-c  0.0% → 6.5%  0.0% → 3.0%  0.0% → 0.9%    0.0% → 50.0%",
        "",
        "unschedulable: 10 pods",
    ]
    # The ten identical reasons are one row; 990 placements are 20 lines; 1,000 nodes are 10.
    # 1.35's wording (the bundled default): "node(s) had untolerated taint(s)".
    assert lines[16].startswith("  10  0/1000 nodes are available: 500 Insufficient cpu, 500 node(s) had ")
    assert "untolerated taint(s)" in lines[17]
    assert "… and 970 more (--all)" in lines
    assert len(lines) < 60


def test_an_ascii_stdout_gets_ascii_arrows():
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    done = subprocess.run([sys.executable, "-m", "ruleset", "schedule"], env=env, capture_output=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, b"")
    out = done.stdout.decode("ascii")  # nothing else in it
    assert "shop/web-7d9f8c6b5-p0  ->  gp-c-4" in out
    assert "cpu              48.8%  ->   56.8%" in out


def test_colour_only_when_asked_and_the_same_text_under_it():
    coloured = render_schedule(DOC, width=100, color=True, sym=UNICODE)
    assert coloured.startswith("\x1b[1mprofile default: 8 pending pods (1 for other schedulers)\x1b[0m\n")
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == DOC_100
    assert "\x1b[" not in render_schedule(DOC, width=100, sym=UNICODE)
