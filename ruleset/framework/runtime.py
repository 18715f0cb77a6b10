"""Build a profile's framework and run its extension points.

:class:`Framework` instantiates every plugin a profile enables (with validated args),
registers each instance with a per-profile pluggy manager under its plugin name (so pluggy
checks every hook method against its spec), and then builds, once, an ordered call table
per extension point. The scheduler calls those tables directly: no pluggy dispatch on the
hot path, and the profile's order, weights and points are respected exactly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pluggy

from ruleset import hookspecs
from ruleset.errors import Problem, RulesetError, format_path
from ruleset.framework.plugin import MAX_NODE_SCORE, MIN_NODE_SCORE, Handle, Plugin
from ruleset.framework.results import FilterResult, NodeStatuses, PostFilterResult
from ruleset.framework.status import SUCCESS, Code, Status, as_status
from ruleset.snapshot import NodeSet

if TYPE_CHECKING:
    from ruleset.api.pod import Pod
    from ruleset.framework.cycle_state import CycleState
    from ruleset.pluginmanager import PluginRegistry
    from ruleset.profile.model import PluginConfig, Profile
    from ruleset.queue import QueuedPodInfo
    from ruleset.snapshot import Snapshot

MAX_TOTAL_SCORE = 2**63 - 1

#: Extension points in cycle order, with the hooks that belong to each.
POINT_HOOKS: dict[str, tuple[str, ...]] = {
    "queueSort": ("ruleset_queue_sort",),
    "preFilter": ("ruleset_pre_filter", "ruleset_pre_filter_add_pod", "ruleset_pre_filter_remove_pod"),
    "filter": ("ruleset_filter",),
    "postFilter": ("ruleset_post_filter",),
    "preScore": ("ruleset_pre_score",),
    "score": ("ruleset_score", "ruleset_normalize_score"),
    "reserve": ("ruleset_reserve", "ruleset_unreserve"),
    "permit": ("ruleset_permit",),
    "preBind": ("ruleset_pre_bind",),
    "bind": ("ruleset_bind",),
    "postBind": ("ruleset_post_bind",),
}
#: A point listed in ``points`` brings these along: PreFilter/PreScore only serve Filter/Score.
IMPLIED_POINTS = {"filter": ("preFilter",), "score": ("preScore",)}
#: Upstream's names for points in error messages ("plugin %q does not extend %s plugin").
POINT_TITLES = {
    "queueSort": "QueueSort", "preFilter": "PreFilter", "filter": "Filter", "postFilter": "PostFilter",
    "preScore": "PreScore", "score": "Score", "reserve": "Reserve", "permit": "Permit", "preBind": "PreBind",
    "bind": "Bind", "postBind": "PostBind",
}
DEFAULT_QUEUE_SORT = "PrioritySort"
DEFAULT_BINDER = "DefaultBinder"


# Codes as plain ints: numpy compares an array with an IntEnum member several times slower.
_SUCCESS = int(Code.SUCCESS)
_UNSCHEDULABLE = int(Code.UNSCHEDULABLE)
_UNRESOLVABLE = int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def implemented_points(cls: type[Plugin]) -> list[str]:
    """Extension points a plugin class implements (those whose main hook it defines)."""
    points = []
    for point, hooks in POINT_HOOKS.items():
        method = getattr(cls, hooks[0], None)
        if method is not None and getattr(method, f"{hookspecs.PROJECT}_impl", None) is not None:
            points.append(point)
    return points


def effective_points(cls: type[Plugin], points: tuple[str, ...] | None) -> list[str]:
    """The extension points a plugin runs at: all it implements, or the named ones it
    implements plus the points they bring along (:data:`IMPLIED_POINTS`), in cycle order."""
    available = implemented_points(cls)
    if points is None:
        return available
    wanted = set()
    for point in points:
        if point in available:
            wanted.add(point)
            wanted.update(p for p in IMPLIED_POINTS.get(point, ()) if p in available)
    return [p for p in POINT_HOOKS if p in wanted]


def framework_configs(profile: Profile, registry: PluginRegistry) -> list[PluginConfig]:
    """Every plugin a profile's framework runs, in order: the profile's own, the Rules plugin
    when the profile has rules, then PrioritySort / DefaultBinder for a point no plugin covers.

    kube-scheduler merges every profile with its default plugin set, so a profile that
    does not mention QueueSort or Bind still gets PrioritySort and DefaultBinder; only an
    explicit ``enabled = false`` removes them.
    """
    from ruleset.profile.model import RULES_PLUGIN, PluginConfig

    configs = list(profile.plugins)
    if profile.adds_rules_plugin:
        origin = profile.rules[0].origin
        configs.append(PluginConfig(name=RULES_PLUGIN, origin=origin, args_origin=origin))

    def covered(point: str) -> bool:
        return any((cls := registry.get(c.name)) is not None and point in effective_points(cls, c.points)
                   for c in configs)

    for point, default in (("queueSort", DEFAULT_QUEUE_SORT), ("bind", DEFAULT_BINDER)):
        if not covered(point) and default not in profile.disabled and registry.get(default) is not None:
            configs.append(PluginConfig(name=default))
    return configs


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


def check_plugin_args(cls: type[Plugin], raw: Mapping[str, Any]) -> tuple[Any, list[tuple[tuple, str]]]:
    """Parse and semantically validate a plugin's (schema-valid) args.

    Returns the args object and a list of ``(path within args, message)`` problems.
    """
    try:
        args = cls.parse_args(raw)
    except (TypeError, ValueError, KeyError) as exc:
        return None, [((), f"cannot read args: {exc}")]
    return args, [(e.path, e.message) for e in cls.validate_args(args)]


class Framework:
    """A profile's plugins, instantiated and arranged into ordered call tables."""

    def __init__(self, profile: Profile, registry: PluginRegistry, handle: Handle | None = None):
        self.profile = profile
        self.registry = registry
        self.handle = handle or Handle()
        self.handle.framework = self
        self.plugins: dict[str, Plugin] = {}
        self.manager = pluggy.PluginManager(hookspecs.PROJECT)
        self.manager.add_hookspecs(hookspecs.ExtensionPointSpecs)
        problems: list[Problem] = []

        self.configs: dict[str, PluginConfig] = {}
        for config in framework_configs(profile, registry):
            self._instantiate(config, problems)
        if not problems:
            try:
                self.manager.check_pending()
            except pluggy.PluginValidationError as exc:
                problems.append(self._hook_problem(exc))
        if problems:
            raise FrameworkError(problems)

        impls = self._impls_by_plugin()
        self.tables: dict[str, list[Step]] = {hook: [] for hooks in POINT_HOOKS.values() for hook in hooks}
        self.points: dict[str, list[str]] = {}
        for name, config in self.configs.items():
            cls = type(self.plugins[name])
            available = implemented_points(cls)
            for point in config.points or ():
                if point not in POINT_HOOKS:
                    problems.append(config.origin.problem(
                        f"unknown extension point {point!r} (known: {', '.join(POINT_HOOKS)})",
                        f"plugins.{name}.points", "unknown-extension-point"))
                elif point not in available:
                    problems.append(config.origin.problem(
                        f"plugin {name!r} does not extend {POINT_TITLES[point]} plugin",
                        f"plugins.{name}.points", "point-not-implemented"))
            self.points[name] = effective_points(cls, config.points)
            for point in self.points[name]:
                for hook in POINT_HOOKS[point]:
                    impl = impls.get(name, {}).get(hook)
                    if impl is not None:
                        self.tables[hook].append(Step(config.label, impl.function, tuple(impl.argnames),
                                                      config.weight))
        self._check_tables(problems)
        if problems:
            raise FrameworkError(problems)
        self._normalizers = {s.plugin: s for s in self.tables["ruleset_normalize_score"]}

    # ----------------------------------------------------------------- build
    def _instantiate(self, config: PluginConfig, problems: list[Problem]) -> None:
        origin = config.origin

        def problem(message: str, code: str) -> None:
            problems.append(Problem(message, file=origin.file, line=origin.line, column=origin.column,
                                    path=f"plugins.{config.name}", code=code))

        cls = self.registry.get(config.name)
        if cls is None:
            problem(f"plugin {config.name!r} does not exist", "unknown-plugin")
            return
        if config.name in self.configs:
            problem(f"repeated config for plugin {config.name}", "duplicate-plugin")
            return
        args, arg_problems = check_plugin_args(cls, config.args)
        for path, message in arg_problems:
            where = config.args_origin if config.args_origin.file else origin
            problems.append(Problem(message, file=where.file, line=where.line, column=where.column,
                                    path=format_path(("plugins", config.name, "args", *path)),
                                    code="invalid-args"))
        if arg_problems:
            return
        try:
            instance = cls(args, self.handle)
        except Exception as exc:  # a third-party constructor must not take the run down
            problem(f"initializing plugin {config.name!r}: {_describe(exc)}", "plugin-init-failed")
            return
        try:
            self.manager.register(instance, name=config.name)
        except pluggy.PluginValidationError as exc:
            problems.append(self._hook_problem(exc, origin))
            return
        except ValueError as exc:
            problem(str(exc), "duplicate-plugin")
            return
        self.plugins[config.name] = instance
        self.configs[config.name] = config

    def _hook_problem(self, exc: pluggy.PluginValidationError, origin: Any = None) -> Problem:
        name = self.manager.get_name(exc.plugin) or getattr(exc.plugin, "name", repr(exc.plugin))
        config = self.configs.get(name)
        origin = origin or (config.origin if config else None)
        return Problem(f"plugin {name!r}: {exc}", file=getattr(origin, "file", None),
                       line=getattr(origin, "line", None), path=f"plugins.{name}", code="invalid-hook")

    def _impls_by_plugin(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for hooks in POINT_HOOKS.values():
            for hook in hooks:
                for impl in getattr(self.manager.hook, hook).get_hookimpls():
                    out.setdefault(impl.plugin_name, {})[hook] = impl
        return out

    def _check_tables(self, problems: list[Problem]) -> None:
        queue_sorts = self.tables["ruleset_queue_sort"]
        if not queue_sorts:
            problems.append(Problem("no queue sort plugin is enabled", code="no-queue-sort"))
        elif len(queue_sorts) > 1:
            problems.append(Problem("only one queue sort plugin can be enabled", code="multiple-queue-sort"))
        if not self.tables["ruleset_bind"]:
            problems.append(Problem("at least one bind plugin is needed", code="no-bind-plugin"))
        total = sum(s.weight for s in self.tables["ruleset_score"]) * MAX_NODE_SCORE
        if total > MAX_TOTAL_SCORE:
            problems.append(Problem("total score of Score plugins could overflow", code="weight-overflow"))

    # ------------------------------------------------------------- queries
    def has(self, hook: str) -> bool:
        return bool(self.tables[hook])

    @property
    def score_plugins(self) -> list[str]:
        return [s.plugin for s in self.tables["ruleset_score"]]

    # ------------------------------------------------------------ running
    def queue_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return bool(self.tables["ruleset_queue_sort"][0](a=a, b=b))

    def run_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status:
        for step in self.tables["ruleset_pre_filter"]:
            try:
                status = as_status(step(state=state, pod=pod, snapshot=snapshot))
            except Exception as exc:
                return _failed(step, f"running PreFilter plugin {step.plugin!r}: {_describe(exc)}")
            if status.is_success:
                continue
            if status.is_unschedulable:
                return status.with_plugin(step.plugin)
            return _failed(step, f"running PreFilter plugin {step.plugin!r}: {status.message()}")
        return SUCCESS

    def run_pre_filter_extension(self, hook: str, state: CycleState, pod: Pod, other: Pod, node: int,
                                 snapshot: Snapshot) -> Status:
        """Run ``ruleset_pre_filter_add_pod`` or ``..._remove_pod`` for every plugin."""
        steps = self.tables[hook]
        if not steps:
            return SUCCESS
        key = "pod_to_add" if hook.endswith("add_pod") else "pod_to_remove"
        args = {"state": state, "pod": pod, "node": node, "snapshot": snapshot, key: other}
        for step in steps:
            try:
                status = step.function(*[args[name] for name in step.argnames])
            except Exception as exc:
                return _failed(step, f"running {hook} of plugin {step.plugin!r}: {_describe(exc)}")
            if status is not None and not status.is_success:
                return _failed(step, f"running {hook} of plugin {step.plugin!r}: {status.message()}")
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

    def nominated_pods(self, pod: Pod, node: str) -> list[Pod]:
        """Pods nominated to ``node`` that ``pod`` must leave room for (priority >= its own)."""
        nominated = self.handle.nominated.get(node)
        if not nominated:  # most nodes: asked for every node of every preemption dry run
            return []
        return [p for p in nominated if p.priority >= pod.priority and p.meta.uid != pod.meta.uid]

    def nominated_nodes(self, pod: Pod, snapshot: Snapshot) -> set[int]:
        """Indices of nodes holding nominated pods that ``pod`` must leave room for."""
        return {snapshot.node_index[name] for name in self.handle.nominated
                if name in snapshot.node_index and self.nominated_pods(pod, name)}

    def run_filters_on_node(self, state: CycleState, pod: Pod, index: int, snapshot: Snapshot,
                            with_nominated: bool = True) -> Status:
        """``PodPassesFiltersOnNode``: every Filter plugin on one node.

        With nominated pods of at least this pod's priority on the node, the filters run
        twice: with those pods added (PreFilter AddPod extensions update a cloned state),
        then, if that passed, without them. The node fits only if both passes do.
        """
        nominated = self.nominated_pods(pod, snapshot.node_names[index]) if with_nominated else []
        if nominated:
            with snapshot.what_if():
                state_with = state.clone()
                for other in nominated:
                    snapshot.add_pod(other, index)
                    status = self.run_pre_filter_extension("ruleset_pre_filter_add_pod", state_with, pod,
                                                           other, index, snapshot)
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

    def run_post_filter(self, state: CycleState, pod: Pod, statuses: NodeStatuses) -> PostFilterResult | None:
        """Run PostFilter plugins until one succeeds; returns the last result (or None)."""
        last = None
        for step in self.tables["ruleset_post_filter"]:
            try:
                result = step(state=state, pod=pod, statuses=statuses)
            except Exception as exc:
                return PostFilterResult(status=Status(Code.ERROR, (
                    f"running PostFilter plugin {step.plugin!r}: {_describe(exc)}",), step.plugin))
            if result is None:
                continue
            last = result
            if result.status.is_success:
                return result
            if result.status.code == Code.ERROR:
                return result
        return last

    def run_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> Status:
        for step in self.tables["ruleset_pre_score"]:
            try:
                status = as_status(step(state=state, pod=pod, nodes=nodes))
            except Exception as exc:
                return _failed(step, f"running PreScore plugin {step.plugin!r}: {_describe(exc)}")
            if not status.is_success:
                return _failed(step, f"running PreScore plugin {step.plugin!r}: {status.message()}")
        return SUCCESS

    def run_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> tuple[ScoreTable | None, Status]:
        """Score, normalize and weight; scores are checked to lie in [0, 100] after normalizing."""
        n = len(nodes)
        table = ScoreTable([], [], [], [], np.zeros(n, dtype=np.int64))
        for step in self.tables["ruleset_score"]:
            try:
                raw = _as_scores(step(state=state, pod=pod, nodes=nodes), n)
            except Exception as exc:
                return None, _failed(step, f"plugin {step.plugin!r} failed with: {_describe(exc)}")
            normalized = raw.copy()
            normalizer = self._normalizers.get(step.plugin)
            if normalizer is not None:
                try:
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
        for step in self.tables[hook]:
            try:
                status = as_status(step(state=state, pod=pod, node=node))
            except Exception as exc:
                return _failed(step, f"running {title} plugin {step.plugin!r}: {_describe(exc)}")
            if not status.is_success:
                return status.with_plugin(step.plugin)
        return SUCCESS

    def run_reserve(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._run_node_hooks("ruleset_reserve", "Reserve", state, pod, node)

    def run_unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        for step in reversed(self.tables["ruleset_unreserve"]):
            with contextlib.suppress(Exception):  # Unreserve must not fail; upstream ignores its outcome
                step(state=state, pod=pod, node=node)

    def run_permit(self, state: CycleState, pod: Pod, node: str) -> Status:
        for step in self.tables["ruleset_permit"]:
            try:
                status = as_status(step(state=state, pod=pod, node=node))
            except Exception as exc:
                return _failed(step, f"running Permit plugin {step.plugin!r}: {_describe(exc)}")
            if status.is_unschedulable:
                return Status(status.code, (f"rejected pod {pod.name!r} by permit plugin {step.plugin!r}: "
                                            f"{status.message()}",), step.plugin)
            if status.code == Code.WAIT:
                # Nothing else acts in a snapshot run, so nobody could ever allow the pod.
                return Status(Code.UNSCHEDULABLE, (f"pod {pod.name!r} rejected while waiting on permit: "
                                                   f"plugin {step.plugin!r} asked to wait",), step.plugin)
            if not status.is_success:
                return _failed(step, f"running Permit plugin {step.plugin!r}: {status.message()}")
        return SUCCESS

    def run_pre_bind(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._run_node_hooks("ruleset_pre_bind", "PreBind", state, pod, node)

    def run_bind(self, state: CycleState, pod: Pod, node: str) -> Status:
        steps = self.tables["ruleset_bind"]
        if not steps:
            return Status(Code.SKIP)
        for step in steps:
            try:
                status = as_status(step(state=state, pod=pod, node=node))
            except Exception as exc:
                return _failed(step, f"running Bind plugin {step.plugin!r}: {_describe(exc)}")
            if status.code == Code.SKIP:
                continue
            return status.with_plugin(step.plugin)
        return Status(Code.SKIP)

    def run_post_bind(self, state: CycleState, pod: Pod, node: str) -> None:
        for step in self.tables["ruleset_post_bind"]:
            with contextlib.suppress(Exception):  # informational hook; a failure changes nothing
                step(state=state, pod=pod, node=node)


def _failed(step: Step, message: str) -> Status:
    """An Error status from ``step``'s plugin."""
    return Status(Code.ERROR, (message,), step.plugin)


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
