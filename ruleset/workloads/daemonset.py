"""Which nodes a DaemonSet runs on, and how its pods are pinned there (v1.20).

``pkg/controller/daemon/daemon_controller.go`` (``NewPod``, ``nodeShouldRunDaemonPod``,
``Predicates``) and ``pkg/controller/daemon/util/daemonset_util.go``
(``AddOrUpdateDaemonPodTolerations``, ``ReplaceDaemonSetPodNodeNameNodeAffinity``) with
``v1helper.AddOrUpdateTolerationInPodSpec`` and ``pluginhelper.PodMatchesNodeSelectorAndAffinityTerms``.

v1.20 no longer asks scheduler predicates (resources, ports) whether a daemon pod fits:
only the node name, the node selector and required node affinity, and the node's
NoSchedule and NoExecute taints against the pod's tolerations -- the template's plus the
daemon tolerations -- decide. The scheduler places the pod (it is pinned by node affinity).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ruleset.api.decode import DecodeContext, get_map, get_str, get_string_map
from ruleset.api.node import Node
from ruleset.api.pod import NodeSelectorTerm, Toleration, decode_node_affinity, decode_tolerations
from ruleset.api.validation import check_labels
from ruleset.reading import LocatedList
from ruleset.selector import SelectorError, from_node_selector_requirements, from_set

#: The tolerations every daemon pod gets (``AddOrUpdateDaemonPodTolerations``), in order.
DAEMON_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
#: Added only to pods with ``hostNetwork: true``.
NETWORK_UNAVAILABLE_TOLERATION = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                                  "effect": "NoSchedule"}
_MATCHED = ("key", "operator", "value", "effect")


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def add_or_update_toleration(tolerations: list[Any], toleration: dict[str, str]) -> list[Any]:
    """``AddOrUpdateTolerationInPodSpec``: a toleration equal in key, operator, value and
    effect (``MatchToleration``) is replaced, unless it is the same toleration (no
    ``tolerationSeconds``), in which case the list is returned unchanged; else it is appended."""
    out = LocatedList()
    out.line = getattr(tolerations, "line", None)
    out.item_lines = list(getattr(tolerations, "item_lines", []))
    updated = False
    for item in tolerations:
        if isinstance(item, dict) and all(_text(item.get(k)) == toleration.get(k, "") for k in _MATCHED):
            if item.get("tolerationSeconds") is None:
                return tolerations
            out.append(dict(toleration))
            updated = True
            continue
        out.append(item)
    if not updated:
        out.append(dict(toleration))
    return out


def add_daemon_tolerations(spec: dict[str, Any]) -> None:
    """``AddOrUpdateDaemonPodTolerations`` on a raw pod spec (a copy: it is changed)."""
    tolerations = spec.get("tolerations")
    if not isinstance(tolerations, list):
        tolerations = LocatedList()
        tolerations.line = getattr(spec, "line", None)
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork") is True:
        wanted.append(NETWORK_UNAVAILABLE_TOLERATION)
    for toleration in wanted:
        tolerations = add_or_update_toleration(tolerations, toleration)
    spec["tolerations"] = tolerations


@dataclass(frozen=True)
class Placement:
    """What of a daemon pod's template decides the nodes it runs on."""

    node_name: str
    node_selector: dict[str, str]
    #: Required node affinity terms; None when there is no required node affinity.
    required_terms: tuple[NodeSelectorTerm, ...] | None
    #: The template's tolerations plus the daemon tolerations.
    tolerations: tuple[Toleration, ...]


def read_placement(ctx: DecodeContext, spec: Any, path: str) -> Placement:
    """The placement fields of the template's pod spec ``spec`` (at ``path``), checked as the
    API server checks them; problems go to ``ctx`` (the DaemonSet is then not expandable)."""
    node_selector = get_string_map(ctx, spec, "nodeSelector", f"{path}.nodeSelector")
    check_labels(ctx, spec, "nodeSelector", f"{path}.nodeSelector")
    affinity = get_map(ctx, spec, "affinity", f"{path}.affinity")
    node_affinity = affinity.get("nodeAffinity")
    required = None
    if node_affinity is not None:
        na_path = f"{path}.affinity.nodeAffinity"
        get_map(ctx, affinity, "nodeAffinity", na_path)
        required = decode_node_affinity(ctx, node_affinity, na_path, pod=True).required
    decode_tolerations(ctx, spec, "tolerations", f"{path}.tolerations")
    with_daemon = dict(spec) if isinstance(spec, dict) else {}
    add_daemon_tolerations(with_daemon)
    tolerations = decode_tolerations(DecodeContext(), with_daemon, "tolerations", "tolerations")
    node_name = get_str(ctx, spec, "nodeName", f"{path}.nodeName")
    return Placement(node_name=node_name, node_selector=node_selector, required_terms=required,
                     tolerations=tolerations)


def _term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """One term of ``v1helper.MatchNodeSelectorTerms``: an empty term matches nothing, a term
    that does not parse matches nothing; matchFields know ``metadata.name`` only."""
    if not term.match_expressions and not term.match_fields:
        return False
    if term.match_expressions:
        try:
            if not from_node_selector_requirements(term.match_expressions).matches(node.labels):
                return False
        except SelectorError:
            return False
    for requirement in term.match_fields:  # NodeSelectorRequirementsAsFieldSelector
        if requirement.operator not in ("In", "NotIn") or len(requirement.values) != 1:
            return False
        value = node.name if requirement.key == "metadata.name" else ""
        if (value == requirement.values[0]) != (requirement.operator == "In"):
            return False
    return True


def matches_node_selector_and_affinity(placement: Placement, node: Node) -> bool:
    """``PodMatchesNodeSelectorAndAffinityTerms``."""
    if placement.node_selector and not from_set(placement.node_selector).matches(node.labels):
        return False
    if placement.required_terms is None:
        return True
    return any(_term_matches(term, node) for term in placement.required_terms)


def should_run(placement: Placement, node: Node) -> bool:
    """``nodeShouldRunDaemonPod``'s first answer (shouldRun): the template's ``nodeName`` is
    empty or this node, the node selector and required node affinity match, and every
    NoSchedule or NoExecute taint of the node is tolerated."""
    if placement.node_name and placement.node_name != node.name:
        return False
    if not matches_node_selector_and_affinity(placement, node):
        return False
    for taint in node.taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(t.tolerates(taint.key, taint.value, taint.effect) for t in placement.tolerations):
            return False
    return True


def nodes_to_run_on(placement: Placement, nodes: Sequence[Node]) -> list[Node]:
    """The nodes, in the order given, that the DaemonSet controller runs a pod on."""
    return [node for node in nodes if should_run(placement, node)]


def pin_to_node(spec: dict[str, Any], node_name: str) -> None:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity`` on a raw pod spec (a copy: it is changed):
    the required node affinity becomes the one term ``matchFields metadata.name In [node]``,
    replacing any other required terms; preferred terms and the rest are kept."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict):
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [term]}}}
        return
    node_affinity = affinity.get("nodeAffinity")
    if not isinstance(node_affinity, dict):
        affinity["nodeAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
        return
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
        return
    required["nodeSelectorTerms"] = [term]
