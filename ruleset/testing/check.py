"""``check_plugin``: what every plugin must do, checked on a small varied cluster.

A plugin that passes behaves the way the framework relies on without checking at run time:
its hooks match the specs, its args schema is valid and agrees with its ``Args``, Filter and
Score answer in the right shape with the right codes and range, the same question gets the
same answer, the snapshot is left as it was, its per-node and batch forms agree, and its
Filter gives on a preemption dry run's cloned state (node by node, after victims are removed
through its PreFilter extensions) what it gives on a cluster where they are really gone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ruleset.api.node import Node
from ruleset.api.pod import Pod
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.hooks import class_hooks
from ruleset.framework.plugin import PerNodeFilter, PerNodeScore, Plugin
from ruleset.framework.points import implemented_points
from ruleset.framework.results import FilterResult
from ruleset.framework.runtime import SKIP_FILTER_PLUGINS, Framework
from ruleset.framework.status import Code, Status
from ruleset.framework.types import QueuedPodInfo
from ruleset.snapshot import NodeInfo, NodeSet, Snapshot
from ruleset.testing.builders import cluster, decode_pod_manifest, node, pod, pod_manifest
from ruleset.testing.conformance_args import args_problems
from ruleset.testing.run import plugin_framework, resolve_plugin

__all__ = ["check_plugin", "sample_nodes", "sample_pods", "sample_running_pods"]

#: The codes a Filter hook may give a node (an Error fails the cycle: not on these sample pods).
FILTER_CODES = frozenset(int(code) for code in (Code.SUCCESS, Code.UNSCHEDULABLE,
                                                 Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
SPOT = "node.kubernetes.io/lifecycle"

Verdict = tuple[int, tuple[str, ...]]


def sample_nodes() -> list[Node]:
    """Six nodes over three zones: different sizes, a GPU node tainted NoSchedule, a spot node
    tainted PreferNoSchedule, a cordoned node, and one nearly full."""
    def labels(zone: str, kind: str, **more: str) -> dict[str, str]:
        return {REGION: "eu-1", ZONE: f"eu-1{zone}", INSTANCE_TYPE: kind, **more}

    return [
        node("a-1", labels=labels("a", "m5.xlarge", tier="frontend")),
        node("a-2", cpu="16", memory="64Gi", resources={"nvidia.com/gpu": 2},
             labels=labels("a", "p3.2xlarge", accelerator="nvidia"),
             taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        node("b-1", labels=labels("b", "m5.xlarge", tier="frontend", **{SPOT: "spot"}),
             taints=[{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]),
        node("b-2", cpu="8", memory="32Gi", labels=labels("b", "m5.2xlarge", tier="backend")),
        node("c-1", cpu="2", memory="4Gi", pods=4, labels=labels("c", "t3.medium")),
        node("c-2", labels=labels("c", "m5.xlarge", tier="backend"), unschedulable=True),
    ]


def sample_running_pods() -> list[Pod]:
    """Pods already running on :func:`sample_nodes`, of several apps and priorities."""
    return [
        pod("web-1", cpu="1", memory="1Gi", labels={"app": "web"}, node_name="a-1", priority=100),
        pod("db-1", namespace="data", cpu="2", memory="4Gi", labels={"app": "db"}, node_name="a-1"),
        pod("train-1", namespace="ml", cpu="4", memory="16Gi", resources={"nvidia.com/gpu": 1},
            labels={"app": "train"}, node_name="a-2", priority=1000,
            tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]),
        pod("web-2", cpu="1", memory="1Gi", labels={"app": "web"}, node_name="b-1", priority=100),
        pod("batch-1", cpu="3", memory="8Gi", labels={"app": "batch"}, node_name="b-2", priority=-10),
        pod("cache-1", cpu="1500m", memory="3Gi", labels={"app": "cache"}, node_name="c-1"),
    ]


def sample_pods() -> list[Pod]:
    """The pods each plugin is checked on: a small plain one, one with every constraint (node and
    pod affinity, anti-affinity, a spread constraint, tolerations), and a large GPU pod."""
    picky = pod_manifest(
        "api-7f9", cpu="500m", memory="512Mi", labels={"app": "web", "tier": "frontend"}, priority=100,
        tolerations=[{"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}],
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": ZONE, "operator": "In",
                                           "values": ["eu-1a", "eu-1b", "eu-1c"]}]}]},
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 20, "preference": {"matchExpressions": [
                        {"key": "tier", "operator": "In", "values": ["frontend"]}]}}]},
            "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}},
                                                   "namespaces": ["data"], "topologyKey": ZONE}}]},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]},
        },
        topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                                    "labelSelector": {"matchLabels": {"app": "web"}}}])
    return [
        pod("tiny", cpu="100m", memory="128Mi", labels={"app": "tiny"}),
        decode_pod_manifest(picky),
        pod("trainer", namespace="ml", cpu="6", memory="24Gi", resources={"nvidia.com/gpu": 1},
            labels={"app": "train"}, priority=1000,
            tolerations=[{"key": "dedicated", "operator": "Exists"}]),
    ]


class _Failures:
    """The failed checks, each once, in the order found."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, check: str, message: str) -> None:
        entry = f"{check}: {message}"
        if entry not in self.found:
            self.found.append(entry)


