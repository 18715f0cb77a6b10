"""Build a profile's framework and run its extension points.

:class:`Framework` takes the plugins :func:`~ruleset.framework.validation.check_plugins`
found valid (with their parsed args), instantiates each with the framework's
:class:`~ruleset.framework.plugin.Handle`, and builds, once, an ordered call table per
hook from the extension-point table (:mod:`ruleset.framework.points`) and each class's
checked hook methods (:mod:`ruleset.framework.hooks`). The scheduler calls those tables
directly: no pluggy dispatch on the hot path, and the profile's order, weights and points
are respected exactly.

Every call of a plugin hook, and every check of what it returned, sits inside one
isolation boundary: a plugin that raises, or returns what its hook cannot return (the
wrong type, shape, length or dtype, a score out of range, a code that is no status Code),
becomes an Error status naming the plugin and its package (``Status.fault`` set), with
kube-scheduler's consequence for an Error at that point (the pod's cycle fails, never the
run). Only a QueueSort plugin, which has no pod to fail, stops the run, as a located
problem.

From Kubernetes 1.27 (:data:`PRE_SCORE_SKIP`) a PreScore plugin may return Skip: the cycle goes
on, and that plugin's Score and NormalizeScore are not run for the pod (upstream's
``SkipScorePlugins``, kept in the cycle state under :data:`SKIP_SCORE_PLUGINS`). The plugin is
then absent from the :class:`ScoreTable` (its ``skipped`` names it): it adds nothing to the
totals, and the score JSON does not list it for the pod's nodes, as upstream's
``NodePluginScores`` does not. Before 1.27 a Skip from PreScore is an Error, as it was upstream.
Likewise from 1.27 (:data:`PRE_FILTER_SKIP`) a PreFilter plugin may return Skip: its Filter and
PreFilter extensions are not run for the pod (:data:`SKIP_FILTER_PLUGINS`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ruleset.api.pod import Pod
from ruleset.errors import PLUGIN_FAULTS, Problem, RulesetError, describe_exception, format_path, one_line
from ruleset.framework.dependence import NodeColumns
from ruleset.framework.hooks import class_hooks
from ruleset.framework.plugin import (
    BUILTIN_PACKAGE,
    OTHER_PODS_ANY,
    OTHER_PODS_AS_RESOURCES,
    OTHER_PODS_IGNORED,
    Handle,
    Plugin,
    PluginClasses,
)
from ruleset.framework.points import HOOKS, MAX_NODE_SCORE, MIN_NODE_SCORE, POINTS
from ruleset.framework.results import (
    NO_REPORT,
    FilterResult,
    NodeStatuses,
    PostFilterReport,
    PostFilterResult,
    PreFilterResult,
)
from ruleset.framework.status import SUCCESS, Code, Status
from ruleset.framework.status import as_status as _as_status
from ruleset.framework.validation import Finding, PluginCheck, check_plugins
from ruleset.gofmt import go_quote
from ruleset.kversion import switch
from ruleset.snapshot import NodeSet

if TYPE_CHECKING:
    from ruleset.config import PluginConfig, Profile
    from ruleset.framework.cycle_state import CycleState
    from ruleset.framework.types import QueuedPodInfo
    from ruleset.snapshot import Snapshot

# Codes as plain ints: numpy compares an array with an IntEnum member several times slower.
_SUCCESS = int(Code.SUCCESS)
_UNSCHEDULABLE = int(Code.UNSCHEDULABLE)
_UNRESOLVABLE = int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


#: Largest status code value (Skip).
_MAX_CODE = max(int(code) for code in Code)
#: Each status Code by value: a dict lookup is several times faster than ``Code(value)``.
_CODE_OF = {int(code): code for code in Code}
_INT64_MAX = int(np.iinfo(np.int64).max)
_INT64 = np.dtype(np.int64)
#: ``ndarray.min``/``max`` without their Python wrappers (the score range check runs per plugin per pod).
_min_of = np.minimum.reduce
_max_of = np.maximum.reduce
#: What a plugin's hook may throw and be reported for instead of ending the run (the one
#: isolation boundary of ruleset.errors).
_FAULTS = PLUGIN_FAULTS
#: What :meth:`Framework.filter_what_if` gives failing nodes when the caller wants no reasons.
_BARE_FAILURE = Status(Code.UNSCHEDULABLE)
#: The cycle's :meth:`Framework.what_if_steps` answer, with the nominations' version it read.
_WHAT_IF_STEPS = "ruleset.framework.what-if-steps"

PRE_SCORE_SKIP = switch(
    "framework.prescore-skip", "1.27",
    "a PreScore plugin may return Skip: its Score and NormalizeScore are not run for the pod (before: "
    "an Error)", "pkg/scheduler/framework/runtime/framework.go (RunPreScorePlugins, kubernetes#115652)")
PRE_FILTER_SKIP = switch(
    "framework.prefilter-skip", "1.27",
    "a PreFilter plugin may return Skip: its Filter and PreFilter AddPod/RemovePod are not run for the pod "
    "(before: an Error)", "pkg/scheduler/framework/runtime/framework.go (RunPreFilterPlugins, "
    "RunFilterPlugins, RunPreFilterExtensionAddPod; CycleState.SkipFilterPlugins)")
SKIPPED_WHEN_PRE_FILTER_FAILS = switch(
    "framework.prefilter-skip-kept-on-failure", "1.28",
    "the plugins whose PreFilter returned Skip are recorded even when a later PreFilter plugin "
    "fails (a deferred write), so a dry run after that failure leaves their Filter and "
    "extensions out too (before: recorded only when PreFilter as a whole succeeded)",
    "pkg/scheduler/framework/runtime/framework.go (RunPreFilterPlugins, kubernetes#119769)")
FILTER_ERROR_WITHOUT_POD = switch(
    "framework.filter-error-without-pod", "1.22",
    "a Filter plugin's Error reads \"running \"X\" filter plugin: ...\" (before: \"... filter plugin for pod "
    "\"p\": ...\")", "pkg/scheduler/framework/runtime/framework.go (RunFilterPlugins): v1.21 after "
    "kubernetes#98266 still names the pod, v1.22's sources do not")
PRE_FILTER_RESULT = switch(
    "framework.prefilter-result", "1.24",
    "a PreFilter plugin may return a PreFilterResult (node names): the results are intersected, only "
    "those nodes are filtered, and an empty intersection rejects the pod as Unschedulable with \"node(s) "
    "didn't satisfy plugin X\" (\"plugin(s) [X Y] simultaneously\" for several, in the order they ran)",
    "pkg/scheduler/framework/interface.go (PreFilterResult, Merge), pkg/scheduler/framework/runtime/"
    "framework.go (RunPreFilterPlugins), kubernetes#108648")
PRE_FILTER_RESULT_UNRESOLVABLE = switch(
    "framework.prefilter-result-unresolvable", "1.30",
    "an empty intersection of PreFilterResults is UnschedulableAndUnresolvable (no preemption)",
    "pkg/scheduler/framework/runtime/framework.go (RunPreFilterPlugins), kubernetes#119779")
PRE_FILTER_RESULT_SORTED = switch(
    "framework.prefilter-result-sorted", "1.31",
    "the plugins an empty intersection of PreFilterResults names are sorted (sets.List), not in the "
    "order they ran", "pkg/scheduler/framework/runtime/framework.go (RunPreFilterPlugins), kubernetes#122251")
PRE_FILTER_UNSCHEDULABLE_GOES_ON = switch(
    "framework.prefilter-unschedulable-goes-on", "1.30",
    "after a PreFilter plugin returns Unschedulable the others still run (their state is there for "
    "preemption's dry runs), and the last Unschedulable is the outcome; UnschedulableAndUnresolvable "
    "still stops at once", "pkg/scheduler/framework/runtime/framework.go (RunPreFilterPlugins: "
    "returnStatus), kubernetes#119779, kubernetes#119770")
#: The cycle-state key of the intersected PreFilterResult, when a plugin returned one:
#: ``(node names, the plugins that returned one, in the order they ran)``.
PRE_FILTER_NODES = "ruleset/PreFilterResult"
#: The cycle-state key of the labels of the plugins whose PreFilter returned Skip (upstream's
#: ``CycleState.SkipFilterPlugins``); written by :meth:`Framework.run_pre_filter` when every
#: PreFilter plugin succeeded or skipped, and from 1.28 also when one failed.
SKIP_FILTER_PLUGINS = "ruleset/SkipFilterPlugins"
#: The cycle-state key of the labels of the plugins whose PreScore returned Skip (upstream's
#: ``CycleState.SkipScorePlugins``); written by every :meth:`Framework.run_pre_score`.
SKIP_SCORE_PLUGINS = "ruleset/SkipScorePlugins"


class _Broken(Exception):
    """What a plugin returned cannot be used; raised by the checks inside the boundary."""


def _describe(exc: BaseException) -> str:
    """An exception as one line: ``Type: message`` (a failed check: its message)."""
    return str(exc) if isinstance(exc, _Broken) else describe_exception(exc)


def _shown(value: object) -> str:
    """``repr(value)``, at most 80 characters, for a message; never raises."""
    try:
        return f"{value!r:.80}"
    except Exception:
        return f"a {type(value).__name__}"


def _package_of(registry: PluginClasses, name: str) -> str:
    """``registry.package_of(name)``, or "unknown" from a registry without it (or failing)."""
    try:
        return str(registry.package_of(name))
    except Exception:
        return "unknown"


@dataclass(slots=True)
class Step:
    """One plugin's implementation of one hook, ready to call."""

    plugin: str
    function: Callable[..., Any]
    argnames: tuple[str, ...]
    weight: int = 1
    #: Where the plugin came from (``PluginRegistry.package_of``), for its errors.
    package: str = "unknown"
    #: An in-tree plugin: what it returns is not checked on the hot path (its tests do that).
    trusted: bool = False

    def __call__(self, **kwargs: Any) -> Any:
        return self.function(*[kwargs[name] for name in self.argnames])


