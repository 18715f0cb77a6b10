"""Build a profile's framework and run its extension points.

:class:`Framework` takes the plugins :func:`~ruleset.framework.validation.check_plugins`
found valid (with their parsed args), instantiates each with the framework's
:class:`~ruleset.framework.plugin.Handle`, and builds, once, an ordered call table per
hook from the extension-point table (:mod:`ruleset.framework.points`) and each class's
checked hook methods (:mod:`ruleset.framework.hooks`). The scheduler calls those tables
directly: no pluggy dispatch on the hot path, and the profile's order, weights and points
are respected exactly.

A plugin that raises, or returns what its hook cannot return, becomes an Error status
naming the plugin; it fails that pod's cycle, never the run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ruleset.errors import Problem, RulesetError, format_path
from ruleset.framework.hooks import class_hooks
from ruleset.framework.plugin import Handle, Plugin, PluginClasses
from ruleset.framework.points import HOOKS, MAX_NODE_SCORE, MIN_NODE_SCORE, POINTS
from ruleset.framework.results import FilterResult, NodeStatuses, PostFilterResult
from ruleset.framework.status import SUCCESS, Code, Status
from ruleset.framework.status import as_status as _as_status
from ruleset.framework.validation import Finding, PluginCheck, check_plugins
from ruleset.snapshot import NodeSet

if TYPE_CHECKING:
    from ruleset.api.pod import Pod
    from ruleset.config import PluginConfig, Profile
    from ruleset.framework.cycle_state import CycleState
    from ruleset.framework.types import QueuedPodInfo
    from ruleset.snapshot import Snapshot

# Codes as plain ints: numpy compares an array with an IntEnum member several times slower.
_SUCCESS = int(Code.SUCCESS)
_UNSCHEDULABLE = int(Code.UNSCHEDULABLE)
_UNRESOLVABLE = int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


def _describe(exc: BaseException) -> str:
    """An exception as one line: ``Type: message``."""
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


@dataclass(slots=True)
class Step:
    """One plugin's implementation of one hook, ready to call."""

    plugin: str
    function: Callable[..., Any]
    argnames: tuple[str, ...]
    weight: int = 1

    def __call__(self, **kwargs: Any) -> Any:
        return self.function(*[kwargs[name] for name in self.argnames])


@dataclass
class ScoreTable:
    """Per-plugin raw and normalized scores of the scored nodes, and the weighted totals."""

    plugins: list[str]
    weights: list[int]
    raw: list[np.ndarray]
    normalized: list[np.ndarray]
    total: np.ndarray


class FrameworkError(RulesetError):
    """A profile that cannot be built into a framework."""


def locate_at_origin(finding: Finding) -> Problem:
    """A finding located where its plugin's setting was written, without reading any file:
    the origin of the setting (a ``[[rules]]`` table, the ``args`` table) or of the plugin."""
    config = finding.config
    if config is None:
        return Problem(finding.message, code=finding.code, severity=finding.severity)
    written = finding.written_at()
    if written is None:
        return config.origin.problem(finding.message, format_path(("plugins", config.name, *finding.key)),
                                     finding.code, finding.severity)
    prefix, source = written
    path = format_path((*source.path, *finding.key[len(prefix):]))
    return source.origin.problem(finding.message, path, finding.code, finding.severity)