def check_plugin(cls: type[Plugin], *, args: Mapping[str, Any] | None = None,
                 kubernetes_version: str | None = None) -> None:
    """Check that plugin class ``cls`` (run with ``args``, as Kubernetes ``kubernetes_version``:
    default 1.20, or the release that brought the plugin) does what every plugin must; raise one
    AssertionError listing every check it fails.

    Checks: a name and docstring; a valid args schema agreeing with the ``Args`` dataclass, and
    ``args`` accepted; hook methods matching the specs, at least one extension point; and, on a
    small varied cluster (:func:`sample_nodes`, :func:`sample_running_pods`) for a few pods
    (:func:`sample_pods`): Filter returns a FilterResult of one valid code per node and reasons
    for each rejection; Score returns one integer per node, in [0, 100] after NormalizeScore;
    the same cycle twice gives the same answers; Filter and PreScore take an empty node set; the snapshot is
    left unchanged; ``filter_node``/``score_node`` agree with the batch hooks; Filter on a
    preemption dry run's cloned state, node by node, after removing (and re-adding) a pod
    through the PreFilter extensions, agrees with Filter on the cluster without that pod; and
    the cycle state is left as it was by those dry runs. A QueueSort "less" must be a strict order.
    """
    failures = _Failures()
    name = cls.__dict__.get("name")
    if not isinstance(name, str) or not name:
        failures.add("name", "the class sets no `name` (the framework name profiles use)")
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        failures.add("docstring", "the class has no docstring of its own (its first paragraph describes it "
                                  "in `ruleset schema`)")
    for problem in args_problems(cls, args):
        failures.add("args", problem)
    hooks = class_hooks(cls)
    if hooks.problem is not None:
        failures.add("hooks", " ".join(hooks.problem.split()))
    elif not implemented_points(cls):
        failures.add("hooks", "implements no extension point")
    if not failures.found:
        _check_behaviour(cls, args, failures, kubernetes_version)
    if failures.found:
        listed = "\n".join(f"  - {entry}" for entry in failures.found)
        raise AssertionError(f"plugin {getattr(cls, 'name', cls.__qualname__)!r} fails "
                             f"{len(failures.found)} conformance check(s):\n{listed}")


def _check_behaviour(cls: type[Plugin], args: Mapping[str, Any] | None, failures: _Failures,
                     kubernetes_version: str | None = None) -> None:
    _, registry = resolve_plugin(cls)
    for i, subject in enumerate(sample_pods()):
        state = cluster(sample_nodes(), sample_running_pods())
        try:
            framework = plugin_framework(cls, registry, state.snapshot, args, kubernetes_version)
        except Exception as exc:
            failures.add("framework", f"building a framework with the plugin failed: {_one_line(exc)}")
            return
        cycle = _Cycle(framework, cls, state.snapshot, subject, failures)
        cycle.check()
        if i == 0 and "queueSort" in framework.points.get(cls.name, ()):
            cycle.queue_sort()


@dataclass
class _Outcome:
    """One cycle's answers: per node (in ``nodes`` order) the Filter verdict, and the scores."""

    state: CycleState
    verdicts: list[Verdict] | None = None
    feasible: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    raw: list[int] | None = None
    normalized: list[int] | None = None


