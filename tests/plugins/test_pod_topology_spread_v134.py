"""PodTopologySpread at 1.34: minDomains, nodeAffinityPolicy/nodeTaintsPolicy, 1.24's Filter counting,
and 1.33's per-constraint counts, each shown against the 1.20 answer for the same input.

Ported from upstream ``pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go`` and
``scoring_test.go`` as stored in the index (filtering_test.go at commit 01c2588b, scoring_test.go
at 008b3652: main-branch versions after v1.34, whose cases below are the ones the
MinDomainsInPodTopologySpread and NodeInclusionPolicyInPodTopologySpread features added in
1.24-1.26 and did not change since; the exact v1.34.0 tag could not be read):

* TestPreFilterState: the node inclusion policy cases ("feature gate disabled with
  NodeAffinityPolicy" … "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor"),
  compared on TpValueToMatchNum and CriticalPaths (per constraint, as 1.33+).
* TestSingleConstraint: the four minDomains cases, the six NodeAffinityPolicy/NodeTaintsPolicy
  cases, and "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits" (the
  kubernetes#107009 case of 1.24), compared on status codes.
* TestPodTopologySpreadScore: the six NodeAffinityPolicy/NodeTaintsPolicy cases (SystemDefaulting
  args, as upstream).
* TestPreFilterStateAddPod: the seven "add a pod when scheduling …" / "add a label selector not
  matched pod …" NodeInclusionPolicy cases; TestPreFilterStateRemovePod: the four "remove a pod when
  scheduling node affinity (un)matched pod …" cases (same filtering_test.go, commit 01c2588b).
  Upstream flips the plugin's enableNodeInclusionPolicyInPodTopologySpread field; here "disabled"
  is 1.34 with the NodeInclusionPolicyInPodTopologySpread gate overridden off. As upstream, the
  RemovePod cases remove ``existingPods[0]`` (their ``deletedPod`` is unused, ``deletedPodIdx`` being
  0) from the node of ``nodeIdx``, which need not be the pod's own node. Two AddPod cases of
  ruleset's own (nodeTaintsPolicy Honor, gate on and off) show the policies deciding there.

Left out: upstream's cases that only test the internal state's struct layout (Constraints with
MinDomains=1/Honor/Ignore are checked once instead, on the decoded constraints), the matchLabelKeys
cases (covered in test_spread_affinity_versions.py), and the AddPod/RemovePod cases without node
inclusion policies (their v1.20 counterparts are in test_pod_topology_spread.py).
The 1.20 answers and the per-constraint case (constraints sharing a key) are ruleset's own,
computed by hand from v1.20's and v1.32's filtering.go.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from ruleset import CycleState
from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.plugins.podtopologyspread import PRE_FILTER_STATE_KEY, PodTopologySpread, PreFilterState
from ruleset.scheduler import Scheduler
from tests.factories import Harness, decode, make_node, make_pod

DNS, SA = "DoNotSchedule", "ScheduleAnyway"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
S, U, UU = "Success", "Unschedulable", "UnschedulableAndUnresolvable"


class VersionHarness(Harness):
    """A Harness whose profile targets ``version`` (``gates`` override its defaults)."""

    def __init__(self, args: Mapping[str, Any], objects: Iterable[dict], version: str,
                 gates: Mapping[str, bool] | None = None):
        super().__init__([("PodTopologySpread", dict(args))], objects)
        profile = Profile(name="test", plugins=[PluginConfig(name="PodTopologySpread", args=dict(args))],
                          percentage_of_nodes_to_score=100, kubernetes_version=version,
                          feature_gates=dict(gates or {}))
        self.framework = Framework(profile, load_registry(), Handle(self.snapshot))
        self.scheduler = Scheduler(self.framework, seed=0)


def spread(max_skew: int, key: str, action: str, selector: dict | None, min_domains: int | None = None,
           affinity_policy: str | None = None, taints_policy: str | None = None) -> dict:
    """``SpreadConstraint(maxSkew, key, action, selector, minDomains, nodeAffinityPolicy, nodeTaintsPolicy)``."""
    out: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action}
    if selector is not None:
        out["labelSelector"] = selector
    if min_domains is not None:
        out["minDomains"] = min_domains
    if affinity_policy is not None:
        out["nodeAffinityPolicy"] = affinity_policy
    if taints_policy is not None:
        out["nodeTaintsPolicy"] = taints_policy
    return out


def node(name: str, taint: bool = False, **labels: str) -> dict:
    return make_node(name, labels, taints=[UNSCHEDULABLE_TAINT] if taint else ())


def zn(name: str, zone: str, taint: bool = False, **labels: str) -> dict:
    return node(name, taint, zone=zone, node=name, **labels)


def placed(name: str, on: str, **labels: str) -> dict:
    return make_pod(name, labels=labels, node_name=on)


def incoming(*constraints: dict, node_selector: dict | None = None, affinity_in: str | None = None,
             tolerate: bool = False, **labels: str) -> dict:
    affinity = None
    if affinity_in is not None:  # NodeAffinityIn(key, [""]): the key with value ""
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": affinity_in, "operator": "In", "values": [""]}]}]}}}
    tolerations = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]
    return make_pod("p", labels=labels or {"foo": ""}, node_selector=node_selector, affinity=affinity,
                    tolerations=tolerations if tolerate else (), topology_spread_constraints=list(constraints))


def not_in(key: str, value: str) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "NotIn", "values": [value]}]}]}}}


# ------------------------------------------------------------------------------- PreFilter state

def pre_filter(h: Harness, raw_pod: dict) -> PreFilterState:
    plugin = h.framework.plugins["PodTopologySpread"]
    assert isinstance(plugin, PodTopologySpread)
    state = CycleState()
    assert plugin.ruleset_pre_filter(state, decode(raw_pod, h.state), h.snapshot) is None
    result: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
    return result


def per_constraint(state: PreFilterState) -> tuple[list[dict[str, int]], list[tuple]]:
    """TpValueToMatchNum and CriticalPaths per constraint (ties sorted as upstream's comparer)."""
    counts: list[dict[str, int]] = [{} for _ in state.constraints]
    for (slot, value), n in state.pair_counts().items():
        assert isinstance(slot, int)
        counts[slot][value] = n
    paths = []
    for i in range(len(state.constraints)):
        (v0, n0), (v1, n1) = state.critical_paths()[i]
        if n0 == n1 and v0 > v1:
            v0, v1 = v1, v0
        paths.append(((v0, n0), (v1, n1)))
    return counts, paths


ABC = [node("node-a", node="node-a", foo=""), node("node-b", node="node-b", foo=""),
       node("node-c", node="node-c", bar="")]
ABC_PODS = [placed("p-a", "node-a", bar=""), placed("p-b", "node-b", bar=""), placed("p-c", "node-b", bar=""),
            placed("p-d", "node-c")]
ABC_TAINTED = [node("node-a", node="node-a"), node("node-b", node="node-b"),
               node("node-c", True, node="node-c", bar="")]
A1_B2 = ([{"node-a": 1, "node-b": 2}], [(("node-a", 1), ("node-b", 2))])
A1_B2_C0 = ([{"node-a": 1, "node-b": 2, "node-c": 0}], [(("node-c", 0), ("node-a", 1))])
ABX = [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo="")]
B2_X1 = [placed("p-b1", "node-b", foo=""), placed("p-b2", "node-b", foo=""), placed("p-x1", "node-x", foo="")]

