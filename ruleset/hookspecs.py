"""Hook specifications: one per kube-scheduler extension point, plus plugin discovery.

Plugins implement these with :data:`ruleset.hookimpl`. There are two kinds of hook:

* **Discovery hooks** are implemented by plugin *modules* (built-ins, and third-party
  packages registered under the ``ruleset`` entry-point group). They tell ruleset which
  plugin classes exist and what their args look like.
* **Extension-point hooks** are implemented by plugin *classes*, as methods. A profile
  instantiates each plugin it enables with that plugin's validated args and registers the
  instance under its plugin name, so pluggy checks every method against the spec below (an
  unknown hook or argument name fails at load time, naming plugin and hook). The profile
  then builds, once, an ordered call table per extension point and calls the methods
  directly in profile order; pluggy's own dispatch is not used on the hot path.

Extension-point hooks are **batch** hooks: Filter and Score receive every candidate node at
once as a :class:`~ruleset.snapshot.NodeSet` over the columnar snapshot and return numpy
arrays. Plugins written one node at a time subclass :class:`ruleset.PerNodeFilter` /
:class:`ruleset.PerNodeScore` instead.

A hook may take any subset of its spec's arguments, in any order. Returning ``None`` from a
hook that returns a :class:`~ruleset.Status` means Success. An exception raised by a hook
is reported as an Error status naming the plugin; it fails that pod's cycle, not the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

PROJECT = "ruleset"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

if TYPE_CHECKING:
    import numpy as np

    from ruleset.api.pod import Pod
    from ruleset.framework.cycle_state import CycleState
    from ruleset.framework.plugin import Plugin
    from ruleset.framework.results import FilterResult, NodeStatuses, PostFilterResult, PreFilterResult
    from ruleset.framework.status import Status
    from ruleset.framework.types import QueuedPodInfo
    from ruleset.snapshot import NodeSet, Snapshot


class DiscoverySpecs:
    """Hooks implemented by plugin modules (built-ins and the ``ruleset`` entry-point group)."""

    # -------------------------------------------------------------------------
    # Discovery hooks
    # -------------------------------------------------------------------------

    @hookspec
    def ruleset_register_plugins(self, register: Callable[[type[Plugin]], None]) -> None:
        """Register the plugin classes a module provides.

        Call ``register(cls)`` once per class. Each class carries its framework name in
        ``cls.name``; two classes with the same name are an error that names both.

        :param register: callback taking a :class:`~ruleset.Plugin` subclass.

        Use in plugin modules: built-ins and third-party packages both implement this.
        """

    @hookspec(firstresult=True)
    def ruleset_plugin_args_schema(self, plugin: type[Plugin]) -> dict[str, Any] | None:
        """Return the JSON Schema of a plugin's ``args`` table.

        Stops at first non-None result, see pluggy's ``firstresult``. ruleset's own
        implementation runs last and returns ``plugin.args_schema``, so a package only
        implements this to supply or override a schema without touching the class. An
        implementation that raises, or answers with no valid JSON Schema, for any plugin (a
        built-in included) is blamed on its package, which is left out whole
        (``plugin-load-failed``); a plugin is refused alone (``invalid-args-schema``) only when
        its own ``args_schema`` is invalid.

        :param plugin: the plugin class whose args schema is wanted.
        :returns: a JSON Schema (draft 2020-12) for the ``args`` table, or None.

        Use in plugin modules.
        """

    @hookspec
    def ruleset_sweep_engines(self, register: Callable[[str, Callable[..., Any]], None]) -> None:
        """Register the engines ``ruleset sweep --engine NAME`` can run a sweep's tasks on.

        Call ``register(name, factory)`` once per engine. ``factory(options)`` gets an
        :class:`~ruleset.sweep.engines.EngineOptions` (``workers``, ``scheduler``) and returns an
        object whose ``run(tasks, done)`` runs every task (a picklable
        :class:`~ruleset.sweep.task.TaskSpec`) through :func:`ruleset.sweep.task.run_task`, where
        it likes, and calls ``done(result)`` in the calling process as each result arrives; a task
        whose worker is lost gets :func:`ruleset.sweep.task.lost` as its result. ruleset registers
        ``local`` (a process pool) and ``dask`` (dask.distributed) first; a name already taken is
        ignored.

        :param register: callback taking an engine name and its factory.

        Use in plugin modules: a package adds an engine (Ray, a batch system) without touching
        ruleset.
        """


class ExtensionPointSpecs:
    """Hooks implemented by plugin instances, one per extension point, in cycle order."""

    # -------------------------------------------------------------------------
    # Scheduling queue: PreEnqueue, QueueSort
    # -------------------------------------------------------------------------

    @hookspec
    def ruleset_pre_enqueue(self, pod: Pod) -> Status | None:
        """PreEnqueue (Kubernetes 1.26+): may the pod enter the scheduling queue at all?

        Runs once per pending pod, before it is queued, plugins in profile order until one
        does not succeed. A pod refused here is never attempted: it is listed as gated, with
        the status's message, not as unschedulable (kube-scheduler keeps it among the
        unschedulable pods, gated, until an update to the pod lets it in). SchedulingGates
        refuses a pod that still has ``spec.schedulingGates``.

        :param pod: the pending pod.
        :returns: a Status (UnschedulableAndUnresolvable, or Unschedulable, to keep the pod
            out), or None for Success.
        """

    @hookspec
    def ruleset_queue_sort(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """QueueSort: whether pod ``a`` should be scheduled before pod ``b``.

        Exactly one QueueSort plugin is active in a profile (PrioritySort when the profile
        names none, as kube-scheduler's default configuration has it).

        :param a: a queued pod (``a.pod``, ``a.timestamp``, ``a.attempts``).
        :param b: another queued pod.
        :returns: True when ``a`` sorts strictly before ``b`` (a "less" function).
        """

    # -------------------------------------------------------------------------
    # Filtering: PreFilter, Filter, PostFilter
    # -------------------------------------------------------------------------

    @hookspec
    def ruleset_pre_filter(self, state: CycleState, pod: Pod,
                           snapshot: Snapshot) -> Status | PreFilterResult | None:
        """PreFilter: check the pod and precompute state for Filter, once per cycle.

        Plugins run in profile order and stop at the first non-success. Unschedulable or
        UnschedulableAndUnresolvable gives every node that status (PostFilter still runs);
        Error aborts the cycle. From 1.27 Skip means the plugin's Filter has nothing to do
        with the pod. From 1.24 a :class:`~ruleset.PreFilterResult` means Success, and only
        the nodes it names are filtered (the results of all plugins intersected; an empty
        intersection rejects the pod).

        :param state: the cycle state; write precomputed data here.
        :param pod: the pod being scheduled.
        :param snapshot: the cluster snapshot.
        :returns: a Status, a PreFilterResult, or None for Success.
        """

    @hookspec
    def ruleset_pre_filter_add_pod(
        self, state: CycleState, pod: Pod, pod_to_add: Pod, node: int, snapshot: Snapshot
    ) -> Status | None:
        """PreFilter extension: update precomputed state after ``pod_to_add`` joins node ``node``.

        Called by preemption's dry runs and for nominated pods, on a cloned state, so that
        Filter sees the hypothetical node. The snapshot already includes ``pod_to_add``.

        :param state: the (cloned) cycle state to update.
        :param pod: the pod being scheduled.
        :param pod_to_add: the pod added to the node.
        :param node: index of the node in the snapshot.
        :param snapshot: the cluster snapshot.
        """

    @hookspec
    def ruleset_pre_filter_remove_pod(
        self, state: CycleState, pod: Pod, pod_to_remove: Pod, node: int, snapshot: Snapshot
    ) -> Status | None:
        """PreFilter extension: update precomputed state after ``pod_to_remove`` leaves node ``node``.

        The snapshot no longer includes ``pod_to_remove`` when this is called.

        :param state: the (cloned) cycle state to update.
        :param pod: the pod being scheduled.
        :param pod_to_remove: the pod removed from the node.
        :param node: index of the node in the snapshot.
        :param snapshot: the cluster snapshot.
        """

    @hookspec
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        """Filter: decide, for every candidate node at once, whether the pod fits.

        Plugins run in profile order; each sees only the nodes every earlier Filter plugin
        passed, so the first failing plugin decides a node's status and reasons, as in
        kube-scheduler (``runAllFilters: false``).

        :param state: the cycle state (read what PreFilter wrote).
        :param pod: the pod being scheduled.
        :param nodes: the candidate nodes, a view over the columnar snapshot.
        :returns: a :class:`~ruleset.FilterResult` aligned with ``nodes`` (Success,
            Unschedulable, UnschedulableAndUnresolvable or Error per node), or None when
            every node passes.
        """

    @hookspec
    def ruleset_queueing_hint(self, pod: Pod, placed: Pod) -> bool | None:
        """Queueing hint (Filter): may ``placed`` landing on a node let the parked ``pod`` fit?

        A pod no node fits waits, parked, until a cluster event might change that. When a
        pod is placed, the parked pods whose required pod affinity it satisfies are retried
        (v1.20's queue does that itself), and so is every parked pod that a hint of a plugin
        running at Filter answers True for (upstream's later EventsToRegister /
        QueueingHint). A pod leaving a node retries every parked pod without asking. A hint
        that raises counts as True. A plugin that does not run at Filter is not asked.

        :param pod: a parked pod.
        :param placed: a pod just bound to a node (``placed.node_name``).
        :returns: True to retry ``pod``; False or None to leave it parked.
        """

    @hookspec
    def ruleset_post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeStatuses
    ) -> PostFilterResult | None:
        """PostFilter: called only when no node passed Filter, e.g. to preempt lower-priority pods.

        Plugins run in profile order until one returns a result with Success (or with
        Error, which ends the cycle).

        :param state: the cycle state.
        :param pod: the pod that did not fit anywhere.
        :param statuses: every node's filter status.
        :returns: a :class:`~ruleset.PostFilterResult` (a nominated node on Success), or None
            when the plugin could not help.
        """

    # -------------------------------------------------------------------------
    # Scoring: PreScore, Score, NormalizeScore
    # -------------------------------------------------------------------------

    @hookspec
    def ruleset_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> Status | None:
        """PreScore: precompute state for Score over the nodes that passed Filter.

        :param state: the cycle state.
        :param pod: the pod being scheduled.
        :param nodes: the feasible nodes that will be scored.
        :returns: a Status, or None for Success; from Kubernetes 1.27 a Skip means this
            plugin's Score and NormalizeScore are not run for the pod (it is left out of the
            node's scores); any other non-success aborts the cycle.
        """

    @hookspec
    def ruleset_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> np.ndarray:
        """Score: rank every feasible node at once.

        :param state: the cycle state.
        :param pod: the pod being scheduled.
        :param nodes: the feasible nodes.
        :returns: an integer array aligned with ``nodes``. Without NormalizeScore the
            values must lie in [0, 100].
        """

    @hookspec
    def ruleset_normalize_score(
        self, state: CycleState, pod: Pod, nodes: NodeSet, scores: np.ndarray
    ) -> np.ndarray | None:
        """NormalizeScore: map this plugin's raw scores into [0, 100].

        :param state: the cycle state.
        :param pod: the pod being scheduled.
        :param nodes: the feasible nodes.
        :param scores: this plugin's raw scores, aligned with ``nodes`` (may be changed in place).
        :returns: the normalized scores, or None when ``scores`` was changed in place.
        """

    # -------------------------------------------------------------------------
    # Reserving and binding: Reserve, Permit, PreBind, Bind, PostBind
    # -------------------------------------------------------------------------

    @hookspec
    def ruleset_reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        """Reserve: claim resources on the chosen node before binding.

        :param state: the cycle state.
        :param pod: the pod being scheduled.
        :param node: the chosen node's name.
        :returns: a Status, or None for Success; a failure runs Unreserve in reverse order.
        """

    @hookspec
    def ruleset_unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        """Unreserve: undo Reserve after a later failure (called in reverse profile order).

        :param state: the cycle state.
        :param pod: the pod being scheduled.
        :param node: the node whose reservation is undone.
        """

    @hookspec
    def ruleset_permit(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        """Permit: approve, reject or delay binding.

        Wait leaves the pod assumed on ``node`` (its resources held) among the handle's
        waiting pods until plugins allow or reject it (``handle.iterate_over_waiting_pods``,
        ``handle.get_waiting_pod``); the Wait status's message is the reason it is rejected
        with if the run ends first. The other Permit plugins still run.

        :param state: the cycle state.
        :param pod: the pod being scheduled.
        :param node: the chosen node's name.
        :returns: Success (or None), Unschedulable to reject, or Wait.
        """

    @hookspec
    def ruleset_pre_bind(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        """PreBind: prepare for binding (e.g. provision volumes).

        :param state: the cycle state.
        :param pod: the pod being bound.
        :param node: the chosen node's name.
        :returns: a Status, or None for Success.
        """

    @hookspec
    def ruleset_bind(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        """Bind: bind the pod to the node. Binders run in order until one does not Skip.

        :param state: the cycle state.
        :param pod: the pod being bound.
        :param node: the chosen node's name.
        :returns: Success (or None) when bound, Skip to let the next binder try, or a failure.
        """

    @hookspec
    def ruleset_post_bind(self, state: CycleState, pod: Pod, node: str) -> None:
        """PostBind: informational, after a successful bind.

        :param state: the cycle state.
        :param pod: the bound pod.
        :param node: the node it was bound to.
        """