@dataclass
class _Cycle:
    framework: Framework
    cls: type[Plugin]
    snapshot: Snapshot
    pod: Pod
    failures: _Failures

    def fail(self, check: str, message: str) -> None:
        self.failures.add(check, f"pod {self.pod.key}: {message}")

    @property
    def plugin(self) -> Plugin:
        return self.framework.plugins[self.cls.name]

    def check(self) -> None:
        before = _fingerprint(self.snapshot)
        first = self.run(np.arange(self.snapshot.num_nodes))
        if first is None:
            return
        second = self.run(np.arange(self.snapshot.num_nodes))
        if second is not None:
            for what, a, b in (("Filter verdicts", first.verdicts, second.verdicts),
                               ("raw scores", first.raw, second.raw),
                               ("normalized scores", first.normalized, second.normalized)):
                if a != b:
                    self.fail("deterministic", f"the same cycle run twice gave different {what}: "
                              f"{a} then {b}")
                    break
        self.run(np.zeros(0, dtype=np.intp), empty=True)
        changed = _changed(before, _fingerprint(self.snapshot))
        if changed:
            self.fail("snapshot", f"the snapshot changed during a cycle: {', '.join(changed)}")
            return
        self.per_node(first)
        if first.verdicts is not None:
            self.dry_runs(first)
            changed = _changed(before, _fingerprint(self.snapshot))
            if changed:
                self.fail("snapshot", f"the snapshot is not as it was after preemption dry runs: "
                          f"{', '.join(changed)}")

    # ------------------------------------------------------------------ one cycle
    def run(self, indices: np.ndarray, empty: bool = False) -> _Outcome | None:
        """PreFilter, Filter on ``indices``, PreScore and Score on those that pass; None when the
        cycle could not go on (a failure is recorded)."""
        what = " on an empty node set" if empty else ""
        state = CycleState()
        outcome = _Outcome(state)
        status = self.framework.run_pre_filter(state, self.pod, self.snapshot)
        if status.code == Code.ERROR:
            self.fail("prefilter", status.message())
            return None
        if not status.is_success:
            return outcome
        nodes = NodeSet(self.snapshot, indices)
        verdicts = self.filter(state, nodes, what)
        if verdicts is _BROKEN:
            return None
        outcome.verdicts = verdicts
        if verdicts is not None:
            indices = indices[[code == Code.SUCCESS for code, _ in verdicts]]
        outcome.feasible = indices
        feasible = NodeSet(self.snapshot, indices)
        status = self.framework.run_pre_score(state, self.pod, feasible)
        if not status.is_success:
            self.fail("prescore", status.message() + what)
            return None
        # Score never sees an empty node set: the cycle stops when nothing is feasible (upstream's
        # PreScore plugins return early then, writing no state for Score to read).
        if self.framework.has("ruleset_score") and not empty:
            table, status = self.framework.run_score(state, self.pod, feasible)
            if table is None:
                self.fail("score", status.message() + what)
                return None
            if table.plugins:  # the plugin's PreScore may have skipped it (from Kubernetes 1.27)
                outcome.raw = table.raw[0].tolist()
                outcome.normalized = table.normalized[0].tolist()
        return outcome

    def filter(self, state: CycleState, nodes: NodeSet, what: str = "") -> Any:
        """The plugin's Filter verdicts on ``nodes`` (None without a Filter hook, or when its
        PreFilter returned Skip: the framework does not run it then), or _BROKEN."""
        steps = self.framework.tables["ruleset_filter"]
        if not steps or steps[0].plugin in (state.get(SKIP_FILTER_PLUGINS) or ()):
            return None
        try:
            result = steps[0](state=state, pod=self.pod, nodes=nodes)
        except Exception as exc:
            self.fail("filter", f"Filter raised {_one_line(exc)}{what}")
            return _BROKEN
        n = len(nodes)
        if result is None:
            return [(int(Code.SUCCESS), ())] * n
        problem = _filter_result_problem(result, n)
        if problem is not None:
            self.fail("filter", problem + what)
            return _BROKEN
        return [_verdict(result.status(i)) for i in range(n)]

    # ------------------------------------------------------------ per-node paths
    def per_node(self, first: _Outcome) -> None:
        filter_node = _own(self.cls, "filter_node", PerNodeFilter)
        score_node = _own(self.cls, "score_node", PerNodeScore)
        if filter_node is None and score_node is None:
            return
        # A fresh cycle: per-node hooks read what PreFilter/PreScore wrote, as the batch ones did.
        outcome = self.run(np.arange(self.snapshot.num_nodes))
        if outcome is None:
            return
        infos = [NodeInfo(self.snapshot, i) for i in range(self.snapshot.num_nodes)]
        if filter_node is not None and outcome.verdicts is not None:
            try:
                plugin, state = self.plugin, outcome.state
                single = [_shown(_verdict(_as_status(filter_node(plugin, state, self.pod, info))))
                          for info in infos]
            except Exception as exc:
                self.fail("per-node filter", f"filter_node raised {_one_line(exc)}")
            else:
                self.compare("per-node filter", "filter_node", single, "Filter",
                             [_shown(v) for v in outcome.verdicts])
        if score_node is not None and outcome.raw is not None:
            try:
                scores = [int(score_node(self.plugin, outcome.state, self.pod, infos[int(i)]))
                          for i in outcome.feasible]
            except Exception as exc:
                self.fail("per-node score", f"score_node raised {_one_line(exc)}")
            else:
                self.compare("per-node score", "score_node", scores, "Score", outcome.raw,
                             [self.snapshot.node_names[int(i)] for i in outcome.feasible])

    def compare(self, check: str, one: str, got: list[Any], other: str, want: list[Any],
                names: list[str] | None = None) -> None:
        names = names if names is not None else self.snapshot.node_names
        differ = [f"{name}: {one} {a}, {other} {b}" for name, a, b in zip(names, got, want, strict=True)
                  if a != b]
        if differ:
            self.fail(check, "; ".join(differ))

    # ------------------------------------------------------------- dry runs
    def dry_runs(self, first: _Outcome) -> None:
        """Filter node by node on cloned states, as DefaultPreemption's dry runs call it."""
        framework, snapshot, pod = self.framework, self.snapshot, self.pod
        state, verdicts = first.state, first.verdicts
        assert verdicts is not None
        for index in range(snapshot.num_nodes):
            name = snapshot.node_names[index]
            got = _verdict(framework.run_filters_on_node(state.clone(), pod, index, snapshot,
                                                         with_nominated=False))
            if got != verdicts[index]:
                self.fail("dry run", f"node {name}: Filter on a cloned state gives {_shown(got)}, "
                          f"the batch Filter {_shown(verdicts[index])}")
            for victim in snapshot.pods_on(index):
                if not self.without(state, index, victim, verdicts[index]):
                    return  # the original state is spoilt: what follows would only repeat it
        again = self.filter(state, NodeSet(snapshot, np.arange(snapshot.num_nodes)))
        if again is not _BROKEN and again != verdicts:
            self.fail("dry run", "the cycle state changed during dry runs on its clones: Filter now gives "
                      f"{[_shown(v) for v in again]}, before {[_shown(v) for v in verdicts]} (a value a "
                      "PreFilter extension changes needs a clone() method)")

    def without(self, state: CycleState, index: int, victim: Pod, before: Verdict) -> bool:
        """Remove ``victim`` in a dry run: Filter on the clone must see the node as a cluster without
        it would, and the original state must not notice; put back, the node is as before."""
        framework, snapshot, pod = self.framework, self.snapshot, self.pod
        where = f"node {snapshot.node_names[index]} without {victim.key}"
        every = NodeSet(snapshot, np.arange(snapshot.num_nodes))
        with snapshot.what_if():
            trial = state.clone()
            snapshot.remove_pod(victim)
            status = framework.run_pre_filter_remove_pod(trial, pod, victim, index, snapshot)
            if not status.is_success:
                self.fail("dry run", f"{where}: {status.message()}")
                return True
            got = _verdict(framework.run_filters_on_node(trial, pod, index, snapshot, with_nominated=False))
            fresh = CycleState()
            if framework.run_pre_filter(fresh, pod, snapshot).is_success:
                want = self.filter(fresh, NodeSet(snapshot, np.array([index], dtype=np.intp)))
                if want is not _BROKEN and want is not None and got != want[0]:
                    self.fail("dry run", f"{where}: Filter after the RemovePod extension gives "
                              f"{_shown(got)}, on a cluster without that pod {_shown(want[0])}")
        # The victim stays removed in the abandoned clone, as in a dry run that does not reprieve it.
        original = self.filter(state, every)
        if original is not _BROKEN and original is not None and original[index] != before:
            self.fail("dry run", f"{where}: the RemovePod extension changed the original cycle state, not "
                      f"only its clone (Filter now gives {_shown(original[index])}, before {_shown(before)}; "
                      "a value a PreFilter extension changes needs a clone() method)")
            return False
        with snapshot.what_if():
            trial = state.clone()
            snapshot.remove_pod(victim)
            status = framework.run_pre_filter_remove_pod(trial, pod, victim, index, snapshot)
            snapshot.add_pod(victim, index)
            if status.is_success:
                status = framework.run_pre_filter_add_pod(trial, pod, victim, index, snapshot)
            if not status.is_success:
                self.fail("dry run", f"{where} and back: {status.message()}")
                return True
            got = _verdict(framework.run_filters_on_node(trial, pod, index, snapshot, with_nominated=False))
            if got != before:
                self.fail("dry run", f"{where} and back again: Filter after RemovePod and AddPod gives "
                          f"{_shown(got)}, before {_shown(before)}")
        return True

    # ------------------------------------------------------------ queue sort
    def queue_sort(self) -> None:
        infos = [QueuedPodInfo(p, float(i), i) for i, p in enumerate(sample_pods())]
        less = self.framework.tables["ruleset_queue_sort"][0]
        for a in infos:
            for b in infos:
                try:
                    ab, ba = less(a=a, b=b), less(a=b, b=a)
                except Exception as exc:
                    self.failures.add("queue sort", f"raised {_one_line(exc)}")
                    return
                if not isinstance(ab, (bool, np.bool_)):
                    self.failures.add("queue sort", f"returned {ab!r}, not a bool")
                    return
                if ab and ba:
                    what = "itself" if a is b else f"{b.pod.key} and the other way round"
                    self.failures.add("queue sort", f"{a.pod.key} sorts before {what} (\"less\" must be a "
                                                    "strict order)")
                    return


