"""``ruleset explain``: why a pod lands where it does, or why it fits nowhere and what would change that.

Everything here is computed from one scheduling cycle of the pod (as ``score`` runs it, or as a
``schedule`` run reached it, :func:`replay_until`), and every "what would make it fit" is
verified: the change is applied to a copy of the pod and the profile's filters are run again
on the same snapshot; the number of nodes promised is the number that then pass.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ruleset.api.affinity import NAMESPACE_SELECTOR, AffinityTerm, affinity_term, selected_namespaces_term
from ruleset.api.meta import LabelSelector, LabelSelectorRequirement
from ruleset.api.pod import Container, NodeSelectorTerm, Pod, PodAffinity, Toleration
from ruleset.errors import Problem, RulesetError
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.results import NodeStatuses
from ruleset.framework.runtime import Framework
from ruleset.framework.status import Code
from ruleset.plugins.node_ports import check_conflict
from ruleset.scheduler import Scheduler, ScheduleResult, ScheduleRun, nominate_pending, schedule_all
from ruleset.scheduler.cycle import scan_order
from ruleset.selector import SelectorError
from ruleset.snapshot import Snapshot
from ruleset.snapshot.state import ClusterState

#: Filter plugins whose rejections name a volume of the pod.
VOLUME_PLUGINS = frozenset({"VolumeBinding", "VolumeZone", "VolumeRestrictions", "NodeVolumeLimits",
                            "EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits"})
#: Candidate values tried per suggestion (each try re-runs the filters once).
MAX_TRIES = 12
#: Example node names kept per rejection group in the JSON (the count says how many there are).
EXAMPLE_NODES = 5
#: The taint NodeUnschedulable lets a pod past a cordoned node for (whatever the node's taints).
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
_INSUFFICIENT = re.compile(r"^Insufficient (.+)$")
_MI = 1024 * 1024


# ------------------------------------------------------------------------------------------ data
@dataclass
class PluginScore:
    """One Score plugin's score of one node."""

    plugin: str
    weight: int
    raw: int
    score: int
    weighted: int


@dataclass
class NodeScore:
    """A scored node: its rank (1 = best total), total and each plugin's score."""

    node: str
    rank: int
    total: int
    scores: list[PluginScore]


@dataclass
class TieBreak:
    """Top nodes with equal totals, one drawn (``Scheduler.select_host``) with the seeded RNG."""

    nodes: list[str]
    seed: int
    chosen: str


@dataclass
class FullScoring:
    """``percentageOfNodesToScore``: how many nodes the cycle filtered and scored, and what scoring
    every feasible node (the same cycle at 100%) would choose."""

    percentage: int | None
    nodes: int
    evaluated: int
    scored: int
    feasible: int
    #: The node the cycle would choose scoring every feasible node.
    node: str | None
    changes: bool


@dataclass
class Decision:
    """Where a schedulable pod goes, and why that node."""

    node: str
    rank: int
    total: int
    feasible: int
    runner_up: str | None
    margin: int | None
    #: The plugin with the largest weighted difference between the node and the runner-up.
    decisive_plugin: str | None
    decisive_difference: int | None
    top: list[NodeScore]
    scoring: FullScoring
    tie: TieBreak | None = None


@dataclass
class RejectionGroup:
    """Nodes one plugin rejected for the same reasons."""

    plugin: str | None
    code: str
    reasons: list[str]
    count: int
    examples: list[str]


@dataclass
class Blocker:
    """Existing pods whose presence makes InterPodAffinity reject a node."""

    node: str
    pods: list[str]


@dataclass
class Suggestion:
    """A change to the pod that admits at least one node, verified by running the filters again
    (``nodes``: how many nodes then pass; 0 when no change of this kind was found to help)."""

    plugin: str
    reason: str
    text: str
    #: What to change, as data: ``kind`` and its fields.
    change: dict[str, Any]
    nodes: int
    examples: list[str] = field(default_factory=list)