@dataclass(frozen=True, slots=True)
class WhatIfStep:
    """A Filter step on the what-if path: ``with_columns`` is the plugin's ``filter_with_columns``
    when it reads other pods as summed requests, None when it ignores them; ``passes`` its
    optional ``passes_with_columns`` (only whether each node passes, for questions that need no
    reasons)."""

    step: Step
    with_columns: Callable[..., Any] | None
    passes: Callable[..., Any] | None = None
    #: Its optional ``room_with_columns`` (:meth:`Framework.room_what_if`).
    room: Callable[..., Any] | None = None


class WhatIfFailures:
    """The failing nodes of a what-if run (positions aligned with its nodes) and their statuses,
    each distinct status held once."""

    __slots__ = ("statuses", "which")

    def __init__(self, n: int):
        #: Per position, its index in :attr:`statuses`; -1 where the node passed.
        self.which = np.full(n, -1, dtype=np.intp)
        self.statuses: list[Status] = []

    def __getitem__(self, position: int) -> Status:
        return self.statuses[int(self.which[position])]

    def __setitem__(self, position: int, status: Status) -> None:
        self.set(np.array([position]), status)

    def set(self, positions: np.ndarray, status: Status) -> None:
        """Give the nodes at ``positions`` ``status``."""
        self.statuses.append(status)
        self.which[positions] = len(self.statuses) - 1

    def groups(self, positions: np.ndarray) -> list[tuple[Status, np.ndarray]]:
        """The failing ``positions`` grouped by status (each group in the order given)."""
        which = self.which[positions]
        return [(status, positions[which == k]) for k, status in enumerate(self.statuses)
                if np.any(which == k)]