_BROKEN: Any = object()


def _filter_result_problem(result: Any, n: int) -> str | None:
    """What is wrong with a Filter hook's return value for ``n`` nodes, or None."""
    if not isinstance(result, FilterResult):
        return f"Filter returned {type(result).__name__}, not a FilterResult or None"
    codes = result.codes
    if codes.shape != (n,) or codes.dtype.kind not in "iu":
        return f"Filter returned codes of shape {codes.shape} and dtype {codes.dtype} for {n} nodes"
    bad = sorted({int(c) for c in codes.tolist()} - FILTER_CODES)
    if bad:
        return (f"Filter returned codes {bad}; a node passes (0), is Unschedulable (2) or "
                f"UnschedulableAndUnresolvable (3)")
    for i in np.flatnonzero(codes != int(Code.SUCCESS)).tolist():
        try:
            reasons = result.status(i).reasons
        except Exception as exc:
            return f"a FilterResult's reasons cannot be read: {_one_line(exc)}"
        if type(reasons) is not tuple or not reasons or not all(isinstance(r, str) and r for r in reasons):
            return f"Filter rejected a node with reasons {reasons!r}; give each rejection one or more strings"
    return None


def _verdict(status: Status) -> Verdict:
    return (int(status.code), tuple(status.reasons))