@dataclass
class Explanation:
    """Everything ``ruleset explain`` says about one pod."""

    pod: str
    profile: str
    outcome: str  # scheduled | unschedulable | refused | error
    summary: str
    nodes: int
    seed: int
    decision: Decision | None = None
    message: str | None = None
    rejected: list[RejectionGroup] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    blockers: list[Blocker] = field(default_factory=list)
    preemption: dict[str, Any] | None = None
    #: The node the pod is on in the input (a placed pod is explained as if it were pending again).
    placed_on: str | None = None
    #: ``--in-run``: where in the replayed ``schedule`` run the pod was explained.
    in_run: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON contract of ``ruleset explain`` (without ``schemaVersion``): camelCase keys."""
        return _camel(dataclasses.asdict(self))


def _camel(value: Any) -> Any:
    if isinstance(value, dict):
        return {_camel_key(k): _camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_camel(v) for v in value]
    return value


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


# -------------------------------------------------------------------------------- entry points
def explain_pod(framework: Framework, state: ClusterState, pod: Pod, *, seed: int = 0, top: int = 5,
                scheduler: Scheduler | None = None, refused: str | None = None,
                placed_on: str | None = None) -> Explanation:
    """Explain one cycle of ``pod``: with ``scheduler`` (a replayed run's, :func:`replay_until`) as
    that run would have run it, else as ``score`` does, the first cycle of a fresh scheduler."""
    snapshot = framework.handle.snapshot
    assert snapshot is not None
    base = dict(pod=pod.key, profile=framework.profile.name, nodes=snapshot.num_nodes, seed=seed,
                placed_on=placed_on)
    if refused is not None:
        return Explanation(outcome="refused", summary=f"{pod.key} is refused before scheduling: {refused}",
                           message=refused, **base)  # type: ignore[arg-type]
    if scheduler is None:
        nominate_pending(framework.handle.nominator, state, exclude=pod)
        framework.handle.pending_pods = state.schedulable
        scheduler = Scheduler(framework, seed=seed)
    rng, start = scheduler.rng.getstate(), scheduler.next_start_node_index
    result = scheduler.schedule(pod, always_score=True)
    if result.node is not None:
        decision = _decision(framework, pod, result, seed, top, rng, start)
        return Explanation(outcome="scheduled", summary=_decision_summary(pod, decision), decision=decision,
                           **base)  # type: ignore[arg-type]
    if result.status.code == Code.ERROR:
        return Explanation(outcome="error", summary=f"{pod.key}: the cycle ended with an error",
                           message=result.message, rejected=_groups(snapshot, result.statuses),
                           **base)  # type: ignore[arg-type]
    statuses = result.statuses
    assert statuses is not None
    groups = _groups(snapshot, statuses)
    blockers = _blockers(framework, snapshot, pod, statuses)
    return Explanation(
        outcome="unschedulable",
        summary=f"{pod.key} fits no node: 0 of {snapshot.num_nodes} nodes pass the filters",
        message=result.message, rejected=groups, suggestions=suggest(framework, pod, statuses),
        blockers=blockers, preemption=_preemption(result), **base)  # type: ignore[arg-type]


def replay_until(frameworks: Sequence[Framework], state: ClusterState, pod: Pod, attempt: int,
                 seed: int = 0) -> tuple[Scheduler | None, ScheduleRun]:
    """Run ``schedule`` on ``state`` until ``pod``'s ``attempt``-th scheduling cycle is next, and
    stop there: the snapshot, nominations and queue are as they were then. Returns the scheduler
    that would run that cycle (its RNG and rotating start index as they were; None when the run
    never reached it) and the run so far."""
    found: list[Scheduler] = []

    def stop(queued: Pod, number: int, scheduler: Scheduler) -> bool:
        if queued is pod and number == attempt:
            found.append(scheduler)
            return True
        return False

    run = schedule_all(list(frameworks), state, seed=seed, stop_before=stop)
    return (found[0] if found else None), run


# ------------------------------------------------------------------------------- placed pods
def _decision(framework: Framework, pod: Pod, result: ScheduleResult, seed: int, top: int,
              rng: Any, start: int) -> Decision:
    snapshot = framework.handle.snapshot
    assert snapshot is not None and result.statuses is not None and result.node is not None
    names = snapshot.node_names
    feasible = [int(i) for i in result.feasible]
    table = result.scores
    totals = [int(t) for t in table.total] if table is not None else [0] * len(feasible)
    chosen = feasible.index(snapshot.node_index[result.node])
    # Best total first; equal totals in evaluation order, the chosen node first among them.
    order = sorted(range(len(feasible)), key=lambda p: (-totals[p], p != chosen, p))
    ranks = {p: 1 + sum(1 for t in totals if t > totals[p]) for p in order}
    runner = next((p for p in order if p != chosen), None)

    def node_score(p: int) -> NodeScore:
        scores = []
        if table is not None:
            for plugin, weight, raw, norm in zip(table.plugins, table.weights, table.raw, table.normalized,
                                                 strict=True):
                scores.append(PluginScore(plugin, weight, int(raw[p]), int(norm[p]), int(norm[p]) * weight))
        return NodeScore(names[feasible[p]], ranks[p], totals[p], scores)

    decisive, difference = None, None
    if runner is not None and table is not None and totals[chosen] > totals[runner]:
        diffs = [(int(norm[chosen]) - int(norm[runner])) * weight
                 for weight, norm in zip(table.weights, table.normalized, strict=True)]
        best = max(range(len(diffs)), key=lambda k: diffs[k])
        decisive, difference = table.plugins[best], diffs[best]
    tied = [names[feasible[p]] for p in order if totals[p] == totals[chosen]]
    return Decision(
        node=result.node, rank=ranks[chosen], total=totals[chosen], feasible=len(feasible),
        runner_up=names[feasible[runner]] if runner is not None else None,
        margin=totals[chosen] - totals[runner] if runner is not None else None,
        decisive_plugin=decisive, decisive_difference=difference,
        top=[node_score(p) for p in order[:max(1, top)]],
        scoring=_full_scoring(framework, pod, result, rng, start, seed),
        tie=TieBreak(tied, seed, result.node) if len(tied) > 1 else None)


def _full_scoring(framework: Framework, pod: Pod, result: ScheduleResult, rng: Any, start: int,
                  seed: int) -> FullScoring:
    """How far the cycle's search went, and the same cycle scoring every feasible node."""
    snapshot = framework.handle.snapshot
    assert snapshot is not None and result.statuses is not None
    n = snapshot.num_nodes
    percentage = framework.profile.percentage_of_nodes_to_score
    statuses = result.statuses
    passing = int(np.count_nonzero(statuses.passed()))
    scored = len(result.feasible)
    evaluated = int(np.count_nonzero(statuses.evaluated))
    if passing > scored and scored:
        # Where a sequential scan, in the cycle's order, stops.
        order = scan_order(snapshot, result.state, start)
        evaluated = int(np.flatnonzero(order == result.feasible[-1])[0]) + 1
    node = result.node
    if passing > scored:
        again = Scheduler(framework, seed=seed)
        again.rng.setstate(rng)
        again.next_start_node_index = start
        again.percentage = 100
        node = again.schedule(pod, always_score=True).node
    return FullScoring(percentage=percentage, nodes=n, evaluated=evaluated, scored=scored, feasible=passing,
                       node=node, changes=node != result.node)


def _decision_summary(pod: Pod, d: Decision) -> str:
    text = f"{pod.key} → node {d.node}: rank {d.rank} of {_plural(d.feasible, 'feasible node')}"
    if d.tie is not None:
        return text + (f", tied at {d.total} points with {_plural(len(d.tie.nodes) - 1, 'other node')}, "
                       f"drawn with seed {d.tie.seed}")
    if d.runner_up is None:
        return text + " (the only one)"
    return text + f", {_plural(d.margin or 0, 'point')} ahead of {d.runner_up}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -------------------------------------------------------------------------------- rejections
def _groups(snapshot: Snapshot, statuses: NodeStatuses | None) -> list[RejectionGroup]:
    if statuses is None:
        return []
    groups: dict[tuple[Any, ...], list[str]] = {}
    for i in statuses.failed():
        status = statuses.status(int(i))
        if status.code == Code.ERROR:
            continue
        key = (status.plugin, status.code.label, tuple(status.reasons))
        groups.setdefault(key, []).append(snapshot.node_names[int(i)])
    ordered = sorted(groups.items(), key=lambda item: -len(item[1]))
    return [RejectionGroup(plugin, code, list(reasons), len(nodes), nodes[:EXAMPLE_NODES])
            for (plugin, code, reasons), nodes in ordered]


def _rejected_by(snapshot: Snapshot, statuses: NodeStatuses, plugin: str) -> list[int]:
    return [int(i) for i in statuses.failed() if statuses.status(int(i)).plugin == plugin]


def _preemption(result: ScheduleResult) -> dict[str, Any] | None:
    post = result.post_filter
    if post is None:
        return None
    out = dict(post.report.json) if post.report.json is not None else {}
    if post.status.code == Code.ERROR:
        out["error"] = post.status.to_json()
    return out


# ------------------------------------------------------------------------- what would fit
def fitting_nodes(framework: Framework, pod: Pod) -> list[str]:
    """The nodes ``pod`` passes PreFilter and every Filter on (all nodes evaluated), on the
    framework's snapshot as it is."""
    snapshot = framework.handle.snapshot
    assert snapshot is not None
    statuses = NodeStatuses(snapshot.num_nodes)
    state = CycleState()
    status = framework.run_pre_filter(state, pod, snapshot)
    if not status.is_success:
        return []
    _, status = Scheduler(framework).find_nodes_that_fit(state, pod, statuses, evaluate_all=True)
    if not status.is_success:
        return []
    return [snapshot.node_names[int(i)] for i in np.flatnonzero(statuses.passed())]


def suggest(framework: Framework, pod: Pod, statuses: NodeStatuses) -> list[Suggestion]:
    """For each blocking plugin, the smallest change to the pod found to admit a node (verified)."""
    snapshot = framework.handle.snapshot
    assert snapshot is not None
    failed = [statuses.status(int(i)) for i in statuses.failed()]
    plugins = list(dict.fromkeys(s.plugin for s in failed if s.plugin is not None and s.code != Code.ERROR))
    out: list[Suggestion] = []
    for plugin in plugins:
        rejected = _rejected_by(snapshot, statuses, plugin)
        if plugin == "NodeResourcesFit":
            out += _resources(framework, snapshot, pod, statuses, rejected)
        elif plugin == "TaintToleration":
            out += _taints(framework, snapshot, pod, statuses, rejected)
        elif plugin == "NodeAffinity":
            out += _node_affinity(framework, snapshot, pod, statuses, rejected)
        elif plugin == "InterPodAffinity":
            out += _anti_affinity(framework, pod, statuses, rejected)
            out += _pod_affinity(framework, snapshot, pod, statuses, rejected)
        elif plugin in VOLUME_PLUGINS:
            out += _volumes(framework, snapshot, pod, statuses, rejected, plugin)
        elif plugin in _MORE:
            out += _MORE[plugin](framework, snapshot, pod, statuses, rejected)
    return out


def _reason_of(statuses: NodeStatuses, nodes: list[int]) -> str:
    reasons = Counter(", ".join(statuses.status(i).reasons) for i in nodes)
    return reasons.most_common(1)[0][0] if reasons else ""


def _verified(framework: Framework, pod: Pod) -> tuple[int, list[str]]:
    fits = fitting_nodes(framework, pod)
    return len(fits), fits[:EXAMPLE_NODES]


def format_amount(resource: str, value: int) -> str:
    """A resource amount as a Kubernetes quantity: CPU from millicores, the rest with binary suffixes."""
    if resource == "cpu":
        return f"{value // 1000}" if value % 1000 == 0 else f"{value}m"
    for suffix, size in (("Gi", 1024 ** 3), ("Mi", _MI), ("Ki", 1024)):
        if value and value % size == 0:
            return f"{value // size}{suffix}"
    return str(value)


def _resources(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses,
               rejected: list[int]) -> list[Suggestion]:
    """Per resource some node lacks: the smallest request reduction that admits a node."""
    wanted: dict[str, list[int]] = {}
    for i in rejected:
        for reason in statuses.status(i).reasons:
            match = _INSUFFICIENT.match(reason)
            if match:
                wanted.setdefault(match.group(1), []).append(i)
    out = []
    for resource, nodes in wanted.items():
        asked = pod.requests.get(resource, 0)
        free = snapshot.allocatable(resource) - snapshot.requested(resource)
        shortfalls = sorted({asked - int(free[i]) for i in nodes if 0 < asked - int(free[i]) <= asked})
        if resource != "cpu" and resource != "pods":  # whole mebibytes read better, and cost at most 1Mi
            shortfalls = sorted({min(asked, -(-s // _MI) * _MI) if s > _MI else s for s in shortfalls})
        reason = f"Insufficient {resource}"
        best: Suggestion | None = None
        for amount in shortfalls[:MAX_TRIES]:
            count, examples = _verified(framework, less_requested(pod, resource, amount))
            if count:
                less = format_amount(resource, amount)
                best = Suggestion("NodeResourcesFit", reason,
                                  f"{_plural(count, 'node')} would fit with {less} less {resource} requested",
                                  {"kind": "request", "resource": resource, "less": amount,
                                   "quantity": format_amount(resource, amount),
                                   "requested": asked, "newRequest": asked - amount},
                                  count, examples)
                break
        out.append(best or Suggestion("NodeResourcesFit", reason,
                                      f"no smaller {resource} request alone admits a node",
                                      {"kind": "request", "resource": resource}, 0))
    return out


def less_requested(pod: Pod, resource: str, amount: int) -> Pod:
    """A copy of ``pod`` requesting ``amount`` less of ``resource`` (CPU in millicores): taken from
    its containers, largest request first; init containers capped at what remains."""
    unit = Fraction(1, 1000) if resource == "cpu" else Fraction(1)
    left = Fraction(amount) * unit
    containers = list(pod.containers)
    for k in sorted(range(len(containers)), key=lambda k: -containers[k].requests.get(resource, 0)):
        have = containers[k].requests.get(resource, Fraction(0))
        take = min(have, left)
        if take:
            containers[k] = _with_request(containers[k], resource, have - take)
            left -= take
    total = Fraction(pod.requests.get(resource, 0) - amount) * unit
    inits = tuple(_with_request(c, resource, min(c.requests[resource], max(total, Fraction(0))))
                  if resource in c.requests else c for c in pod.init_containers)
    pod_requests = dict(pod.pod_requests)
    if resource in pod_requests:
        pod_requests[resource] = max(Fraction(0), pod_requests[resource] - Fraction(amount) * unit)
    return dataclasses.replace(pod, containers=tuple(containers), init_containers=inits,
                               pod_requests=pod_requests)


def _with_request(container: Container, resource: str, value: Fraction) -> Container:
    return dataclasses.replace(container, requests={**container.requests, resource: value})


def _taints(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses,
            rejected: list[int]) -> list[Suggestion]:
    """Tolerating the taint that blocks the most nodes (of the few most blocking, the one that
    opens the most nodes)."""
    blocking: Counter[tuple[str, str, str]] = Counter()
    for i in rejected:
        for taint in snapshot.nodes[i].taints:
            if taint.effect in ("NoSchedule", "NoExecute") and not any(
                    t.tolerates(taint.key, taint.value, taint.effect) for t in pod.tolerations):
                blocking[(taint.key, taint.value, taint.effect)] += 1
    best: Suggestion | None = None
    for (key, value, effect), blocks in blocking.most_common(3):
        toleration = (Toleration(key=key, operator="Equal", value=value, effect=effect) if value
                      else Toleration(key=key, operator="Exists", effect=effect))
        count, examples = _verified(framework, dataclasses.replace(pod, tolerations=(*pod.tolerations,
                                                                                     toleration)))
        written = f"{key}={value}:{effect}" if value else f"{key}:{effect}"
        if best is None or count > best.nodes:
            opens = f"opens {_plural(count, 'node')}" if count else "alone opens no node"
            best = Suggestion("TaintToleration", _reason_of(statuses, rejected),
                              f"tolerating {written} {opens} "
                              f"(the taint is on {_plural(blocks, 'rejected node')})",
                              {"kind": "toleration", "key": key, "operator": toleration.operator,
                               "value": value, "effect": effect}, count, examples)
    return [best] if best is not None else []


def _node_affinity(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses,
                   rejected: list[int]) -> list[Suggestion]:
    """A nodeSelector entry (or a required ``In`` expression) no node matches: the values the
    nodes have for its key, and the one that admits the most nodes."""
    reason = _reason_of(statuses, rejected)
    out = []
    for key, value in pod.node_selector.items():
        present = Counter(node.labels[key] for node in snapshot.nodes if key in node.labels)
        if present.get(value):
            continue
        suggestion = _best_value(framework, pod, present, reason, f"nodeSelector {key}={value}",
                                 _selector_change(pod, key),
                                 {"kind": "nodeSelector", "key": key, "value": value})
        out.append(suggestion)
    required = pod.affinity.node_affinity.required if pod.affinity.node_affinity is not None else None
    for t, term in enumerate(required or ()):
        for e, expr in enumerate(term.match_expressions):
            if expr.operator != "In":
                continue
            present = Counter(node.labels[expr.key] for node in snapshot.nodes if expr.key in node.labels)
            if any(present.get(v) for v in expr.values):
                continue
            out.append(_best_value(
                framework, pod, present, reason, f"node affinity {expr.key} in ({', '.join(expr.values)})",
                _affinity_change(pod, t, e),
                {"kind": "nodeAffinity", "term": t, "expression": e, "key": expr.key,
                 "values": list(expr.values)}))
    if not out:
        out += _drop_one_requirement(framework, pod, reason, rejected)
    return out


def _best_value(framework: Framework, pod: Pod, present: Counter[str], reason: str, what: str,
                change: Callable[[str], Pod], data: dict[str, Any]) -> Suggestion:
    key = data["key"]
    if not present:
        return Suggestion("NodeAffinity", reason, f"{what} matches no node; no node has the label {key}",
                          data, 0)
    having = ", ".join(f"{_plural(n, 'node')} {key}={v}" for v, n in present.most_common(4))
    best: tuple[int, str, list[str]] | None = None
    for candidate, _ in present.most_common(MAX_TRIES):
        count, examples = _verified(framework, change(candidate))
        if best is None or count > best[0]:
            best = (count, candidate, examples)
    assert best is not None
    count, candidate, examples = best
    return Suggestion("NodeAffinity", reason,
                      f"{what} matches no node; {having}: {key}={candidate} opens {_plural(count, 'node')}",
                      {**data, "suggested": candidate}, count, examples)


def _selector_change(pod: Pod, key: str) -> Callable[[str], Pod]:
    return lambda value: dataclasses.replace(pod, node_selector={**pod.node_selector, key: value})


def _affinity_change(pod: Pod, term: int, expression: int) -> Callable[[str], Pod]:
    return lambda value: _with_affinity_value(pod, term, expression, value)


def _with_affinity_value(pod: Pod, term: int, expression: int, value: str) -> Pod:
    node_affinity = pod.affinity.node_affinity
    assert node_affinity is not None and node_affinity.required is not None
    terms = list(node_affinity.required)
    exprs = list(terms[term].match_expressions)
    exprs[expression] = dataclasses.replace(exprs[expression], values=(value,))
    terms[term] = NodeSelectorTerm(tuple(exprs), terms[term].match_fields)
    new = dataclasses.replace(node_affinity, required=tuple(terms))
    return dataclasses.replace(pod, affinity=dataclasses.replace(pod.affinity, node_affinity=new))


def _anti_affinity(framework: Framework, pod: Pod, statuses: NodeStatuses,
                   rejected: list[int]) -> list[Suggestion]:
    """Without the pod's required anti-affinity terms: how many nodes would fit."""
    anti = pod.affinity.pod_anti_affinity
    if anti is None or not anti.required:
        return []
    copy = dataclasses.replace(pod, affinity=dataclasses.replace(
        pod.affinity, pod_anti_affinity=PodAffinity(required=(), preferred=anti.preferred)))
    count, examples = _verified(framework, copy)
    return [Suggestion("InterPodAffinity", _reason_of(statuses, rejected),
                       f"without its required pod anti-affinity the pod fits {_plural(count, 'node')}",
                       {"kind": "dropPodAntiAffinity", "terms": len(anti.required)}, count, examples)]


def _drop_one_requirement(framework: Framework, pod: Pod, reason: str,
                          rejected: list[int]) -> list[Suggestion]:
    """nodeSelector entries and required node affinity no node satisfies though no wanted value
    is missing (``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt``/``Lt``, or requirements that each
    match some node but not together): of dropping each one alone, the one that opens the most
    nodes (the first of equals)."""
    candidates: list[tuple[Pod, str, dict[str, Any]]] = [
        (dataclasses.replace(pod, node_selector={k: v for k, v in pod.node_selector.items() if k != key}),
         f"nodeSelector {key}={value}", {"kind": "dropNodeSelector", "key": key, "value": value})
        for key, value in pod.node_selector.items()]
    node_affinity = pod.affinity.node_affinity
    terms = node_affinity.required if node_affinity is not None and node_affinity.required else ()
    for t, term in enumerate(terms):
        for e, expr in enumerate(term.match_expressions):
            where = f" (term {t})" if len(terms) > 1 else ""
            candidates.append((without_node_affinity_expression(pod, t, e), _expression_text(expr) + where,
                               {"kind": "dropNodeAffinityExpression", "term": t, "expression": e,
                                "key": expr.key, "operator": expr.operator, "values": list(expr.values)}))
    best: tuple[int, list[str], str, dict[str, Any]] | None = None
    for changed, what, data in candidates:
        count, examples = _verified(framework, changed)
        if best is None or count > best[0]:
            best = (count, examples, what, data)
    if best is None:
        return []
    count, examples, what, data = best
    opens = (f"without {what} the pod fits {_plural(count, 'node')}" if count
             else "dropping any one requirement alone opens no node")
    return [Suggestion("NodeAffinity", reason,
                       f"the pod's node requirements exclude {_plural(len(rejected), 'node')}; {opens}",
                       data, count, examples)]


def without_node_affinity_expression(pod: Pod, term: int, expression: int) -> Pod:
    """A copy of ``pod`` without that expression of its required node affinity: a term left
    empty goes (an empty term matches no node), and with no term left the requirement goes."""
    node_affinity = pod.affinity.node_affinity
    assert node_affinity is not None and node_affinity.required is not None
    terms = list(node_affinity.required)
    exprs = tuple(x for k, x in enumerate(terms[term].match_expressions) if k != expression)
    if exprs or terms[term].match_fields:
        terms[term] = NodeSelectorTerm(exprs, terms[term].match_fields)
    else:
        del terms[term]
    new = dataclasses.replace(node_affinity, required=tuple(terms) if terms else None)
    return dataclasses.replace(pod, affinity=dataclasses.replace(pod.affinity, node_affinity=new))


def _expression_text(expr: LabelSelectorRequirement) -> str:
    if expr.operator in ("Exists", "DoesNotExist"):
        return f"{expr.key} {expr.operator}"
    return f"{expr.key} {expr.operator} ({', '.join(expr.values)})"


def _selector_text(selector: LabelSelector | None) -> str:
    if selector is None:
        return "no selector"
    parts = [f"{k}={v}" for k, v in selector.match_labels]
    parts += [_expression_text(x) for x in selector.match_expressions]
    return ", ".join(parts) if parts else "every pod"


def _unschedulable(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses,
                   rejected: list[int]) -> list[Suggestion]:
    """Cordoned nodes: tolerating the taint NodeUnschedulable checks for (not the node's taints)."""
    toleration = Toleration(key=UNSCHEDULABLE_TAINT, operator="Exists", effect="NoSchedule")
    tolerating = dataclasses.replace(pod, tolerations=(*pod.tolerations, toleration))
    count, examples = _verified(framework, tolerating)
    opens = f"opens {_plural(count, 'node')}" if count else "alone opens no node"
    return [Suggestion("NodeUnschedulable", _reason_of(statuses, rejected),
                       f"{_plural(len(rejected), 'node')} cordoned (spec.unschedulable); "
                       f"tolerating {UNSCHEDULABLE_TAINT}:NoSchedule {opens}",
                       {"kind": "toleration", "key": UNSCHEDULABLE_TAINT, "operator": "Exists", "value": "",
                        "effect": "NoSchedule"}, count, examples)]


def _host_ports(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses,
                rejected: list[int]) -> list[Suggestion]:
    """Each host port in use on a rejected node: the pod without it, and with the smallest port
    from it up that is free on at least one rejected node."""
    reason = _reason_of(statuses, rejected)
    out = []
    for c, container in enumerate(pod.containers):
        for k, port in enumerate(container.ports):
            if port.host_port <= 0:
                continue
            used = [i for i in rejected
                    if check_conflict(snapshot.used_ports[i], port.host_ip, port.protocol, port.host_port)]
            if not used:
                continue
            what = f"hostPort {port.host_port}/{port.protocol or 'TCP'} (container {container.name})"
            data = {"container": container.name, "containerPort": port.container_port,
                    "protocol": port.protocol or "TCP", "hostPort": port.host_port}
            count, examples = _verified(framework, with_host_port(pod, c, k, 0))
            out.append(Suggestion("NodePorts", reason,
                                  f"{what} is in use on {_plural(len(used), 'node')}: without it the pod "
                                  f"fits {_plural(count, 'node')}", {"kind": "dropHostPort", **data},
                                  count, examples))
            free = next((q for q in range(port.host_port + 1, 65536)
                         if any(not check_conflict(snapshot.used_ports[i], port.host_ip, port.protocol, q)
                                for i in rejected)), None)
            if free is not None:
                count, examples = _verified(framework, with_host_port(pod, c, k, free))
                out.append(Suggestion("NodePorts", reason,
                                      f"with hostPort {free} instead of {port.host_port} (the smallest "
                                      f"free on a rejected node) the pod fits {_plural(count, 'node')}",
                                      {"kind": "hostPort", **data, "suggested": free}, count, examples))
    return out


def with_host_port(pod: Pod, container: int, port: int, host_port: int) -> Pod:
    """A copy of ``pod`` whose ``port``-th port of its ``container``-th container has ``host_port``
    (0: none)."""
    containers = list(pod.containers)
    ports = list(containers[container].ports)
    ports[port] = dataclasses.replace(ports[port], host_port=host_port)
    containers[container] = dataclasses.replace(containers[container], ports=tuple(ports))
    return dataclasses.replace(pod, containers=tuple(containers))


def _spread(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses,
            rejected: list[int]) -> list[Suggestion]:
    """Each DoNotSchedule constraint relaxed alone: the smallest maxSkew that admits a node (the
    nodes a maxSkew admits only grow with it, so a bisection finds it), else ScheduleAnyway."""
    reason = _reason_of(statuses, rejected)
    # No skew exceeds the number of pods plus the pod itself.
    bound = 1 + sum(len(snapshot.pods_on(i)) for i in range(snapshot.num_nodes))
    out = []
    for c, constraint in enumerate(pod.topology_spread_constraints):
        if constraint.when_unsatisfiable != "DoNotSchedule":
            continue
        what = (f"topology spread constraint {c} (topologyKey {constraint.topology_key}, "
                f"maxSkew {constraint.max_skew})")
        data = {"constraint": c, "topologyKey": constraint.topology_key, "maxSkew": constraint.max_skew}
        low, high = constraint.max_skew + 1, max(constraint.max_skew + 1, bound)
        if _verified(framework, with_spread(pod, c, max_skew=high))[0]:
            while low < high:
                middle = (low + high) // 2
                if _verified(framework, with_spread(pod, c, max_skew=middle))[0]:
                    high = middle
                else:
                    low = middle + 1
            count, examples = _verified(framework, with_spread(pod, c, max_skew=high))
            out.append(Suggestion("PodTopologySpread", reason,
                                  f"{what}: with maxSkew {high} the pod fits {_plural(count, 'node')}",
                                  {"kind": "topologySpread", **data, "suggested": high}, count, examples))
            continue
        count, examples = _verified(framework, with_spread(pod, c, when_unsatisfiable="ScheduleAnyway"))
        if count:
            out.append(Suggestion("PodTopologySpread", reason,
                                  f"{what}: no maxSkew admits a node; with whenUnsatisfiable ScheduleAnyway "
                                  f"the pod fits {_plural(count, 'node')}",
                                  {"kind": "topologySpread", **data, "whenUnsatisfiable": "ScheduleAnyway"},
                                  count, examples))
    if not out:
        text = ("relaxing any one topology spread constraint alone opens no node"
                if any(c.when_unsatisfiable == "DoNotSchedule" for c in pod.topology_spread_constraints)
                else "the profile's default topology spread constraints reject these nodes; the pod has no "
                     "DoNotSchedule constraint of its own to relax")
        out.append(Suggestion("PodTopologySpread", reason, text, {"kind": "topologySpread"}, 0))
    return out


def with_spread(pod: Pod, constraint: int, **changes: Any) -> Pod:
    """A copy of ``pod`` with fields of its ``constraint``-th topology spread constraint changed."""
    constraints = list(pod.topology_spread_constraints)
    constraints[constraint] = dataclasses.replace(constraints[constraint], **changes)
    return dataclasses.replace(pod, topology_spread_constraints=tuple(constraints))


def _pod_affinity(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses,
                  rejected: list[int]) -> list[Suggestion]:
    """Each required pod affinity term some rejected node has no matching pod in reach of: the
    topology domains that hold matching pods, and how many nodes fit without the term."""
    affinity = pod.affinity.pod_affinity
    if affinity is None or not affinity.required:
        return []
    term_of = selected_namespaces_term if framework.profile.target.has(NAMESPACE_SELECTOR) else affinity_term
    labels = [node.labels for node in snapshot.nodes]
    reason = _reason_of(statuses, rejected)
    out = []
    for t, term in enumerate(affinity.required):
        try:
            converted = term_of(term, pod.namespace)
        except SelectorError:
            continue
        key = term.topology_key
        domains = sorted({labels[i][key] for i in range(snapshot.num_nodes)
                          if key in labels[i] and any(converted.matches(o) for o in snapshot.pods_on(i))})
        if all(labels[i].get(key) in domains for i in rejected):
            continue
        required = tuple(x for k, x in enumerate(affinity.required) if k != t)
        copy = dataclasses.replace(pod, affinity=dataclasses.replace(
            pod.affinity, pod_affinity=PodAffinity(required=required, preferred=affinity.preferred)))
        count, examples = _verified(framework, copy)
        where = (f"matches pods only in {key}={', '.join(domains)}" if domains
                 else "matches no pod in the cluster")
        out.append(Suggestion("InterPodAffinity", reason,
                              f"required pod affinity term {t} ({_selector_text(term.label_selector)}, "
                              f"topologyKey {key}) {where}: without it the pod fits {_plural(count, 'node')}",
                              {"kind": "dropPodAffinityTerm", "term": t, "topologyKey": key,
                               "domains": domains}, count, examples))
    return out


def _node_name(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses,
               rejected: list[int]) -> list[Suggestion]:
    """A pod pinned by ``spec.nodeName``: the only change is removing it."""
    count, examples = _verified(framework, dataclasses.replace(pod, node_name=""))
    missing = "" if pod.node_name in snapshot.node_index else ", which is not in the cluster"
    return [Suggestion("NodeName", _reason_of(statuses, rejected),
                       f"the pod is pinned to node {pod.node_name} (spec.nodeName){missing}; without "
                       f"spec.nodeName it fits {_plural(count, 'node')}",
                       {"kind": "dropNodeName", "nodeName": pod.node_name}, count, examples)]


_Suggester = Callable[[Framework, Snapshot, Pod, NodeStatuses, list[int]], list[Suggestion]]
#: The suggesters of plugins with no other arguments.
_MORE: dict[str, _Suggester] = {"NodeUnschedulable": _unschedulable, "NodePorts": _host_ports,
                                "PodTopologySpread": _spread, "NodeName": _node_name}

def _blockers(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses) -> list[Blocker]:
    """For each node InterPodAffinity rejects for anti-affinity: the existing pods in its topology
    domain that the pod's required anti-affinity selects, or whose own required anti-affinity
    selects the pod."""
    rejected = _rejected_by(snapshot, statuses, "InterPodAffinity")
    if not rejected:
        return []
    selector = framework.profile.target.has(NAMESPACE_SELECTOR)
    labels = [node.labels for node in snapshot.nodes]
    # (topology key, value) → pods there that block the pod.
    blocking: dict[tuple[str, str], list[str]] = {}

    def add(node: int, key: str, other: Pod) -> None:
        if key in labels[node]:
            blocking.setdefault((key, labels[node][key]), []).append(other.key)

    anti = pod.affinity.pod_anti_affinity
    own: list[AffinityTerm] = []
    for term in anti.required if anti is not None else ():
        try:
            own.append(selected_namespaces_term(term, pod.namespace) if selector
                       else affinity_term(term, pod.namespace))
        except SelectorError:
            continue
    for node in range(snapshot.num_nodes):
        for other in snapshot.pods_on(node):
            for converted in own:
                if converted.matches(other):
                    add(node, converted.topology_key, other)
            theirs = other.affinity.pod_anti_affinity
            for written in theirs.required if theirs is not None else ():
                try:
                    term_of = selected_namespaces_term if selector else affinity_term
                    if term_of(written, other.namespace).matches(pod):
                        add(node, written.topology_key, other)
                except SelectorError:
                    continue
    out = []
    for i in rejected:
        pods: list[str] = []
        for (key, value), keys in blocking.items():
            if labels[i].get(key) == value:
                pods += [k for k in keys if k not in pods]
        if pods:  # a node rejected for the pod's own required affinity has none to name
            out.append(Blocker(snapshot.node_names[i], pods))
    return out


def _volumes(framework: Framework, snapshot: Snapshot, pod: Pod, statuses: NodeStatuses, rejected: list[int],
             plugin: str) -> list[Suggestion]:
    """Each claim volume of the pod: its claim and volume, and how many nodes fit without it."""
    reason = _reason_of(statuses, rejected)
    out = []
    for volume in pod.volumes:
        source = volume.get("persistentVolumeClaim")
        if not isinstance(source, dict):
            continue
        name, claim_name = str(volume.get("name")), str(source.get("claimName"))
        claim = snapshot.storage.claim(pod.namespace, claim_name)
        what = f"volume {name} (claim {pod.namespace}/{claim_name}"
        if claim is None:
            what += ", which does not exist)"
        elif claim.volume_name:
            pv = snapshot.storage.volumes.get(claim.volume_name)
            what += f", bound to PersistentVolume {claim.volume_name}"
            if pv is not None and pv.node_affinity is not None:
                allowed = [snapshot.node_names[i] for i, node in enumerate(snapshot.nodes)
                           if _node_matches(pv.node_affinity, node.labels)]
                what += f", whose node affinity allows {', '.join(allowed) if allowed else 'no node'}"
            what += ")"
        else:
            what += f", unbound, class {claim.storage_class_name or '-'}{_free_volumes(snapshot, claim)})"
        copy = dataclasses.replace(pod, volumes=tuple(v for v in pod.volumes if v is not volume))
        count, examples = _verified(framework, copy)
        out.append(Suggestion(plugin, reason, f"{what}: without it the pod fits {_plural(count, 'node')}",
                              {"kind": "dropVolume", "volume": name, "claim": claim_name,
                               "persistentVolume": claim.volume_name if claim is not None else None},
                              count, examples))
    return out


def _free_volumes(snapshot: Snapshot, claim: Any) -> str:
    """How many PersistentVolumes of the claim's class are free to bind, and how many other claims hold."""
    wanted = claim.storage_class_name or ""
    same = [v for v in snapshot.storage.volumes.values() if v.storage_class_name == wanted]
    taken = sum(1 for v in same if v.claim_ref is not None
                and (v.claim_ref.namespace, v.claim_ref.name) != (claim.meta.namespace, claim.meta.name))
    return f"; its class has {_plural(len(same), 'PersistentVolume')}, {taken} bound to other claims"


def _node_matches(terms: tuple[NodeSelectorTerm, ...], labels: dict[str, str]) -> bool:
    """Whether node ``labels`` match one of ``terms`` (matchExpressions only)."""
    def one(key: str, op: str, values: tuple[str, ...]) -> bool:
        have = labels.get(key)
        return {"In": have in values, "NotIn": have not in values, "Exists": key in labels,
                "DoesNotExist": key not in labels}.get(op, False)

    return any(term.match_expressions
               and all(one(e.key, e.operator, e.values) for e in term.match_expressions) for term in terms)


def find_pod(state: ClusterState, key: str) -> tuple[Pod, str | None]:
    """The pod ``NAMESPACE/NAME`` of the snapshot: a pending one, else a placed one (and its node)."""
    for pod in state.pending:
        if pod.key == key:
            return pod, None
    snapshot = state.snapshot
    for i in range(snapshot.num_nodes):
        for pod in snapshot.pods_on(i):
            if pod.key == key:
                return pod, snapshot.node_names[i]
    raise RulesetError(Problem(f"no pod {key} in the cluster (pending or placed)", file=key, code="no-pod"))


__all__ = ["Blocker", "Decision", "Explanation", "FullScoring", "NodeScore", "PluginScore",
           "RejectionGroup", "Suggestion", "TieBreak", "explain_pod", "find_pod", "fitting_nodes",
           "format_amount", "less_requested", "replay_until", "suggest", "with_host_port", "with_spread",
           "without_node_affinity_expression"]
