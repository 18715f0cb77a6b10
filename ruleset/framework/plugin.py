"""The plugin base class, the per-node convenience classes, the framework handle and the score range."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ruleset.framework.args import ArgError, args_from_mapping, args_to_mapping
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.results import FilterResult
from ruleset.framework.status import Status
from ruleset.hookspecs import hookimpl

if TYPE_CHECKING:
    from ruleset.api.pod import Pod
    from ruleset.framework.runtime import Framework
    from ruleset.snapshot import NodeInfo, NodeSet, Snapshot

#: ``framework.MaxNodeScore`` / ``MinNodeScore``: the range of a score after NormalizeScore.
MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


class Handle:
    """What a plugin can reach besides its args (kube-scheduler's ``FrameworkHandle``).

    ``snapshot`` is the cluster of the current run and ``framework`` the profile's runtime
    (preemption uses it to re-run the filters); both are set before any hook is called.
    """

    def __init__(self) -> None:
        self.framework: Framework | None = None
        self.snapshot: Snapshot | None = None
        #: Pods nominated to nodes by earlier preemptions: node name -> pods.
        self.nominated: dict[str, list[Pod]] = {}


class Plugin:
    """Base class of every scheduler plugin.

    Subclasses set :attr:`name` (the framework name profiles use) and implement hooks from
    :mod:`ruleset.hookspecs` as methods decorated with :data:`ruleset.hookimpl`. A plugin
    with args sets :attr:`args_schema` (the JSON Schema of its ``args`` table) and
    :attr:`Args` (a dataclass built with :func:`ruleset.framework.args.arg_field`), and
    overrides :meth:`validate_args` for the rules a schema cannot say (with Kubernetes'
    messages).
    """

    #: The framework name, e.g. ``"NodeLabel"``.
    name: ClassVar[str]
    #: JSON Schema of the ``args`` table; the default accepts no args.
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "properties": {}, "additionalProperties": False,
    }
    #: Args dataclass; None means args are passed through as a dict.
    Args: ClassVar[type | None] = None
    #: Deprecated names that still select this plugin (e.g. legacy Policy names).
    aliases: ClassVar[tuple[str, ...]] = ()

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
    def args_with_defaults(cls, raw: Mapping[str, Any]) -> dict[str, Any]:
        """An args table as written, with every default filled in (camelCase keys)."""
        return cls.args_to_dict(cls.parse_args(raw))

    @classmethod
    def args_to_dict(cls, args: Any) -> dict[str, Any]:
        """The args as a camelCase mapping with defaults filled in (for ``show`` and export)."""
        if dataclasses.is_dataclass(args) and not isinstance(args, type):
            return args_to_mapping(args)
        return dict(args or {})

    def __repr__(self) -> str:
        return f"<{type(self).__name__} plugin {self.name!r}>"


class PerNodeFilter(Plugin):
    """Convenience base: write :meth:`filter_node` for one node; ruleset batches it."""

    def filter_node(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        """Return None (or Success) when ``pod`` fits ``node``, else a Status with reasons."""
        raise NotImplementedError

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult:
        return FilterResult.from_statuses([self.filter_node(state, pod, info) for info in nodes])


class PerNodeScore(Plugin):
    """Convenience base: write :meth:`score_node` for one node; ruleset batches it."""

    def score_node(self, state: CycleState, pod: Pod, node: NodeInfo) -> int:
        """Return this node's score (in [0, 100] unless the plugin also normalizes)."""
        raise NotImplementedError

    @hookimpl
    def ruleset_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> np.ndarray:
        scores = (self.score_node(state, pod, info) for info in nodes)
        return np.fromiter(scores, dtype=np.int64, count=len(nodes))