class Framework:
    """A profile's plugins, instantiated and arranged into ordered call tables.

    ``handle`` is what the plugins reach (build it with the snapshot they run on);
    ``checked`` is the profile's :func:`~ruleset.framework.validation.check_plugins`
    outcome when the caller has it already (the profile loader does), so that args are
    parsed once.
    """

    def __init__(self, profile: Profile, registry: PluginClasses, handle: Handle | None = None, *,
                 checked: PluginCheck | None = None):
        self.profile = profile
        self.registry = registry
        self.handle = handle if handle is not None else Handle()
        self.handle.framework = self
        check = checked if checked is not None else check_plugins(profile, registry)
        if check.errors:
            raise FrameworkError([locate_at_origin(f) for f in check.errors])
        self.plugins: dict[str, Plugin] = {}
        self.configs: dict[str, PluginConfig] = {}
        self.points: dict[str, list[str]] = {}
        self.tables: dict[str, list[Step]] = {hook: [] for hook in HOOKS}
        problems: list[Problem] = []
        for planned in check.plugins:
            config = planned.config
            try:
                instance = planned.cls(planned.args, self.handle)
            except Exception as exc:  # a third-party constructor must not take the run down
                message = f"initializing plugin {config.name!r}: {_describe(exc)}"
                problems.append(config.origin.problem(message, f"plugins.{config.name}",
                                                      "plugin-init-failed"))
                continue
            self.plugins[config.name] = instance
            self.configs[config.name] = config
            self.points[config.name] = list(planned.points)
            argnames = class_hooks(planned.cls).argnames
            for point in planned.points:
                for hook in POINTS[point].hooks:
                    if hook in argnames:
                        self.tables[hook].append(Step(config.label, getattr(instance, hook), argnames[hook],
                                                      config.weight))
        if problems:
            raise FrameworkError(problems)
        self._normalizers = {s.plugin: s for s in self.tables["ruleset_normalize_score"]}

    # ------------------------------------------------------------- queries
    def has(self, hook: str) -> bool:
        return bool(self.tables[hook])

    @property
    def score_plugins(self) -> list[str]:
        return [s.plugin for s in self.tables["ruleset_score"]]

    def plugin_reported_as(self, label: str) -> Plugin:
        """The plugin instance whose results are reported under ``label`` (the name the profile wrote)."""
        for name, config in self.configs.items():
            if config.label == label:
                return self.plugins[name]
        raise KeyError(label)

    # ------------------------------------------------------------ helpers
    def _each(self, hook: str, failure: str, decide: Callable[[Step, Any, dict[str, Any]], Any],
              kwargs: dict[str, Any], done: Any = SUCCESS, returns: type = Status) -> Any:
        """Run the plugins of ``hook`` in order until ``decide`` returns something other than None.

        ``decide(step, returned, kwargs)`` turns what a plugin returned (None or a
        ``returns``) into the outcome (None: go on to the next plugin); ``done`` is the
        outcome when every plugin went on. A plugin that raises, or returns anything else,
        ends the run with an Error naming it, worded by ``failure`` (a format string over
        ``plugin`` and ``error``).
        """
        for step in self.tables[hook]:
            try:
                returned = step.function(*[kwargs[name] for name in step.argnames])
            except Exception as exc:
                return _failed(step, failure.format(plugin=step.plugin, error=_describe(exc)))
            if returned is not None and not isinstance(returned, returns):
                error = f"returned {returned!r:.80}, not a {returns.__name__}"
                return _failed(step, failure.format(plugin=step.plugin, error=error))
            outcome = decide(step, returned, kwargs)
            if outcome is not None:
                return outcome
        return done

    # ------------------------------------------------------------ running
    def queue_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return bool(self.tables["ruleset_queue_sort"][0](a=a, b=b))

    def run_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status:
        return self._each("ruleset_pre_filter", "running PreFilter plugin {plugin!r}: {error}",
                          _pre_filter_outcome, {"state": state, "pod": pod, "snapshot": snapshot})

    def run_pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_to_add: Pod, node: int,
                               snapshot: Snapshot) -> Status:
        """Every PreFilter AddPod extension, after ``pod_to_add`` joined node ``node`` of ``snapshot``."""
        return self._run_extension("ruleset_pre_filter_add_pod", {
            "state": state, "pod": pod, "pod_to_add": pod_to_add, "node": node, "snapshot": snapshot})

    def run_pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: Pod, node: int,
                                  snapshot: Snapshot) -> Status:
        """Every PreFilter RemovePod extension, after ``pod_to_remove`` left node ``node`` of ``snapshot``."""
        return self._run_extension("ruleset_pre_filter_remove_pod", {
            "state": state, "pod": pod, "pod_to_remove": pod_to_remove, "node": node, "snapshot": snapshot})

    def _run_extension(self, hook: str, kwargs: dict[str, Any]) -> Status:
        # Not through _each: preemption's dry runs call this once per victim per candidate node.
        for step in self.tables[hook]:
            try:
                returned = step.function(*[kwargs[name] for name in step.argnames])
            except Exception as exc:
                return _failed(step, f"running {hook} of plugin {step.plugin!r}: {_describe(exc)}")
            if returned is None:
                continue
            if not isinstance(returned, Status):
                return _failed(step, f"running {hook} of plugin {step.plugin!r}: returned {returned!r:.80}, "
                                     f"not a Status")
            if not returned.is_success:
                return _failed(step, f"running {hook} of plugin {step.plugin!r}: {returned.message()}")
        return SUCCESS

    def run_filter(self, state: CycleState, pod: Pod, nodes: NodeSet,
                   statuses: NodeStatuses) -> tuple[np.ndarray, Status]:
        """Run every Filter plugin over ``nodes``; returns the passing node indices (order kept).

        Each plugin sees only the nodes every earlier plugin passed; a rejected node's status
        names the plugin that rejected it. An Error from any plugin fails the cycle.
        """
        remaining = nodes.indices
        snapshot = nodes.snapshot
        statuses.evaluated[remaining] = True
        for step in self.tables["ruleset_filter"]:
            if not len(remaining):
                break
            try:
                result = step(state=state, pod=pod, nodes=NodeSet(snapshot, remaining))
            except Exception as exc:
                return remaining[:0], _filter_error(step, pod, _describe(exc))
            if result is None:
                continue
            if not isinstance(result, FilterResult) or len(result) != len(remaining):
                return remaining[:0], _filter_error(
                    step, pod, f"expected a FilterResult for {len(remaining)} nodes, got {result!r:.80}")
            codes = result.codes
            fail = codes != _SUCCESS
            if not np.count_nonzero(fail):
                continue
            bad = fail & (codes != _UNSCHEDULABLE) & (codes != _UNRESOLVABLE)
            if np.count_nonzero(bad):
                first = int(np.flatnonzero(bad)[0])
                return remaining[:0], _filter_error(step, pod, result.status(first).message())
            statuses.record(remaining, result, step.plugin, fail)
            remaining = remaining[~fail]
        return remaining, SUCCESS

    def nominated_nodes(self, pod: Pod, snapshot: Snapshot) -> set[int]:
        """Indices of nodes holding nominated pods that ``pod`` must leave room for."""
        return {snapshot.node_index[name] for name in self.handle.nominator.nodes_for(pod)
                if name in snapshot.node_index}

    def run_filters_on_node(self, state: CycleState, pod: Pod, index: int, snapshot: Snapshot,
                            with_nominated: bool = True) -> Status:
        """``PodPassesFiltersOnNode``: every Filter plugin on one node.

        With nominated pods of at least this pod's priority on the node, the filters run
        twice: with those pods added (PreFilter AddPod extensions update a cloned state),
        then, if that passed, without them. The node fits only if both passes do.
        """
        nominated = (self.handle.nominator.pods_for(pod, snapshot.node_names[index])
                     if with_nominated else [])
        if nominated:
            with snapshot.what_if():
                state_with = state.clone()
                for other in nominated:
                    snapshot.add_pod(other, index)
                    status = self.run_pre_filter_add_pod(state_with, pod, other, index, snapshot)
                    if not status.is_success:
                        return status
                status = self._filter_one(state_with, pod, index, snapshot)
            if not status.is_success:
                return status
        return self._filter_one(state, pod, index, snapshot)

    def _filter_one(self, state: CycleState, pod: Pod, index: int, snapshot: Snapshot) -> Status:
        nodes = NodeSet(snapshot, np.array([index], dtype=np.intp))
        args = {"state": state, "pod": pod, "nodes": nodes}
        for step in self.tables["ruleset_filter"]:
            try:
                result = step.function(*[args[name] for name in step.argnames])
            except Exception as exc:
                return _filter_error(step, pod, _describe(exc))
            # Compare as plain ints: a numpy scalar against an IntEnum member is slow (this runs
            # once per plugin for every node of every preemption dry run).
            if result is None or int(result.codes[0]) == _SUCCESS:
                continue
            status = result.status(0).with_plugin(step.plugin)
            if not status.is_unschedulable:
                return _filter_error(step, pod, status.message())
            return status
        return SUCCESS

    def worth_retrying(self, pod: Pod, placed: Pod) -> bool:
        """Whether ``placed`` landing on a node may let the parked ``pod`` fit: a queueing hint
        says so. A hint that fails counts as yes, as upstream requeues on a hint's error."""
        outcome = self._each("ruleset_queueing_hint", "{plugin}: {error}", _hint_outcome,
                             {"pod": pod, "placed": placed}, done=False, returns=object)
        return outcome is not False

    def run_post_filter(self, state: CycleState, pod: Pod, statuses: NodeStatuses) -> PostFilterResult | None:
        """Run PostFilter plugins until one succeeds (or errs); returns the last result (or None)."""
        kwargs: dict[str, Any] = {"state": state, "pod": pod, "statuses": statuses, "last": None}
        outcome = self._each("ruleset_post_filter", "running PostFilter plugin {plugin!r}: {error}",
                             _post_filter_outcome, kwargs, done=None, returns=PostFilterResult)
        if isinstance(outcome, Status):  # the plugin raised, or returned something else
            return PostFilterResult(status=outcome)
        result: PostFilterResult | None = outcome if outcome is not None else kwargs["last"]
        return result

    def run_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> Status:
        return self._each("ruleset_pre_score", "running PreScore plugin {plugin!r}: {error}",
                          _pre_score_outcome, {"state": state, "pod": pod, "nodes": nodes})

    def run_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> tuple[ScoreTable | None, Status]:
        """Score, normalize and weight; scores are checked to lie in [0, 100] after normalizing."""
        n = len(nodes)
        table = ScoreTable([], [], [], [], np.zeros(n, dtype=np.int64))
        for step in self.tables["ruleset_score"]:
            try:
                raw = _as_scores(step(state=state, pod=pod, nodes=nodes), n)
                normalized = raw.copy()
                normalizer = self._normalizers.get(step.plugin)
                if normalizer is not None:
                    result = normalizer(state=state, pod=pod, nodes=nodes, scores=normalized)
                    if result is not None:
                        normalized = _as_scores(result, n)
            except Exception as exc:
                return None, _failed(step, f"plugin {step.plugin!r} failed with: {_describe(exc)}")
            out_of_range = (normalized < MIN_NODE_SCORE) | (normalized > MAX_NODE_SCORE)
            if out_of_range.any():
                bad = int(normalized[np.flatnonzero(out_of_range)[0]])
                return None, Status(Code.ERROR, (
                    f"plugin {step.plugin!r} returns an invalid score {bad}, it should in the range of "
                    f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",), step.plugin)
            table.plugins.append(step.plugin)
            table.weights.append(step.weight)
            table.raw.append(raw)
            table.normalized.append(normalized)
            table.total += normalized * step.weight
        return table, SUCCESS

    def _run_node_hooks(self, hook: str, title: str, state: CycleState, pod: Pod, node: str) -> Status:
        return self._each(hook, f"running {title} plugin {{plugin!r}}: {{error}}", _node_hook_outcome,
                          {"state": state, "pod": pod, "node": node})

    def run_reserve(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._run_node_hooks("ruleset_reserve", "Reserve", state, pod, node)

    def run_unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        for step in reversed(self.tables["ruleset_unreserve"]):
            with contextlib.suppress(Exception):  # Unreserve must not fail; upstream ignores its outcome
                step(state=state, pod=pod, node=node)

    def run_permit(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._each("ruleset_permit", "running Permit plugin {plugin!r}: {error}", _permit_outcome,
                          {"state": state, "pod": pod, "node": node})

    def run_pre_bind(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._run_node_hooks("ruleset_pre_bind", "PreBind", state, pod, node)

    def run_bind(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._each("ruleset_bind", "running Bind plugin {plugin!r}: {error}", _bind_outcome,
                          {"state": state, "pod": pod, "node": node}, done=Status(Code.SKIP))

    def run_post_bind(self, state: CycleState, pod: Pod, node: str) -> None:
        for step in self.tables["ruleset_post_bind"]:
            with contextlib.suppress(Exception):  # informational hook; a failure changes nothing
                step(state=state, pod=pod, node=node)


def _failed(step: Step, message: str) -> Status:
    """An Error status from ``step``'s plugin."""
    return Status(Code.ERROR, (message,), step.plugin)


# What each extension point makes of one plugin's answer (see Framework._each): None goes on
# to the next plugin, anything else is the outcome of the point.

def _pre_filter_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    status = _as_status(returned)
    if status.is_success:
        return None
    if status.is_unschedulable:
        return status.with_plugin(step.plugin)
    return _failed(step, f"running PreFilter plugin {step.plugin!r}: {status.message()}")


def _pre_score_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    status = _as_status(returned)
    if status.is_success:
        return None
    return _failed(step, f"running PreScore plugin {step.plugin!r}: {status.message()}")


def _node_hook_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    """Reserve and PreBind: the first non-success is the outcome."""
    status = _as_status(returned)
    return None if status.is_success else status.with_plugin(step.plugin)


def _permit_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    status = _as_status(returned)
    if status.is_success:
        return None
    pod = kwargs["pod"]
    if status.is_unschedulable:
        return Status(status.code, (f"rejected pod {pod.name!r} by permit plugin {step.plugin!r}: "
                                    f"{status.message()}",), step.plugin)
    if status.code == Code.WAIT:
        # Nothing else acts in a snapshot run, so nobody could ever allow the pod.
        return Status(Code.UNSCHEDULABLE, (f"pod {pod.name!r} rejected while waiting on permit: "
                                           f"plugin {step.plugin!r} asked to wait",), step.plugin)
    return _failed(step, f"running Permit plugin {step.plugin!r}: {status.message()}")


def _bind_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    """Binders run until one does not Skip."""
    status = _as_status(returned)
    return None if status.code == Code.SKIP else status.with_plugin(step.plugin)


def _post_filter_outcome(step: Step, result: PostFilterResult | None,
                         kwargs: dict[str, Any]) -> PostFilterResult | None:
    """Until one succeeds, or errs; the last result is kept in ``kwargs["last"]``."""
    if result is None:
        return None
    kwargs["last"] = result
    return result if result.status.is_success or result.status.code == Code.ERROR else None


def _hint_outcome(step: Step, returned: object, kwargs: dict[str, Any]) -> bool | None:
    return True if returned else None


def _filter_error(step: Step, pod: Pod, detail: str) -> Status:
    """The Error a Filter plugin's failure aborts the cycle with (upstream's wording)."""
    return _failed(step, f"running {step.plugin!r} filter plugin for pod {pod.name!r}: {detail}")


def _as_scores(value: Any, n: int) -> np.ndarray:
    array = np.asarray(value)
    if array.shape != (n,):
        raise ValueError(f"expected {n} scores, got an array of shape {array.shape}")
    if array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "b":
        return array.astype(np.int64)
    if array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(array == np.trunc(array)):
        return array.astype(np.int64)
    raise ValueError(f"scores must be integers, got {array.dtype}")
