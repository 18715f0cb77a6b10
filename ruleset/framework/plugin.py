"""The plugin base class, the per-node convenience classes, the framework handle and the score range."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ruleset.errors import PLUGIN_FAULTS, describe_exception
from ruleset.framework.args import ArgError, args_from_mapping, args_schema, args_to_mapping
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.nominator import Nominator
from ruleset.framework.points import MAX_NODE_SCORE, MAX_TOTAL_SCORE, MIN_NODE_SCORE
from ruleset.framework.status import Status
from ruleset.framework.waiting import WaitingPod, WaitingPods
from ruleset.hookspecs import hookimpl
from ruleset.kversion import Target

if TYPE_CHECKING:
    # numpy (and results.py, which holds numpy arrays) only where plugins run, not where they are
    # discovered or checked: importing this module must not cost numpy's import.
    import numpy as np

    from ruleset.api.pod import Pod
    from ruleset.framework.results import FilterResult
    from ruleset.framework.runtime import Framework
    from ruleset.snapshot import NodeInfo, NodeSet, Snapshot

__all__ = ["MAX_NODE_SCORE", "MAX_TOTAL_SCORE", "MIN_NODE_SCORE", "PLUGIN_API_VERSION", "Handle",
           "PerNodeFilter", "PerNodeScore", "Plugin", "PluginClasses", "ProfileView", "check_plugin_args"]

#: The plugin API version this ruleset provides. A plugin declares the one it was written for
#: (:attr:`Plugin.api_version`); one whose major version differs is refused at registration.
#: The major version changes when a change to the API could break a plugin.
PLUGIN_API_VERSION = "1"

#: :attr:`Plugin.queue_order` of a QueueSort ordering by priority (higher first), then timestamp.
PRIORITY_ORDER = "priority, then timestamp"

#: :meth:`Plugin.other_pods` answers (see :mod:`ruleset.framework.dependence`): the plugin's Filter
#: verdict ignores other pods; reads them only as summed requests and pod count; may read anything.
OTHER_PODS_IGNORED = "ignored"
OTHER_PODS_AS_RESOURCES = "resources"
OTHER_PODS_ANY = "any"


@dataclasses.dataclass(frozen=True, slots=True)
class ProfileView:
    """What a plugin may read of the profile it runs in (:attr:`Handle.profile`), read-only."""

    #: The profile's name (its ``schedulerName`` when exported).
    name: str
    #: As the profile sets it: None when unset, 0 adaptive, else a percentage.
    percentage_of_nodes_to_score: int | None
    #: The Kubernetes release the profile targets, ``"MAJOR.MINOR"`` ("1.20" when it names none).
    kubernetes_version: str | None = None


class Handle:
    """What a plugin can reach besides its args (kube-scheduler's ``framework.Handle``).

    ``snapshot`` is the cluster the framework runs on, given when the handle is built (None
    when a framework is only built to be checked or described, as ``validate`` and ``show``
    do: read it in hooks, not in a constructor); ``nominator`` holds the pods nominated to
    nodes by earlier preemptions; ``framework`` is the profile's runtime (preemption uses it
    to re-run the filters), set by the :class:`~ruleset.framework.runtime.Framework` the
    handle is given to; ``waiting_pods`` holds the pods waiting on Permit; ``pending_pods``
    are the pods the run has to schedule (set by the scheduling loop; upstream plugins list
    them through the informers); ``profile`` is a read-only :class:`ProfileView` of the
    profile the framework runs (its name, ``percentage_of_nodes_to_score`` and
    ``kubernetes_version``), None until the handle is given to a framework (it is, before
    any plugin of the profile is constructed).
    """

    def __init__(self, snapshot: Snapshot | None = None, nominator: Nominator | None = None) -> None:
        self.snapshot = snapshot
        self.nominator = nominator if nominator is not None else Nominator()
        self._framework: Framework | None = None
        self._profile: ProfileView | None = None
        self._target: Target | None = None
        self.waiting_pods = WaitingPods()
        self.pending_pods: Sequence[Pod] = ()

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], object]) -> None:
        """``IterateOverWaitingPods``: ``callback`` on each pod waiting on Permit, in the order
        they started waiting."""
        for waiting in self.waiting_pods:
            callback(waiting)

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        """``GetWaitingPod``: the waiting pod with ``metadata.uid`` ``uid``, or None."""
        return self.waiting_pods.get(uid)

    @property
    def framework(self) -> Framework | None:
        """The profile's runtime, once the handle is given to one."""
        return self._framework

    @framework.setter
    def framework(self, framework: Framework | None) -> None:
        self._framework = framework
        # Built here, once: plugins may read it in every hook call.
        self._profile = None if framework is None else ProfileView(
            framework.profile.name, framework.profile.percentage_of_nodes_to_score,
            str(framework.profile.target.version))
        self._target = None if framework is None else framework.profile.target

    @property
    def target(self) -> Target:
        """The release and feature gates the profile runs as (:class:`ruleset.Target`): read it
        when the plugin is built and pick the behaviour of that release then
        (``self.handle.target.has(SWITCH)``), so that hooks carry no version checks. Kubernetes
        1.20 with its default gates until the handle is given to a framework."""
        return self._target if self._target is not None else Target()

    @property
    def profile(self) -> ProfileView | None:
        """The profile the framework runs, as a :class:`ProfileView` (None without a framework)."""
        return self._profile

    @property
    def nominated(self) -> Mapping[str, list[Pod]]:
        """Pods nominated to nodes, node name -> pods (read-only; change it through :attr:`nominator`)."""
        return self.nominator.as_mapping()