@dataclass
class ScoreTable:
    """Per-plugin raw and normalized scores of the scored nodes, and the weighted totals."""

    plugins: list[str]
    weights: list[int]
    raw: list[np.ndarray]
    normalized: list[np.ndarray]
    total: np.ndarray
    #: Score plugins not run for this pod: their PreScore returned Skip (1.27 on), in profile order.
    skipped: list[str] = dataclasses.field(default_factory=list)


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
            except _FAULTS as exc:  # a third-party constructor must not take the run down
                message = f"initializing plugin {config.name!r}: {_describe(exc)}"
                problems.append(config.origin.problem(message, f"plugins.{config.name}",
                                                      "plugin-init-failed"))
                continue
            self.plugins[config.name] = instance
            self.configs[config.name] = config
            self.points[config.name] = list(planned.points)
            argnames = class_hooks(planned.cls).argnames
            package = _package_of(registry, config.name)
            for point in planned.points:
                for hook in POINTS[point].hooks:
                    if hook in argnames:
                        self.tables[hook].append(Step(config.label, getattr(instance, hook), argnames[hook],
                                                      config.weight, package, package == BUILTIN_PACKAGE))
        if problems:
            raise FrameworkError(problems)
        self._normalizers = {s.plugin: s for s in self.tables["ruleset_normalize_score"]}
        self._pre_score_skip = profile.target.has(PRE_SCORE_SKIP)
        self._pre_filter_skip = profile.target.has(PRE_FILTER_SKIP)
        self._skipped_kept_on_failure = profile.target.has(SKIPPED_WHEN_PRE_FILTER_FAILS)
        self._pre_filter_results = profile.target.has(PRE_FILTER_RESULT)
        self._results_unresolvable = profile.target.has(PRE_FILTER_RESULT_UNRESOLVABLE)
        self._results_sorted = profile.target.has(PRE_FILTER_RESULT_SORTED)
        self._unschedulable_goes_on = profile.target.has(PRE_FILTER_UNSCHEDULABLE_GOES_ON)
        self._filter_error_names_pod = not profile.target.has(FILTER_ERROR_WITHOUT_POD)
        #: Whether PostFilter reports carry every candidate and the details' ``to_json()`` (score,
        #: explain, ``schedule --verbose``); off, only their number (a long run's memory and time).
        self.post_filter_details = True

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
              kwargs: dict[str, Any], done: Any = SUCCESS, returns: type = Status,
              also: type | None = None) -> Any:
        """Run the plugins of ``hook`` in order until ``decide`` returns something other than None.

        ``decide(step, returned, kwargs)`` turns what a plugin returned (None or a
        ``returns``; a Status checked and its code made a :class:`Code`) into the outcome
        (None: go on to the next plugin); ``done`` is the outcome when every plugin went on.
        A plugin that raises, or returns anything else, ends the point with an Error naming
        it, worded by ``failure`` (a format string over ``plugin`` and ``error``). The call,
        the check and ``decide`` all sit inside the boundary. ``also``: another type a hook
        returning a Status may return instead (PreFilter's :class:`PreFilterResult`).
        """
        none_goes_on = decide in _NONE_GOES_ON
        for step in self.tables[hook]:
            try:
                returned = step.function(*[kwargs[name] for name in step.argnames])
                if returned is None and none_goes_on:
                    continue  # what ``decide`` makes of None (Success, or no result): go on
                if returns is Status:
                    if also is None or not isinstance(returned, also):
                        returned = _checked_status(returned, also)
                elif returned is not None and not isinstance(returned, returns):
                    raise _Broken(f"returned {_shown(returned)}, not a {returns.__name__}")
                outcome = decide(step, returned, kwargs)
            except _FAULTS as exc:
                message = failure.format(plugin=go_quote(step.plugin), error=_describe(exc))
                return _failed(step, message, fault=True)
            if outcome is not None:
                return outcome
        return done

    @property
    def queue_sort_plugin(self) -> str | None:
        """The name of the QueueSort plugin (profiles run together must share it)."""
        table = self.tables.get("ruleset_queue_sort")
        return table[0].plugin if table else None

    # ------------------------------------------------------------ running
    def queue_order(self) -> str | None:
        """The QueueSort plugin's declared :attr:`Plugin.queue_order`, when the class defining
        its hook declares one; None otherwise (the hook decides every comparison)."""
        table = self.tables["ruleset_queue_sort"]
        if len(table) != 1:
            return None
        plugin = getattr(table[0].function, "__self__", None)
        if not isinstance(plugin, Plugin):
            return None
        for cls in type(plugin).__mro__:
            if "ruleset_queue_sort" in cls.__dict__:
                order = cls.__dict__.get("queue_order")
                return order if isinstance(order, str) else None
        return None

    def queue_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """The QueueSort plugin's "less". One that raises or answers other than a bool leaves
        no order to schedule in: the run stops with one problem naming it and its package."""
        step = self.tables["ruleset_queue_sort"][0]
        try:
            less = step(a=a, b=b)
            if less is True or less is False:
                return less
            if isinstance(less, np.bool_):
                return bool(less)
            raise _Broken(f"returned {_shown(less)}, not a bool")
        except _FAULTS as exc:
            message = one_line(f"running QueueSort plugin {go_quote(step.plugin)} (package {step.package}): "
                               f"{_describe(exc)}")
            raise RulesetError(Problem(message, code="plugin-error")) from None

    def run_pre_enqueue(self, pod: Pod) -> Status:
        """``RunPreEnqueuePlugins``: the plugins in order until one does not succeed (a pod one
        of them refuses never enters the active queue: SchedulingGates' gated pods)."""
        return self._each("ruleset_pre_enqueue", "running PreEnqueue plugin {plugin}: {error}",
                          _pre_enqueue_outcome, {"pod": pod})

    def run_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status:
        """``RunPreFilterPlugins``: the plugins in order until one does not succeed (from 1.30 an
        Unschedulable one goes on, and the last is the outcome: :data:`PRE_FILTER_UNSCHEDULABLE_GOES_ON`).
        From 1.27 a Skip goes on, and the plugins that skipped are written to ``state`` under
        :data:`SKIP_FILTER_PLUGINS`: when the point succeeds, and from 1.28 whatever its outcome
        (:data:`SKIPPED_WHEN_PRE_FILTER_FAILS`). From 1.24 the PreFilterResults are intersected
        (:class:`_Merged`) and, when the point succeeds, written under :data:`PRE_FILTER_NODES`."""
        skipped: list[str] = []
        merged = (_Merged(self._results_unresolvable, self._results_sorted) if self._pre_filter_results
                  else None)
        unschedulable: list[Status] = []
        status: Status = self._each(
            "ruleset_pre_filter", "running PreFilter plugin {plugin}: {error}", _pre_filter_outcome,
            {"state": state, "pod": pod, "snapshot": snapshot,
             "skipped": skipped if self._pre_filter_skip else None, "merged": merged,
             "unschedulable": unschedulable if self._unschedulable_goes_on else None},
            also=PreFilterResult)
        if status.is_success and unschedulable:
            status = unschedulable[0]
        if skipped and (status.is_success or self._skipped_kept_on_failure):
            state.write(SKIP_FILTER_PLUGINS, frozenset(skipped))
        if merged is not None and merged.names is not None and status.is_success:
            state.write(PRE_FILTER_NODES, (merged.names, tuple(merged.plugins)))
        return status

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

    def _filter_error(self, step: Step, pod: Pod, detail: str, fault: bool = False) -> Status:
        """The Error a Filter plugin's failure aborts the cycle with, in the release's words
        (:data:`FILTER_ERROR_WITHOUT_POD`)."""
        of_pod = f" for pod {go_quote(pod.name)}" if self._filter_error_names_pod else ""
        return _failed(step, f"running {go_quote(step.plugin)} filter plugin{of_pod}: {detail}", fault)

    def _run_extension(self, hook: str, kwargs: dict[str, Any]) -> Status:
        # Not through _each: preemption's dry runs call this once per victim per candidate node.
        skip: frozenset[str] = kwargs["state"].get(SKIP_FILTER_PLUGINS) or _NOTHING
        for step in self.tables[hook]:
            if skip and step.plugin in skip:
                continue
            try:
                returned = step.function(*[kwargs[name] for name in step.argnames])
                if returned is None:
                    continue
                status = _checked_status(returned)
            except _FAULTS as exc:
                return _failed(step, f"running {hook} of plugin {go_quote(step.plugin)}: {_describe(exc)}",
                               fault=True)
            if not status.is_success:
                return _failed(step, f"running {hook} of plugin {go_quote(step.plugin)}: {status.message()}")
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
        skip: frozenset[str] = state.get(SKIP_FILTER_PLUGINS) or _NOTHING
        args = {"state": state, "pod": pod, "nodes": NodeSet(snapshot, remaining)}
        for step in self.tables["ruleset_filter"]:
            if not len(remaining):
                break
            if skip and step.plugin in skip:
                continue
            try:
                result = step.function(*[args[name] for name in step.argnames])
                if result is None:
                    continue
                fail = _filter_failures(result, snapshot, remaining, step.trusted)
                if fail is None:
                    continue
                bad = fail & (result.codes != _UNSCHEDULABLE) & (result.codes != _UNRESOLVABLE)
                if np.count_nonzero(bad):  # an Error (or a code Filter cannot give) the plugin reported
                    first = int(np.flatnonzero(bad)[0])
                    return remaining[:0], self._filter_error(step, pod, result.status(first).message())
                statuses.record(remaining, result, step.plugin, fail)
            except _FAULTS as exc:
                return remaining[:0], self._filter_error(step, pod, _describe(exc), fault=True)
            remaining = remaining[~fail]
            args["nodes"] = NodeSet(snapshot, remaining)
        return remaining, SUCCESS

    def nominated_nodes(self, pod: Pod, snapshot: Snapshot) -> set[int]:
        """Indices of nodes holding nominated pods that ``pod`` must leave room for."""
        index = snapshot.node_index
        return {index[name] for name in self.handle.nominator.room_for(pod) if name in index}

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
        indices = np.array([index], dtype=np.intp)
        args = {"state": state, "pod": pod, "nodes": NodeSet(snapshot, indices)}
        skip: frozenset[str] = state.get(SKIP_FILTER_PLUGINS) or _NOTHING
        for step in self.tables["ruleset_filter"]:
            if skip and step.plugin in skip:
                continue
            try:
                result = step.function(*[args[name] for name in step.argnames])
                if result is None:
                    continue
                # The one-node form of _filter_failures, kept cheap: this runs once per plugin for
                # every node of every preemption dry run. Compare as plain ints (see _SUCCESS).
                if (not isinstance(result, FilterResult) or type(result.codes) is not np.ndarray
                        or result.codes.shape != (1,) or result.codes.dtype.kind not in "iu"):
                    _filter_failures(result, snapshot, indices)  # raises, saying what is wrong
                code = int(result.codes[0])
                if code == _SUCCESS:
                    continue
                reasons = _one_node_reasons(result, code, snapshot, index)
            except _FAULTS as exc:
                return self._filter_error(step, pod, _describe(exc), fault=True)
            if code != _UNSCHEDULABLE and code != _UNRESOLVABLE:
                return self._filter_error(step, pod, ", ".join(reasons))
            # _named's result for an Unschedulable status, built once (a Status costs ~0.7 µs).
            return Status(_CODE_OF[code], reasons, step.plugin, step.package)
        return SUCCESS

    def what_if_steps(self, state: CycleState, pod: Pod) -> list[WhatIfStep] | None:
        """The Filter steps, in table order, when every Filter plugin's verdicts for ``pod``
        ignore the other pods or read them only as summed requests (:meth:`Plugin.other_pods`),
        so what-ifs may run for many nodes at once (:meth:`filter_what_if`); None otherwise.

        PreFilter AddPod/RemovePod extensions must belong to plugins that ignore other pods,
        as they are not called on that path. A plugin whose answer raises counts as "any".
        """
        cached = state.get(_WHAT_IF_STEPS)
        if cached is not None and cached[0] == self.handle.nominator.version:
            return cached[1]
        steps = self._what_if_steps(state, pod)
        state.write(_WHAT_IF_STEPS, (self.handle.nominator.version, steps))
        return steps

    def _what_if_steps(self, state: CycleState, pod: Pod) -> list[WhatIfStep] | None:
        skip: frozenset[str] = state.get(SKIP_FILTER_PLUGINS) or _NOTHING
        answers: dict[str, str] = {}

        def answer(step: Step) -> str:
            if step.plugin not in answers:
                plugin = getattr(step.function, "__self__", None)
                try:
                    answers[step.plugin] = plugin.other_pods(state, pod) if isinstance(plugin, Plugin) \
                        else OTHER_PODS_ANY
                except _FAULTS:
                    answers[step.plugin] = OTHER_PODS_ANY
            return answers[step.plugin]

        steps: list[WhatIfStep] = []
        for step in self.tables["ruleset_filter"]:
            if skip and step.plugin in skip:
                continue
            kind = answer(step)
            if kind == OTHER_PODS_IGNORED:
                steps.append(WhatIfStep(step, None))
                continue
            with_columns = getattr(getattr(step.function, "__self__", None), "filter_with_columns", None)
            if kind != OTHER_PODS_AS_RESOURCES or not callable(with_columns):
                return None
            owner = getattr(step.function, "__self__", None)
            passes = getattr(owner, "passes_with_columns", None)
            room = getattr(owner, "room_with_columns", None)
            steps.append(WhatIfStep(step, with_columns, passes if callable(passes) else None,
                                    room if callable(room) else None))
        for hook in ("ruleset_pre_filter_add_pod", "ruleset_pre_filter_remove_pod"):
            for step in self.tables[hook]:
                if not (skip and step.plugin in skip) and answer(step) != OTHER_PODS_IGNORED:
                    return None
        return steps

    def filter_what_if(self, state: CycleState, pod: Pod, steps: list[WhatIfStep], snapshot: Snapshot,
                       nodes: np.ndarray, columns: NodeColumns,
                       only: Callable[[WhatIfStep], bool] | None = None,
                       with_reasons: bool = True) -> tuple[np.ndarray, WhatIfFailures]:
        """Every step of :meth:`what_if_steps` over ``nodes`` (each seeing the nodes the earlier
        ones passed), resource plugins reading ``columns`` (aligned with ``nodes``): the verdicts
        :meth:`run_filters_on_node` would give with the pods the columns account for really there.

        Returns the passing mask (aligned with ``nodes``) and the failing positions' statuses, as
        :meth:`_filter_one` builds them. A plugin that faults fails every node still in play with
        its fault (its Status has ``fault`` set). ``only`` limits the run to some steps. Without
        ``with_reasons`` only faults keep their Status; other failing nodes share one bare Unschedulable
        (the caller only asks whether they pass).
        """
        n = len(nodes)
        failed = WhatIfFailures(n)
        remaining = np.arange(n)
        # The nodes at ``remaining`` and their columns, made again when it shrinks.
        subset, subset_columns = NodeSet(snapshot, nodes), columns
        args = {"state": state, "pod": pod, "nodes": subset}
        for what_if in steps:
            if not len(remaining):
                break
            if only is not None and not only(what_if):
                continue
            step = what_if.step
            if len(subset) != len(remaining):
                subset, subset_columns = NodeSet(snapshot, nodes[remaining]), columns.subset(remaining)
                args["nodes"] = subset
            if not with_reasons and what_if.passes is not None:
                try:
                    ok = _passing_mask(what_if.passes(state, pod, subset, subset_columns), len(subset))
                except _FAULTS as exc:
                    failed.set(remaining, self._filter_error(step, pod, _describe(exc), fault=True))
                    break
                if not ok.all():
                    failed.set(remaining[~ok], _BARE_FAILURE)
                    remaining = remaining[ok]
                continue
            try:
                if what_if.with_columns is None:
                    result = step.function(*[args[name] for name in step.argnames])
                else:
                    result = what_if.with_columns(state, pod, subset, subset_columns)
                if result is None:
                    continue
                fail = _filter_failures(result, snapshot, subset.indices, step.trusted)
            except _FAULTS as exc:
                failed.set(remaining, self._filter_error(step, pod, _describe(exc), fault=True))
                break
            if fail is None:
                continue
            if not with_reasons:
                failed.set(remaining[fail], _BARE_FAILURE)
                remaining = remaining[~fail]
                continue
            where = np.flatnonzero(fail)
            # One Status per distinct (code, reasons) the plugin gave, shared by its nodes.
            width = len(result.reasons) + 1
            outcome = result.codes[where].astype(np.int64) * width + result.reason_index[where]
            lowest = int(outcome.min())
            if lowest == int(outcome.max()):  # the usual case: one status for every failing node
                groups = [(lowest, remaining[where])]
            else:
                distinct, inverse = np.unique(outcome, return_inverse=True)
                inverse = inverse.reshape(-1)
                groups = [(key, remaining[where[inverse == k]]) for k, key in enumerate(distinct.tolist())]
            for key, positions in groups:
                code, slot = divmod(key, width)
                reasons = result.reasons[slot]
                if code != _UNSCHEDULABLE and code != _UNRESOLVABLE:
                    status = self._filter_error(step, pod, ", ".join(reasons))
                else:
                    status = Status(_CODE_OF[code], reasons, step.plugin, step.package)
                failed.set(positions, status)
            remaining = remaining[~fail]
        return failed.which < 0, failed

    def room_what_if(self, state: CycleState, pod: Pod, steps: list[WhatIfStep], snapshot: Snapshot,
                     nodes: np.ndarray, columns: NodeColumns) -> dict[str, np.ndarray] | None:
        """How much each node's sums may still grow with the pod passing every step that reads them:
        per resource (and :data:`ROOM_PODS` for the pod count), the most that may be added, the
        smallest over the steps' ``room_with_columns``. A node then passes those steps exactly
        when what is added stays within its room for every name. None when some step has no
        such answer, declines (None), faults or answers malformed: the caller asks step by step
        (:meth:`filter_what_if`), which reports a fault."""
        n = len(nodes)
        rooms: dict[str, np.ndarray] = {}
        subset = NodeSet(snapshot, nodes)
        for what_if in steps:
            if what_if.with_columns is None:
                continue
            if what_if.room is None:
                return None
            try:
                room = what_if.room(state, pod, subset, columns)
            except _FAULTS:
                return None
            if not isinstance(room, dict):
                return None
            for name, values in room.items():
                if (not isinstance(name, str) or type(values) is not np.ndarray or values.dtype != _INT64
                        or values.shape != (n,)):
                    return None
                rooms[name] = values if name not in rooms else np.minimum(rooms[name], values)
        return rooms

    def worth_retrying(self, pod: Pod, placed: Pod) -> bool:
        """Whether ``placed`` landing on a node may let the parked ``pod`` fit: a queueing hint
        says so. A hint that fails counts as yes, as upstream requeues on a hint's error."""
        return self.run_queueing_hints(pod, placed)[0]

    def run_queueing_hints(self, pod: Pod, placed: Pod) -> tuple[bool, Status]:
        """Ask the queueing hints in order whether to retry ``pod`` now that ``placed`` landed:
        ``(True, SUCCESS)`` at the first yes, ``(False, SUCCESS)`` when none says yes, and
        ``(True, Error naming the plugin)`` when a hint raises or answers other than a bool
        or None (upstream requeues on a hint's error)."""
        kwargs = {"pod": pod, "placed": placed}
        for step in self.tables["ruleset_queueing_hint"]:
            try:
                answer = step.function(*[kwargs[name] for name in step.argnames])
                if answer is not None and answer is not True and answer is not False:
                    if not isinstance(answer, np.bool_):
                        raise _Broken(f"returned {_shown(answer)}, not a bool")
                    answer = bool(answer)
            except _FAULTS as exc:
                message = f"running QueueingHint of plugin {go_quote(step.plugin)}: {_describe(exc)}"
                return True, _failed(step, message, fault=True)
            if answer:
                return True, SUCCESS
        return False, SUCCESS

    def run_post_filter(self, state: CycleState, pod: Pod, statuses: NodeStatuses) -> PostFilterResult | None:
        """Run PostFilter plugins until one succeeds (or errs); returns the last result (or None)."""
        snapshot = self.handle.snapshot
        kwargs: dict[str, Any] = {"state": state, "pod": pod, "statuses": statuses, "last": None,
                                  "cluster": snapshot, "details": self.post_filter_details}
        outcome = self._each("ruleset_post_filter", "running PostFilter plugin {plugin}: {error}",
                             _post_filter_outcome, kwargs, done=None, returns=PostFilterResult)
        if isinstance(outcome, Status):  # the plugin raised, or returned something else
            return PostFilterResult(status=outcome)
        result: PostFilterResult | None = outcome if outcome is not None else kwargs["last"]
        return result

    def run_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> Status:
        """``RunPreScorePlugins``: every PreScore plugin; the first non-success other than Skip
        (1.27 on) is an Error. The plugins that skipped are written to ``state`` under
        :data:`SKIP_SCORE_PLUGINS` (even when a later plugin errs, as upstream's ``defer``)."""
        skipped: list[str] = []
        kwargs = {"state": state, "pod": pod, "nodes": nodes,
                  "skipped": skipped if self._pre_score_skip else None}
        status: Status = self._each("ruleset_pre_score", "running PreScore plugin {plugin}: {error}",
                                    _pre_score_outcome, kwargs)
        state.write(SKIP_SCORE_PLUGINS, frozenset(skipped))
        return status

    def run_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> tuple[ScoreTable | None, Status]:
        """Score, normalize and weight; scores are checked to lie in [0, 100] after normalizing.

        A plugin whose PreScore returned Skip this cycle (``state``'s :data:`SKIP_SCORE_PLUGINS`)
        is not called: it is left out of the table's plugins and named in its ``skipped``."""
        n = len(nodes)
        table = ScoreTable([], [], [], [], np.zeros(n, dtype=np.int64))
        skip: frozenset[str] = state.get(SKIP_SCORE_PLUGINS) or frozenset()
        kwargs = {"state": state, "pod": pod, "nodes": nodes}
        for step in self.tables["ruleset_score"]:
            if skip and step.plugin in skip:
                table.skipped.append(step.plugin)
                continue
            normalizer = self._normalizers.get(step.plugin)
            try:
                raw = _as_scores(step.function(*[kwargs[name] for name in step.argnames]), nodes, "Score")
                # Only a NormalizeScore plugin may change the scores it is given (in place), so
                # only then do raw and normalized need to be two arrays; nothing else writes them.
                normalized = raw
                if normalizer is not None:
                    normalized = raw.copy()
                    result = normalizer(state=state, pod=pod, nodes=nodes, scores=normalized)
                    if result is not None:
                        normalized = _as_scores(result, nodes, "NormalizeScore")
                # Two reductions instead of two comparisons, an or and an any (all per node); an
                # in-tree plugin's scores are in range by construction (its tests check them).
                out_of_range = n > 0 and not step.trusted and (_min_of(normalized) < MIN_NODE_SCORE
                                                               or _max_of(normalized) > MAX_NODE_SCORE)
            except _FAULTS as exc:
                return None, _failed(step, f"plugin {go_quote(step.plugin)} failed with: {_describe(exc)}",
                                     fault=True)
            if out_of_range:
                outside = (normalized < MIN_NODE_SCORE) | (normalized > MAX_NODE_SCORE)
                bad = int(normalized[np.flatnonzero(outside)[0]])
                message = (f"plugin {go_quote(step.plugin)} returns an invalid score {bad}, it should in the "
                           f"range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing")
                return None, _failed(step, message, fault=True)
            table.plugins.append(step.plugin)
            table.weights.append(step.weight)
            table.raw.append(raw)
            table.normalized.append(normalized)
            table.total += normalized if step.weight == 1 else normalized * step.weight
        return table, SUCCESS

    def _run_node_hooks(self, hook: str, title: str, state: CycleState, pod: Pod, node: str) -> Status:
        return self._each(hook, f"running {title} plugin {{plugin}}: {{error}}", _node_hook_outcome,
                          {"state": state, "pod": pod, "node": node})

    def run_reserve(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._run_node_hooks("ruleset_reserve", "Reserve", state, pod, node)

    def run_unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        for step in reversed(self.tables["ruleset_unreserve"]):
            with contextlib.suppress(*_FAULTS):  # Unreserve must not fail; upstream ignores its outcome
                step(state=state, pod=pod, node=node)

    def run_permit(self, state: CycleState, pod: Pod, node: str) -> Status:
        """``RunPermitPlugins``: the first rejection (or Error) is the outcome; a plugin asking
        to Wait is remembered and the next plugins still run. When one or more asked to wait
        and none rejected, the pod joins the handle's waiting pods and the outcome is Wait."""
        waits: dict[str, str] = {}
        kwargs = {"state": state, "pod": pod, "node": node, "waits": waits}
        status: Status = self._each("ruleset_permit", "running Permit plugin {plugin}: {error}",
                                    _permit_outcome, kwargs)
        if not status.is_success or not waits:
            return status
        return self.handle.waiting_pods.add(pod, node, waits).wait_status()

    def run_pre_bind(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._run_node_hooks("ruleset_pre_bind", "PreBind", state, pod, node)

    def run_bind(self, state: CycleState, pod: Pod, node: str) -> Status:
        return self._each("ruleset_bind", "running Bind plugin {plugin}: {error}", _bind_outcome,
                          {"state": state, "pod": pod, "node": node}, done=Status(Code.SKIP))

    def run_post_bind(self, state: CycleState, pod: Pod, node: str) -> None:
        for step in self.tables["ruleset_post_bind"]:
            with contextlib.suppress(*_FAULTS):  # informational hook; a failure changes nothing
                step(state=state, pod=pod, node=node)


def _failed(step: Step, message: str, fault: bool = False) -> Status:
    """An Error status from ``step``'s plugin, on one line; ``fault``: the plugin raised or
    returned what its hook cannot return (rather than reporting an Error itself)."""
    return Status(Code.ERROR, (one_line(message),), step.plugin, step.package, fault)


def _named(step: Step, status: Status) -> Status:
    """A plugin's own non-success ``status`` as the framework reports it: naming the plugin and
    its package (an Error's message on one line)."""
    reasons = status.reasons
    if status.code == Code.ERROR:
        reasons = tuple(one_line(reason) for reason in reasons)
    return Status(status.code, reasons, step.plugin, step.package, status.fault)


def _checked_status(returned: Any, also: type | None = None) -> Status:
    """What a Status-returning hook returned, checked: a Status (None is Success) whose code is
    a :class:`Code` (an int of one is made one) and whose reasons are a tuple of strings
    (``also``: the other type the hook may return, named in the complaint)."""
    if returned is None:
        return SUCCESS
    if not isinstance(returned, Status):
        other = f" or a {also.__name__}" if also is not None else ""
        raise _Broken(f"returned {_shown(returned)}, not a Status{other}")
    code = returned.code
    if type(code) is not Code:
        if not isinstance(code, (int, np.integer)) or isinstance(code, bool) or not 0 <= code <= _MAX_CODE:
            raise _Broken(f"returned a Status with code {_shown(code)}, not a status Code")
        returned = Status(Code(code), returned.reasons, returned.plugin)
    reasons = returned.reasons
    if type(reasons) is not tuple or not all(isinstance(reason, str) for reason in reasons):
        raise _Broken(f"returned a Status whose reasons are {_shown(reasons)}, not a tuple of strings")
    return returned


# What each extension point makes of one plugin's answer (see Framework._each): None goes on
# to the next plugin, anything else is the outcome of the point.

def _refusal_outcome(title: str) -> Callable[[Step, Status | None, dict[str, Any]], Status | None]:
    """PreEnqueue and PreFilter: the first plugin that does not succeed decides, an
    Unschedulable one as its own status, anything else as an Error naming it."""
    def decide(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
        status = _as_status(returned)
        if status.is_success:
            return None
        if status.is_unschedulable:
            return _named(step, status)
        return _failed(step, f"running {title} plugin {go_quote(step.plugin)}: {status.message()}")
    return decide


_pre_enqueue_outcome = _refusal_outcome("PreEnqueue")
_pre_filter_refusal = _refusal_outcome("PreFilter")
_NOTHING: frozenset[str] = frozenset()


@dataclass
class _Merged:
    """The PreFilterResults of one cycle so far, intersected (``Merge``), and who returned one."""

    unresolvable: bool  # an empty intersection is UnschedulableAndUnresolvable (1.30 on)
    sorted_names: bool  # ... and names its plugins sorted (1.31 on)
    names: frozenset[str] | None = None
    plugins: list[str] = dataclasses.field(default_factory=list)

    def add(self, plugin: str, names: frozenset[str]) -> Status | None:
        """Merge one plugin's result; the rejection when no node is left."""
        self.plugins.append(plugin)
        self.names = names if self.names is None else self.names & names
        if self.names:
            return None
        plugins = sorted(self.plugins) if self.sorted_names else self.plugins
        message = (f"node(s) didn't satisfy plugin {plugins[0]}" if len(plugins) == 1 else
                   f"node(s) didn't satisfy plugin(s) [{' '.join(plugins)}] simultaneously")
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE if self.unresolvable else Code.UNSCHEDULABLE,
                      (message,))


def _pre_filter_outcome(step: Step, returned: Status | PreFilterResult | None,
                        kwargs: dict[str, Any]) -> Status | None:
    """A refusal, except that a Skip (where the release allows it: ``kwargs["skipped"]`` is a
    list) goes on and remembers the plugin, and a PreFilterResult is a Success merged into
    ``kwargs["merged"]`` (from 1.24; before, plain Success)."""
    if isinstance(returned, PreFilterResult):
        merged = kwargs["merged"]
        return None if merged is None else merged.add(step.plugin, returned.node_names)
    skipped = kwargs["skipped"]
    if skipped is not None and returned is not None and returned.code == Code.SKIP:
        skipped.append(step.plugin)
        return None
    refusal = _pre_filter_refusal(step, returned, kwargs)
    if refusal is not None and refusal.code == Code.UNSCHEDULABLE:
        later = kwargs["unschedulable"]
        if later is not None:
            later[:] = [refusal]  # the last one is the outcome, once the others have run
            return None
    return refusal


def _pre_score_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    """Success goes on; Skip (where the release allows it: ``kwargs["skipped"]`` is a list)
    goes on and remembers the plugin; anything else is an Error."""
    status = _as_status(returned)
    if status.is_success:
        return None
    skipped = kwargs["skipped"]
    if skipped is not None and status.code == Code.SKIP:
        skipped.append(step.plugin)
        return None
    return _failed(step, f"running PreScore plugin {go_quote(step.plugin)}: {status.message()}")


def _node_hook_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    """Reserve and PreBind: the first non-success is the outcome."""
    status = _as_status(returned)
    return None if status.is_success else _named(step, status)


def _permit_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    status = _as_status(returned)
    if status.is_success:
        return None
    pod = kwargs["pod"]
    if status.is_unschedulable:
        return Status(status.code, (f"rejected pod {go_quote(pod.name)} by permit plugin "
                                    f"{go_quote(step.plugin)}: {status.message()}",), step.plugin)
    if status.code == Code.WAIT:
        # Upstream keeps each waiting plugin's timeout; here its message, for when nothing allows the pod.
        kwargs["waits"][step.plugin] = status.message()
        return None
    return _failed(step, f"running Permit plugin {go_quote(step.plugin)}: {status.message()}")


def _bind_outcome(step: Step, returned: Status | None, kwargs: dict[str, Any]) -> Status | None:
    """Binders run until one does not Skip."""
    status = _as_status(returned)
    return None if status.code == Code.SKIP else _named(step, status)


def _post_filter_outcome(step: Step, result: PostFilterResult | None,
                         kwargs: dict[str, Any]) -> PostFilterResult | Status | None:
    """Until one succeeds, or errs; the last result is kept in ``kwargs["last"]``.

    A code other than those (Unschedulable goes on) is an Error, as upstream's. An Error
    that already names a plugin keeps it: DefaultPreemption reports a fault of a plugin
    its dry runs ran as that plugin's.
    """
    if result is None:
        return None
    status = result.status
    if not isinstance(status, Status):
        raise _Broken(f"returned a PostFilterResult whose status is {_shown(status)}, not a Status")
    status = _checked_status(status)
    node, snapshot = result.nominated_node, kwargs["cluster"]
    if node is not None and not isinstance(node, str):
        raise _Broken(f"nominated {_shown(node)}, not a node name")
    index = None
    if node and snapshot is not None:
        index = snapshot.node_index.get(node)
        if index is None:
            raise _Broken(f"nominated {_shown(node)}, not a node of the cluster")
    report = _post_filter_report(result.details, node, index, snapshot, kwargs.get("details", True))
    if status.is_success:
        result = dataclasses.replace(result, status=status)
        result.report = report
        return result
    if status.code not in (Code.ERROR, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE):
        return _failed(step, f"running PostFilter plugin {go_quote(step.plugin)}: {status.message()}")
    if status.plugin is None or status.plugin == step.plugin:
        status = _named(step, status)
    result = dataclasses.replace(result, status=status)
    result.report = report
    kwargs["last"] = result
    return result if status.code == Code.ERROR else None


def _post_filter_report(details: Any, node: str | None, index: int | None,
                        snapshot: Snapshot | None, full: bool = True) -> PostFilterReport:
    """What the scheduler and the reports read of a PostFilter plugin's ``details``, read and
    checked here, inside the plugin's boundary: the victims (when a node was nominated), the
    candidates' ``to_json()``, ``why``, ``clear_nomination`` and the details' ``to_json()``.
    Without ``full`` (:attr:`Framework.post_filter_details` off) only the number of candidates
    is read of them, and not the details' ``to_json()``."""
    if details is None:
        return NO_REPORT
    victims = []
    if index is not None:
        assert snapshot is not None
        for victim in getattr(details, "victims", None) or ():  # the scheduler evicts these
            if not isinstance(victim, Pod) or snapshot.node_of(victim) != index:
                raise _Broken(f"would evict {_shown(victim)}, not a pod on node {node!r}")
            victims.append(victim)
    candidates = []
    found = getattr(details, "candidates", None) or ()
    count = len(found) if isinstance(found, Sized) else None
    for candidate in found if full else ():
        to_json = getattr(candidate, "to_json", None)
        if not callable(to_json):
            raise _Broken(f"reported the candidate {_shown(candidate)}, which has no to_json()")
        candidates.append(_json_object(to_json(), "a candidate's to_json()"))
    why = getattr(details, "why", "")
    if not isinstance(why, str):
        raise _Broken(f"reported why {_shown(why)}, not a string")
    clear = getattr(details, "clear_nomination", False)
    if not isinstance(clear, bool):
        raise _Broken(f"reported clear_nomination {_shown(clear)}, not a bool")
    to_json = getattr(details, "to_json", None) if full else None
    json_report = None if to_json is None else _json_object(to_json(), "the details' to_json()")
    return PostFilterReport(tuple(victims), tuple(candidates), why, clear, json_report,
                            count if count is not None else len(candidates))


def _json_object(value: Any, what: str) -> dict[str, Any]:
    """``value`` as a JSON object (a report prints it), or the plugin's fault."""
    if not isinstance(value, Mapping):
        raise _Broken(f"{what} returned {_shown(value)}, not a mapping")
    value = dict(value)
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _Broken(f"{what} returned {_shown(value)}, not JSON ({exc})") from None
    return value


def _filter_failures(result: Any, snapshot: Snapshot, nodes: np.ndarray,
                     trusted: bool = False) -> np.ndarray | None:
    """Where the FilterResult ``result`` for ``nodes`` fails (None: every node passes), after
    checking it can be read: one integer code per node, each a status Code, and each failing
    node's reasons a tuple of strings in the reasons table. Raises :class:`_Broken` if not.
    An in-tree plugin's result (``trusted``) is not checked: its tests do that."""
    if trusted:
        fail = result.codes != _SUCCESS
        return fail if np.count_nonzero(fail) else None
    n = len(nodes)
    if not isinstance(result, FilterResult):
        raise _Broken(f"expected a FilterResult for {n} nodes, got {_shown(result)}")
    codes = result.codes
    if type(codes) is not np.ndarray or codes.shape != (n,) or codes.dtype.kind not in "iu":
        what = (f"codes of shape {codes.shape} and dtype {codes.dtype}" if isinstance(codes, np.ndarray)
                else f"codes {_shown(codes)}")
        raise _Broken(f"expected a FilterResult for {n} nodes, got {what}")
    fail = codes != _SUCCESS
    if not np.count_nonzero(fail):
        return None
    invalid = (codes < 0) | (codes > _MAX_CODE)
    if np.count_nonzero(invalid):
        first = int(np.flatnonzero(invalid)[0])
        name = snapshot.node_names[int(nodes[first])]
        raise _Broken(f"returned code {int(codes[first])} for node {name!r}, not a status Code")
    index, reasons = result.reason_index, result.reasons
    if type(index) is not np.ndarray or index.shape != (n,) or index.dtype.kind not in "iu":
        raise _Broken(f"a FilterResult's reason_index must be one integer per node, got {_shown(index)}")
    slots = index[fail]
    if not isinstance(reasons, (list, tuple)) or slots.min() < 0 or slots.max() >= len(reasons):
        raise _Broken("a FilterResult's reason_index points outside its reasons")
    for entry in reasons:
        if type(entry) is not tuple or not all(isinstance(reason, str) for reason in entry):
            raise _Broken(f"a FilterResult's reasons must be tuples of strings, got {_shown(entry)}")
    return fail


def _passing_mask(value: Any, n: int) -> np.ndarray:
    """What a plugin's ``passes_with_columns`` returned, checked: one bool per node."""
    if type(value) is not np.ndarray or value.dtype != np.bool_ or value.shape != (n,):
        raise _Broken(f"passes_with_columns returned {_shown(value)}, not one bool per node ({n})")
    return value


def _one_node_reasons(result: FilterResult, code: int, snapshot: Snapshot, index: int) -> tuple[str, ...]:
    """The reasons of the one node (snapshot node ``index``) a FilterResult with one well-formed
    code reports failing with ``code``, after :func:`_filter_failures`'s checks made in O(1): on
    that node's code and on the one entry of the reasons table it points at (the rest of the
    table is never read). Raises :class:`_Broken` if they fail."""
    if code < 0 or code > _MAX_CODE:
        raise _Broken(f"returned code {code} for node {snapshot.node_names[index]!r}, not a status Code")
    slots, reasons = result.reason_index, result.reasons
    if type(slots) is not np.ndarray or slots.shape != (1,) or slots.dtype.kind not in "iu":
        raise _Broken(f"a FilterResult's reason_index must be one integer per node, got {_shown(slots)}")
    slot = int(slots[0])
    if not isinstance(reasons, (list, tuple)) or not 0 <= slot < len(reasons):
        raise _Broken("a FilterResult's reason_index points outside its reasons")
    entry = reasons[slot]
    if type(entry) is not tuple or not all(isinstance(reason, str) for reason in entry):
        raise _Broken(f"a FilterResult's reasons must be tuples of strings, got {_shown(entry)}")
    return entry


def _as_scores(value: Any, nodes: NodeSet, hook: str) -> np.ndarray:
    """Scores a Score or NormalizeScore ``hook`` returned, as int64, one per node of ``nodes``;
    raises :class:`_Broken` saying what is wrong with them."""
    n = len(nodes)
    if type(value) is np.ndarray and value.dtype is _INT64 and value.shape == (n,):
        return value  # what every built-in scorer returns: nothing to check or convert
    if value is None:
        raise _Broken(f"{hook} returned None, not one score per node")
    try:
        array = np.asarray(value)
    except Exception:  # ragged nesting, or an object numpy cannot read
        raise _Broken(f"{hook} returned {_shown(value)}, not one score per node") from None
    if array.shape != (n,):
        if array.ndim == 1:
            raise _Broken(f"{hook} returned {len(array)} scores for {n} nodes")
        raise _Broken(f"{hook} returned an array of shape {array.shape}, not one score per node")
    kind = array.dtype.kind
    if kind == "i":
        return array.astype(np.int64, copy=False)
    if kind in "bu":
        if kind == "u" and n and int(array.max()) > _INT64_MAX:
            raise _Broken(f"{hook} returned a score out of range: {int(array.max())}")
        return array.astype(np.int64)
    if kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(array) | (array != np.trunc(array)) | (np.abs(array) >= 2.0**63)
        if np.count_nonzero(bad):
            first = int(np.flatnonzero(bad)[0])
            name = nodes.snapshot.node_names[int(nodes.indices[first])]
            raise _Broken(f"{hook} returned {float(array[first])!r} for node {name!r}, not an integer score")
        return array.astype(np.int64)
    raise _Broken(f"{hook} returned scores of dtype {array.dtype}, not integers")


#: The outcome functions that go on to the next plugin when a plugin returns None (Success, or
#: no PostFilter result): :meth:`Framework._each` skips checking and deciding then.
_NONE_GOES_ON = frozenset({_pre_enqueue_outcome, _pre_filter_outcome, _pre_score_outcome, _node_hook_outcome,
                           _permit_outcome, _post_filter_outcome})