PRE_FILTER_CASES = [
    pytest.param(incoming(spread(1, "node", DNS, BAR), node_selector={"foo": ""}), ABC, ABC_PODS,
                 {"NodeInclusionPolicyInPodTopologySpread": False}, A1_B2,
                 id="feature gate disabled with NodeAffinityPolicy"),
    pytest.param(incoming(spread(1, "node", DNS, BAR), node_selector={"foo": ""}), ABC, ABC_PODS, {}, A1_B2,
                 id="NodeAffinityPolicy honored with labelSelectors"),
    pytest.param(incoming(spread(1, "node", DNS, BAR, affinity_policy="Ignore"), node_selector={"foo": ""}),
                 ABC, ABC_PODS, {}, A1_B2_C0, id="NodeAffinityPolicy ignored with labelSelectors"),
    pytest.param(incoming(spread(1, "node", DNS, BAR), affinity_in="foo"), ABC, ABC_PODS, {}, A1_B2,
                 id="NodeAffinityPolicy honored with nodeAffinity"),
    pytest.param(incoming(spread(1, "node", DNS, BAR, affinity_policy="Ignore"), affinity_in="foo"),
                 ABC, ABC_PODS, {}, A1_B2_C0, id="NodeAffinityPolicy ignored with nodeAffinity"),
    pytest.param(incoming(spread(1, "node", DNS, BAR)), ABC_TAINTED, ABC_PODS,
                 {"NodeInclusionPolicyInPodTopologySpread": False}, A1_B2_C0,
                 id="feature gate disabled with NodeTaintsPolicy"),
    pytest.param(incoming(spread(1, "node", DNS, BAR)), ABC_TAINTED, ABC_PODS, {}, A1_B2_C0,
                 id="NodeTaintsPolicy ignored"),
    pytest.param(incoming(spread(1, "node", DNS, BAR, taints_policy="Honor")), ABC_TAINTED, ABC_PODS, {}, A1_B2,
                 id="NodeTaintsPolicy honored"),
    pytest.param(incoming(spread(1, "node", DNS, BAR, taints_policy="Honor"), tolerate=True), ABC_TAINTED,
                 ABC_PODS, {}, A1_B2_C0, id="NodeTaintsPolicy honored with tolerated taints"),
    pytest.param(incoming(spread(1, "zone", DNS, FOO), spread(1, "node", DNS, FOO, affinity_policy="Ignore"),
                          node_selector={"foo": ""}), ABX, B2_X1, {},
                 ([{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
                  [(("zone1", 0), ("zone2", 1)), (("node-a", 0), ("node-x", 1))]),
                 id="two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore"),
    pytest.param(incoming(spread(1, "zone", DNS, FOO, taints_policy="Honor"), spread(1, "node", DNS, FOO)),
                 [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", True), zn("node-x", "zone2", foo="")],
                 B2_X1, {},
                 ([{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
                  [(("zone1", 0), ("zone2", 1)), (("node-a", 0), ("node-x", 1))]),
                 id="two node inclusion Constraints, zone: honor/honor, node: honor/ignore"),
    pytest.param(incoming(spread(1, "zone", DNS, FOO), spread(1, "node", DNS, FOO), node_selector={"foo": ""}),
                 [zn("node-a", "zone1"), zn("node-b", "zone1", True, foo=""), zn("node-x", "zone2", foo=""),
                  zn("node-y", "zone2")],
                 [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
                  placed("p-x1", "node-x", foo=""), placed("p-y1", "node-y", foo="")], {},
                 ([{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}],
                  [(("zone1", 0), ("zone2", 1)), (("node-b", 0), ("node-x", 1))]),
                 id="two node inclusion Constraints, zone: honor/ignore, node: honor/ignore"),
    pytest.param(incoming(spread(1, "zone", DNS, FOO, affinity_policy="Ignore"),
                          spread(1, "node", DNS, FOO, taints_policy="Honor"), node_selector={"foo": ""}),
                 [zn("node-a", "zone1"), zn("node-b", "zone1", True, foo=""), zn("node-x", "zone2", foo=""),
                  zn("node-y", "zone2", foo="")],
                 [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
                  placed("p-x1", "node-x", foo=""), placed("p-x2", "node-x", foo=""),
                  placed("p-y1", "node-y", foo="")], {},
                 ([{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}],
                  [(("zone1", 2), ("zone2", 3)), (("node-y", 1), ("node-x", 2))]),
                 id="two node inclusion Constraints, zone: ignore/ignore, node: honor/honor"),
]


@pytest.mark.parametrize(("pod", "nodes", "existing", "gates", "expected"), PRE_FILTER_CASES)
def test_pre_filter_state_node_inclusion(pod: dict, nodes: list, existing: list, gates: dict,
                                         expected: tuple) -> None:
    h = VersionHarness({"defaultingType": "List"}, [*nodes, *existing], "1.34", gates)
    assert per_constraint(pre_filter(h, pod)) == expected


# ------------------------------------------------------------------------ AddPod / RemovePod

AFFINITY_AB = [zn("node-a", "zone1", foo="bar"), zn("node-b", "zone2", foo="")]
TAINTED_AB = [zn("node-a", "zone1", True), zn("node-b", "zone2")]
NOT_BAR = make_pod("p", labels={"foo": ""}, affinity=not_in("foo", "bar"),
                   topology_spread_constraints=[spread(1, "zone", DNS, FOO)])
ZONE_POD = incoming(spread(1, "zone", DNS, FOO))
ZONE_POD_TOLERATING = incoming(spread(1, "zone", DNS, FOO), tolerate=True)
OFF = {"NodeInclusionPolicyInPodTopologySpread": False}
ONLY_ZONE2_1 = ([{"zone2": 1}], [(("zone2", 1), ("", 2147483647))])
Z1_1_Z2_2 = ([{"zone1": 1, "zone2": 2}], [(("zone1", 1), ("zone2", 2))])
Z1_1_Z2_1 = ([{"zone1": 1, "zone2": 1}], [(("zone1", 1), ("zone2", 1))])
Z1_1_Z2_0 = ([{"zone1": 1, "zone2": 0}], [(("zone2", 0), ("zone1", 1))])

# (preemptor, nodes, existing pods, added pod, node index, gates, expected)
ADD_POD_CASES = [
    pytest.param(NOT_BAR, AFFINITY_AB,
                 [placed("p-a2", "node-a", foo="", zone="zone1"), placed("p-b1", "node-b", foo="", zone="zone2")],
                 placed("p-a1", "node-a", foo="", zone="zone1"), 0, OFF, ONLY_ZONE2_1,
                 id="add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled"),
    pytest.param(NOT_BAR, AFFINITY_AB,
                 [placed("p-a2", "node-a", foo="", zone="zone1"), placed("p-b1", "node-b", foo="", zone="zone2")],
                 placed("p-a1", "node-a", foo="", zone="zone1"), 0, {}, ONLY_ZONE2_1,
                 id="add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled"),
    pytest.param(ZONE_POD, AFFINITY_AB,
                 [placed("p-a1", "node-a", foo="", zone="zone1"), placed("p-b2", "node-b", foo="", zone="zone2")],
                 placed("p-b1", "node-b", foo="", zone="zone2"), 1, OFF, Z1_1_Z2_2,
                 id="add a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled"),
    pytest.param(ZONE_POD, AFFINITY_AB,
                 [placed("p-a1", "node-a", foo="", zone="zone1"), placed("p-b2", "node-b", foo="", zone="zone2")],
                 placed("p-b1", "node-b", foo="", zone="zone2"), 1, {}, Z1_1_Z2_2,
                 id="add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled"),
    pytest.param(ZONE_POD, AFFINITY_AB,
                 [placed("p-a1", "node-a", foo="", zone="zone1"), placed("p-b2", "node-b", foo="", zone="zone2")],
                 placed("p-b1", "node-b", zone="zone2"), 1, {}, Z1_1_Z2_1,
                 id="add a label selector not matched pod when with NodeInclusionPolicy enabled"),
    pytest.param(ZONE_POD, TAINTED_AB,
                 [placed("p-a1", "node-a", foo="", zone="zone1"), placed("p-b2", "node-b", foo="", zone="zone2")],
                 placed("p-b1", "node-b", foo="", zone="zone2"), 1, OFF, Z1_1_Z2_2,
                 id="add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled"),
    pytest.param(ZONE_POD_TOLERATING, TAINTED_AB,
                 [placed("p-a1", "node-a", foo="", zone="zone1"), placed("p-b2", "node-b", foo="", zone="zone2")],
                 placed("p-b1", "node-b", foo="", zone="zone2"), 1, {}, Z1_1_Z2_2,
                 id="add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled"),
    # ruleset's own: nodeTaintsPolicy Honor leaves the tainted node-a (and so zone1) out when the
    # policies apply, and AddPod there changes nothing; with the gate off it counts as before.
    pytest.param(incoming(spread(1, "zone", DNS, FOO, taints_policy="Honor")), TAINTED_AB,
                 [placed("p-a1", "node-a", foo=""), placed("p-b2", "node-b", foo="")],
                 placed("p-a2", "node-a", foo=""), 0, {}, ([{"zone2": 1}], [(("zone2", 1), ("", 2147483647))]),
                 id="ruleset: add a pod on a tainted node with NodeTaintsPolicy Honor"),
    pytest.param(incoming(spread(1, "zone", DNS, FOO, taints_policy="Honor")), TAINTED_AB,
                 [placed("p-a1", "node-a", foo=""), placed("p-b2", "node-b", foo="")],
                 placed("p-a2", "node-a", foo=""), 0, OFF, ([{"zone1": 2, "zone2": 1}], [(("zone2", 1), ("zone1", 2))]),
                 id="ruleset: add a pod on a tainted node with NodeTaintsPolicy Honor, gate disabled"),
]


def updated_state(h: Harness, preemptor: dict, other: dict, node_index: int, delta: int) -> PreFilterState:
    """PreFilter's state for ``preemptor`` after AddPod (``delta`` 1) or RemovePod (-1) of ``other``
    on the snapshot's node ``node_index``."""
    plugin = h.framework.plugins["PodTopologySpread"]
    assert isinstance(plugin, PodTopologySpread)
    state = CycleState()
    pod = decode(preemptor, h.state)
    assert plugin.ruleset_pre_filter(state, pod, h.snapshot) is None
    hook = plugin.ruleset_pre_filter_add_pod if delta > 0 else plugin.ruleset_pre_filter_remove_pod
    assert hook(state, pod, decode(other, h.state), node_index, h.snapshot) is None
    result: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
    return result


@pytest.mark.parametrize(("preemptor", "nodes", "existing", "added", "node_index", "gates", "expected"),
                         ADD_POD_CASES)
def test_pre_filter_state_add_pod_node_inclusion(preemptor: dict, nodes: list, existing: list, added: dict,
                                                 node_index: int, gates: dict, expected: tuple) -> None:
    h = VersionHarness({"defaultingType": "List"}, [*nodes, *existing], "1.34", gates)
    assert per_constraint(updated_state(h, preemptor, added, node_index, 1)) == expected


UNMATCHED_EXISTING = [placed("p-a2", "node-a", foo="", zone="zone1"), placed("p-b1", "node-b", foo="", zone="zone2")]
MATCHED_EXISTING = [placed("p-a1", "node-a", foo="", zone="zone1"), placed("p-b2", "node-b", foo="", zone="zone2")]

# (preemptor, existing pods (the first is removed), node index, gates, expected); nodes AFFINITY_AB
REMOVE_POD_CASES = [
    pytest.param(NOT_BAR, UNMATCHED_EXISTING, 0, OFF, ONLY_ZONE2_1,
                 id="remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled"),
    pytest.param(NOT_BAR, UNMATCHED_EXISTING, 0, {}, ONLY_ZONE2_1,
                 id="remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled"),
    # p-a1 removed from node-b (nodeIdx 1): zone2 goes down to 0
    pytest.param(ZONE_POD, MATCHED_EXISTING, 1, OFF, Z1_1_Z2_0,
                 id="remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled"),
    pytest.param(ZONE_POD, MATCHED_EXISTING, 1, {}, Z1_1_Z2_0,
                 id="remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled"),
]


@pytest.mark.parametrize(("preemptor", "existing", "node_index", "gates", "expected"), REMOVE_POD_CASES)
def test_pre_filter_state_remove_pod_node_inclusion(preemptor: dict, existing: list, node_index: int,
                                                    gates: dict, expected: tuple) -> None:
    h = VersionHarness({"defaultingType": "List"}, [*AFFINITY_AB, *existing], "1.34", gates)
    assert per_constraint(updated_state(h, preemptor, existing[0], node_index, -1)) == expected


def test_constraint_defaults_and_fields_read_at_1_34() -> None:
    pod = incoming(spread(1, "node", DNS, BAR), spread(2, "zone", DNS, FOO, 3, "Ignore", "Honor"))
    h134 = VersionHarness({}, ABC, "1.34")
    assert [(c.min_domains, c.node_affinity_policy, c.node_taints_policy)
            for c in pre_filter(h134, pod).constraints] == [(1, "Honor", "Ignore"), (3, "Ignore", "Honor")]
    h120 = VersionHarness({}, ABC, "1.20")
    assert [(c.min_domains, c.node_affinity_policy, c.node_taints_policy)
            for c in pre_filter(h120, pod).constraints] == [(1, "Honor", "Ignore"), (1, "Honor", "Ignore")]


# ------------------------------------------------------------------------------------ Filter

ABC3 = [node("node-a", node="node-a"), node("node-b", node="node-b"), node("node-c", node="node-c")]
PODS_221 = [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""), placed("p-b1", "node-b", foo=""),
            placed("p-b2", "node-b", foo=""), placed("p-c1", "node-c", foo="")]
FOUR = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"), zn("node-y", "zone2")]
PODS_21 = [placed("p-b1", "node-a", foo=""), placed("p-b2", "node-b", foo=""), placed("p-y1", "node-y", foo="")]
ABXY = [node("node-a", node="node-a", foo=""), node("node-b", node="node-b", foo=""),
        node("node-x", node="node-x", foo=""), node("node-y", node="node-y")]
ABXY_TAINTED = [*ABXY[:3], node("node-y", True, node="node-y")]
ALL_FIT3 = {"node-a": S, "node-b": S, "node-c": S}
ALL_FIT4 = {"node-a": S, "node-b": S, "node-x": S, "node-y": S}
ONLY_X_Y = {"node-a": U, "node-b": U, "node-x": S, "node-y": S}
ONLY_X = {"node-a": U, "node-b": U, "node-x": S, "node-y": U}

# (pod, nodes, existing, answer at 1.20, answer at 1.34)
FILTER_CASES = [
    pytest.param(incoming(spread(2, "node", DNS, FOO, min_domains=4)), ABC3, PODS_221,
                 ALL_FIT3, {"node-a": U, "node-b": U, "node-c": S},
                 id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, "
                    "then the third node fits"),
    pytest.param(incoming(spread(2, "node", DNS, FOO, min_domains=2)), ABC3, PODS_221, ALL_FIT3, ALL_FIT3,
                 id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, "
                    "then the all nodes fit"),
    pytest.param(incoming(spread(2, "zone", DNS, FOO, min_domains=3)), FOUR, PODS_21, ALL_FIT4, ONLY_X_Y,
                 id="pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, "
                    "then the third and fourth nodes fit"),
    pytest.param(incoming(spread(2, "zone", DNS, FOO, min_domains=1)), FOUR, PODS_21, ALL_FIT4, ALL_FIT4,
                 id="pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, "
                    "then the all nodes fit"),
    pytest.param(incoming(spread(1, "node", DNS, FOO), node_selector={"foo": ""}), ABXY, PODS_21,
                 ONLY_X_Y, ONLY_X_Y, id="NodeAffinityPolicy honored with labelSelectors"),
    pytest.param(incoming(spread(1, "node", DNS, FOO, affinity_policy="Ignore"), node_selector={"foo": ""}),
                 ABXY, PODS_21, ONLY_X_Y, ONLY_X, id="NodeAffinityPolicy ignored with labelSelectors"),
    pytest.param(incoming(spread(1, "node", DNS, FOO), affinity_in="foo"), ABXY, PODS_21,
                 ONLY_X_Y, ONLY_X_Y, id="NodeAffinityPolicy honored with nodeAffinity"),
    pytest.param(incoming(spread(1, "node", DNS, FOO, affinity_policy="Ignore"), affinity_in="foo"),
                 ABXY, PODS_21, ONLY_X_Y, ONLY_X, id="NodeAffinityPolicy ignored with nodeAffinity"),
    pytest.param(incoming(spread(1, "node", DNS, FOO, taints_policy="Honor")), ABXY_TAINTED, PODS_21,
                 ONLY_X, ONLY_X_Y, id="NodeTaintsPolicy honored"),
    pytest.param(incoming(spread(1, "node", DNS, FOO)), ABXY_TAINTED, PODS_21, ONLY_X, ONLY_X,
                 id="NodeTaintsPolicy ignored"),
]


def codes(h: Harness, pod: dict) -> dict[str, str]:
    return {name: code for name, (code, _) in h.filter(pod).items()}


@pytest.mark.parametrize(("pod", "nodes", "existing", "at_120", "at_134"), FILTER_CASES)
def test_filter_single_constraint(pod: dict, nodes: list, existing: list, at_120: dict, at_134: dict) -> None:
    objects = [*nodes, *existing]
    assert codes(VersionHarness({"defaultingType": "List"}, objects, "1.34"), pod) == at_134
    assert codes(VersionHarness({"defaultingType": "List"}, objects, "1.20"), pod) == at_120


MIN_DOMAINS_POD = incoming(spread(2, "node", DNS, FOO, min_domains=4))
MIN_DOMAINS_APPLIES = {"node-a": U, "node-b": U, "node-c": S}


@pytest.mark.parametrize(("version", "gates", "want"), [
    ("1.23", {}, ALL_FIT3),                                         # no such field yet
    ("1.24", {}, ALL_FIT3),                                         # alpha, off
    ("1.24", {"MinDomainsInPodTopologySpread": True}, MIN_DOMAINS_APPLIES),
    ("1.26", {}, ALL_FIT3),                                         # beta, still off by default
    ("1.27", {}, MIN_DOMAINS_APPLIES),                              # beta, on
    ("1.34", {}, MIN_DOMAINS_APPLIES),                              # GA (gate removed in 1.32)
])
def test_min_domains_release_and_gate(version: str, gates: dict, want: dict) -> None:
    h = VersionHarness({"defaultingType": "List"}, [*ABC3, *PODS_221], version, gates)
    assert codes(h, MIN_DOMAINS_POD) == want


IGNORE_AFFINITY_POD = incoming(spread(1, "node", DNS, FOO, affinity_policy="Ignore"), node_selector={"foo": ""})


@pytest.mark.parametrize(("version", "gates", "want"), [
    ("1.24", {}, ONLY_X_Y),
    ("1.25", {}, ONLY_X_Y),                                          # alpha, off
    ("1.25", {"NodeInclusionPolicyInPodTopologySpread": True}, ONLY_X),
    ("1.26", {}, ONLY_X),                                            # beta, on
    ("1.34", {"NodeInclusionPolicyInPodTopologySpread": False}, ONLY_X_Y),
])
def test_node_inclusion_policy_release_and_gate(version: str, gates: dict, want: dict) -> None:
    h = VersionHarness({"defaultingType": "List"}, [*ABXY, *PODS_21], version, gates)
    assert codes(h, IGNORE_AFFINITY_POD) == want


AFFINITY_COUNTING_POD = make_pod("p", labels={"foo": ""}, affinity=not_in("node", "node-b"),
                                 topology_spread_constraints=[spread(1, "zone", DNS, FOO)])
AFFINITY_COUNTING_OBJECTS = [*FOUR, placed("p-b1", "node-b", foo=""), placed("p-b2", "node-b", foo=""),
                             placed("p-y1", "node-y", foo="")]


@pytest.mark.parametrize(("version", "want"), [
    # zone1 = 2 (node-b's pods count although the affinity excludes node-b), zone2 = 1, minimum 1
    ("1.20", {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    ("1.23", {"node-a": U, "node-b": U, "node-x": S, "node-y": S}),
    # upstream's "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits"
    ("1.24", {"node-a": S, "node-b": S, "node-x": U, "node-y": U}),
    ("1.34", {"node-a": S, "node-b": S, "node-x": U, "node-y": U}),
])
def test_filter_counts_only_nodes_matching_affinity(version: str, want: dict) -> None:
    h = VersionHarness({"defaultingType": "List"}, AFFINITY_COUNTING_OBJECTS, version)
    assert codes(h, AFFINITY_COUNTING_POD) == want


SHARED_KEY_POD = incoming(spread(1, "node", DNS, FOO), spread(1, "node", DNS, BAR), foo="", bar="")
SHARED_KEY_OBJECTS = [node("node-a", node="node-a"), node("node-b", node="node-b"),
                      placed("p-a", "node-a", foo=""), placed("p-b", "node-b", bar="")]


@pytest.mark.parametrize(("version", "want"), [
    # v1.20: one count per value, both constraints adding: a = 1+0, b = 0+1; minimum 1: 1+1-1 fits
    ("1.20", {"node-a": S, "node-b": S}),
    # 1.24-1.32: per node the last constraint (bar) counts: a = 0, b = 1, minimum 0;
    # the foo constraint reads the same counts: a 0+1-0 fits, b 1+1-0 > 1
    ("1.24", {"node-a": S, "node-b": U}),
    ("1.32", {"node-a": S, "node-b": U}),
    # 1.33: foo counts a = 1, b = 0 (a fails), bar counts a = 0, b = 1 (b fails)
    ("1.33", {"node-a": U, "node-b": U}),
    ("1.34", {"node-a": U, "node-b": U}),
])
def test_constraints_sharing_a_key(version: str, want: dict) -> None:
    h = VersionHarness({"defaultingType": "List"}, SHARED_KEY_OBJECTS, version)
    assert codes(h, SHARED_KEY_POD) == want


# ------------------------------------------------------------------------------------- Score

SCORE_NODES = [node("node-a", node="node-a", foo=""), node("node-b", node="node-b", foo=""),
               node("node-c", node="node-c")]
SCORE_NODES_TAINTED = [node("node-a", node="node-a"), node("node-b", node="node-b"),
                       node("node-c", True, node="node-c")]
SCORE_PODS = [placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", foo=""),
              placed("p-b1", "node-b", foo=""), placed("p-c1", "node-c", foo="")]
HONORED = {"node-a": 0, "node-b": 33, "node-c": 100}
IGNORED = {"node-a": 66, "node-b": 100, "node-c": 100}
# v1.20 counts the tainted node: a 2, b 1, c 1; log(5) weights truncated to 3, 1, 1; min 1
TAINTS_COUNTED_120 = {"node-a": 33, "node-b": 100, "node-c": 100}

# (pod, nodes, answer at 1.20, answer at 1.34); 1.20 truncates, 1.34 rounds.
SCORE_CASES = [
    # counts a 2, b 1, c 0 (c excluded); weight log(5): 1.34 rounds 3.2/1.6 to 3/2, 1.20 truncates to 3/1
    pytest.param(incoming(spread(1, "node", SA, FOO), node_selector={"foo": ""}), SCORE_NODES,
                 {"node-a": 0, "node-b": 66, "node-c": 100}, HONORED,
                 id="NodeAffinityPolicy honoed with labelSelectors"),
    pytest.param(incoming(spread(1, "node", SA, FOO, affinity_policy="Ignore"), node_selector={"foo": ""}),
                 SCORE_NODES, {"node-a": 0, "node-b": 66, "node-c": 100}, IGNORED,
                 id="NodeAffinityPolicy ignored with labelSelectors"),
    pytest.param(incoming(spread(1, "node", SA, FOO), affinity_in="foo"), SCORE_NODES,
                 {"node-a": 0, "node-b": 66, "node-c": 100}, HONORED,
                 id="NodeAffinityPolicy honoed with nodeAffinity"),
    pytest.param(incoming(spread(1, "node", SA, FOO, affinity_policy="Ignore"), affinity_in="foo"),
                 SCORE_NODES, {"node-a": 0, "node-b": 66, "node-c": 100}, IGNORED,
                 id="NodeAffinityPolicy ignored with nodeAffinity"),
    pytest.param(incoming(spread(1, "node", SA, FOO, taints_policy="Honor")), SCORE_NODES_TAINTED,
                 TAINTS_COUNTED_120, HONORED, id="NodeTaintsPolicy honored"),
    pytest.param(incoming(spread(1, "node", SA, FOO)), SCORE_NODES_TAINTED,
                 TAINTS_COUNTED_120, IGNORED, id="NodeTaintsPolicy ignored"),
]


@pytest.mark.parametrize(("pod", "nodes", "at_120", "at_134"), SCORE_CASES)
def test_score_node_inclusion(pod: dict, nodes: list, at_120: dict, at_134: dict) -> None:
    objects = [*nodes, *SCORE_PODS]
    assert VersionHarness({}, objects, "1.34").score(pod) == at_134
    assert VersionHarness({}, objects, "1.20").score(pod) == at_120


SHARED_KEY_SCORE_POD = incoming(spread(1, "zone", SA, FOO), spread(1, "zone", SA, BAR), foo="", bar="")
SHARED_KEY_SCORE_OBJECTS = [node("node-a", zone="zone1"), node("node-b", zone="zone2"), node("node-c", zone="zone3"),
                            placed("p-a1", "node-a", foo=""), placed("p-a2", "node-a", bar=""),
                            placed("p-b1", "node-b", foo="")]


@pytest.mark.parametrize(("version", "want"), [
    # per key: zone1 2, zone2 1 read by both constraints; only the first counts the 3 zones
    # (weights log 5, log 2): a = 4.6, b = 2.3 -> truncated 4, 2
    ("1.20", {"node-a": 0, "node-b": 50, "node-c": 100}),
    ("1.32", {"node-a": 0, "node-b": 60, "node-c": 100}),   # rounded 5, 2
    # per constraint: foo 1/1/0, bar 1/0/0, both weighted log 5: a = 3.2, b = 1.6 -> 3, 2
    ("1.33", {"node-a": 0, "node-b": 33, "node-c": 100}),
    ("1.34", {"node-a": 0, "node-b": 33, "node-c": 100}),
])
def test_score_constraints_sharing_a_key(version: str, want: dict) -> None:
    h = VersionHarness({}, SHARED_KEY_SCORE_OBJECTS, version)
    assert h.score(SHARED_KEY_SCORE_POD) == want