class Plugin:
    """Base class of every scheduler plugin.

    Subclasses set :attr:`name` (the framework name profiles use) and implement hooks from
    :mod:`ruleset.hookspecs` as methods decorated with :data:`ruleset.hookimpl`. A plugin
    with args sets :attr:`Args`, a frozen dataclass whose fields are built with
    :func:`ruleset.arg_field` (each with its Kubernetes key, JSON Schema and description,
    from which :attr:`args_schema` is derived), and overrides :meth:`validate_args` for the
    rules a schema cannot say (with Kubernetes' messages). The class docstring's first
    paragraph describes the plugin to editors (``ruleset schema``).
    """

    #: The framework name, e.g. ``"NodeLabel"``.
    name: ClassVar[str]
    #: JSON Schema of the ``args`` table: derived from :attr:`Args` unless a class sets it;
    #: the default accepts no args.
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "properties": {}, "additionalProperties": False,
    }
    #: Args dataclass; None means args are passed through as a dict.
    Args: ClassVar[type | None] = None
    #: Deprecated names that still select this plugin (e.g. legacy Policy names).
    aliases: ClassVar[tuple[str, ...]] = ()
    #: The plugin API version the plugin is written for (:data:`ruleset.PLUGIN_API_VERSION` when
    #: not set); a plugin whose major version differs from ruleset's is refused at registration.
    api_version: ClassVar[str] = PLUGIN_API_VERSION
    #: The Kubernetes release that brought the plugin (None: every release ruleset models has it).
    introduced_in: ClassVar[str | None] = None
    #: The release that no longer has it (None: still there); a profile targeting that release or
    #: a later one is refused, naming :attr:`replaced_by`.
    removed_in: ClassVar[str | None] = None
    #: What replaces the plugin from :attr:`removed_in` on, for that message.
    replaced_by: ClassVar[str] = ""
    #: A QueueSort plugin whose order is exactly "higher ``pod.priority`` first, then earlier
    #: ``timestamp``" (PrioritySort's) says so with :data:`PRIORITY_ORDER`: the queue then compares
    #: plain keys instead of calling the hook. Declared by the class that defines the hook (a
    #: subclass changing the hook without declaring it again gets the hook called).
    queue_order: ClassVar[str | None] = None
    #: Extension points the plugin extends only from a release on, e.g. ``{"score": "1.22"}``
    #: (NodeResourcesFit scores from 1.22): before it, the point is as if not implemented.
    points_since: ClassVar[Mapping[str, str]] = {}

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """How this plugin's Filter verdicts for ``pod`` depend on the other pods of the cluster
        (called after PreFilter, with the cycle's state): :data:`OTHER_PODS_IGNORED`,
        :data:`OTHER_PODS_AS_RESOURCES` or :data:`OTHER_PODS_ANY` (the default, always safe).

        Preemption's dry runs and the nominated-pods check answer their what-if questions for
        many nodes at once when every Filter plugin says one of the first two; see
        :mod:`ruleset.framework.dependence` for exactly what each promises.
        """
        return OTHER_PODS_ANY

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.Args is not None and "args_schema" not in cls.__dict__ and "Args" in cls.__dict__:
            cls.args_schema = args_schema(cls.Args)

    def __init__(self, args: Any = None, handle: Handle | None = None):
        self.args = args if args is not None else self.parse_args({})
        self.handle = handle or Handle()

    @classmethod
    def parse_args(cls, raw: Mapping[str, Any]) -> Any:
        """Turn a schema-valid args mapping into this plugin's args object, defaults filled in."""
        if cls.Args is not None:
            return args_from_mapping(cls.Args, raw)
        return dict(raw)

    @classmethod
    def validate_args(cls, args: Any) -> list[ArgError]:
        """Semantic checks beyond the schema; return every problem found."""
        return []

    @classmethod
    def check_args(cls, raw: Mapping[str, Any]) -> tuple[Any, list[ArgError]]:
        """Parse and validate a (schema-valid) args mapping: the args object (None when they
        cannot be read) and every problem found."""
        # A plugin's own code reads args that may not even match its schema (the profile
        # loader reports those, and drops what this finds); nothing it raises escapes.
        try:
            args = cls.parse_args(raw)
        except PLUGIN_FAULTS as exc:
            return None, [ArgError((), f"cannot read args: {describe_exception(exc)}")]
        try:
            return args, list(cls.validate_args(args))
        except PLUGIN_FAULTS as exc:
            return None, [ArgError((), f"validating args failed: {describe_exception(exc)}")]

    @classmethod
    def args_with_defaults(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        """An args table as written, with every default filled in (camelCase keys)."""
        return cls.args_to_dict(cls.parse_args(raw))

    @classmethod
    def args_to_dict(cls, args: Any) -> dict[str, Any]:
        """The args as a camelCase mapping with defaults filled in (for ``show`` and export)."""
        if dataclasses.is_dataclass(args) and not isinstance(args, type):
            return args_to_mapping(args)
        return dict(args or {})

    @classmethod
    def summary(cls) -> str:
        """The first paragraph of the class docstring, as one line: how ``ruleset schema`` and
        ``ruleset plugins`` describe the plugin."""
        lines = []
        for line in (cls.__doc__ or "").strip().splitlines():
            if not line.strip():
                break
            lines.append(line.strip())
        return " ".join(lines)

    def score_details(self, pod: Pod, nodes: NodeSet) -> Sequence[Mapping[str, Any]] | None:
        """Optional detail of this plugin's score for reports: one mapping per node of
        ``nodes``, merged into the plugin's entry of ``ruleset score``'s JSON. None: no detail."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} plugin {self.name!r}>"


#: How reports name the built-in plugins' package (:meth:`PluginClasses.package_of`).
BUILTIN_PACKAGE = "built-in"


class PluginClasses(Protocol):
    """Plugin classes by framework name (:class:`ruleset.pluginmanager.PluginRegistry` is one)."""

    def get(self, name: str) -> type[Plugin] | None:
        """The class registered as ``name`` (or as a deprecated alias of it), or None."""
        ...

    def package_of(self, name: str) -> str:
        """The package plugin ``name`` came from: ``built-in``, or a distribution and version."""
        ...


def check_plugin_args(cls: type[Plugin],
                      raw: Mapping[str, Any]) -> tuple[Any, list[tuple[tuple[str | int, ...], str]]]:
    """Parse and semantically validate a plugin's (schema-valid) args, as kube-scheduler's
    ``ValidateXxxArgs`` would: the args object and ``(path within args, message)`` per problem."""
    args, errors = cls.check_args(raw)
    return args, [(error.path, error.message) for error in errors]


class PerNodeFilter(Plugin):
    """Convenience base: write :meth:`filter_node` for one node; ruleset batches it."""

    def filter_node(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        """Return None (or Success) when ``pod`` fits ``node``, else a Status with reasons."""
        raise NotImplementedError

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        # (None, "every node passes", is what a subclass may return when it can tell at once.)
        from ruleset.framework.results import FilterResult

        return FilterResult.from_statuses([self.filter_node(state, pod, info) for info in nodes])


class PerNodeScore(Plugin):
    """Convenience base: write :meth:`score_node` for one node; ruleset batches it."""

    def score_node(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        """Return this node's score (in [0, 100] unless the plugin also normalizes)."""
        raise NotImplementedError

    @hookimpl
    def ruleset_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> np.ndarray:
        import numpy as np

        scores = (self.score_node(state, pod, info) for info in nodes)
        return np.fromiter(scores, dtype=np.int64, count=len(nodes))