def _shown(verdict: Verdict) -> str:
    code, reasons = verdict
    return Code(code).label + (f" {list(reasons)}" if reasons else "")


def _as_status(value: Any) -> Status:
    if value is None:
        return Status()
    if not isinstance(value, Status):
        raise TypeError(f"returned {value!r}, not a Status or None")
    return value


def _own(cls: type[Plugin], method: str, base: type[Plugin]) -> Callable[..., Any] | None:
    """``cls``'s ``method`` when the class implements it (not the base class's placeholder)."""
    found = getattr(cls, method, None)
    if found is None or found is getattr(base, method):
        return None
    return found


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _fingerprint(snapshot: Snapshot) -> dict[str, Any]:
    """What plugins must leave alone: every column of the snapshot, each node's pods, the
    objects' labels (caches in ``snapshot.derived`` are theirs to fill)."""
    labels = snapshot.node_labels
    columns: dict[str, Any] = {
        "allowed_pods": snapshot.allowed_pods, "non_zero_cpu": snapshot.non_zero_cpu,
        "non_zero_memory": snapshot.non_zero_memory, "pod_count": snapshot.pod_count,
        "volume_count": snapshot.volume_count, "zone_codes": snapshot.zone_codes,
        "evaluation_order": snapshot.evaluation_order,
    }
    for resource in snapshot.resource_names():
        columns[f"allocatable({resource})"] = snapshot.allocatable(resource)
        columns[f"requested({resource})"] = snapshot.requested(resource)
    for key in sorted(labels.keys()):
        columns[f"node label column {key}"] = labels.column(key)
    out: dict[str, Any] = {name: np.array(value, copy=True) for name, value in columns.items()}
    out["pods on each node"] = [[id(p) for p in snapshot.pods_on(i)] for i in range(snapshot.num_nodes)]
    out["used ports"] = repr(snapshot.used_ports)
    out["node objects"] = [(n.name, dict(n.labels), n.taints, dict(n.allocatable), n.unschedulable)
                           for n in snapshot.nodes]
    out["pod labels"] = [dict(p.labels) for p in _all_pods(snapshot)]
    return out


def _all_pods(snapshot: Snapshot) -> Iterator[Pod]:
    for i in range(snapshot.num_nodes):
        yield from snapshot.pods_on(i)


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    changed = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        same = np.array_equal(a, b) if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) else a == b
        if not same:
            changed.append(key)
    return changed
